package report

import (
	"time"

	"retry/exitcodes"
	"retry/policy"
	"retry/runner"
)

// Outcome names how a whole run ended, as the JSON log, the report file and
// the metrics show it. (A runner.Attempt is one attempt; an Outcome is the
// whole run.)
type Outcome string

// The outcomes of a run. The caller names the one a run ended with (see
// Ending); the runner's stop reasons map onto all but OutcomeBreakerOpen
// and OutcomeFallback, which the runner does not know about.
const (
	// OutcomeSuccess means an attempt succeeded.
	OutcomeSuccess Outcome = "success"
	// OutcomeExhausted means the last allowed attempt failed.
	OutcomeExhausted Outcome = "exhausted"
	// OutcomeDeadline means the total deadline ended the run: it stopped an
	// attempt, or the next wait (computed or asked for) would have passed it.
	OutcomeDeadline Outcome = "deadline"
	// OutcomeTerminal means an attempt failed in a way retrying cannot fix.
	OutcomeTerminal Outcome = "terminal"
	// OutcomeCancelled means a signal stopped the run.
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeStdinUnreplayable means a retry was due but its input could
	// no longer be replayed whole (past --stdin-max, or the spool could
	// not be written), so none was made.
	OutcomeStdinUnreplayable Outcome = "stdin-unreplayable"
	// OutcomeStdinReadFailed means an attempt succeeded, but reading stdin
	// had failed after it read all that came before, so its input ended
	// early: its success is not trusted.
	OutcomeStdinReadFailed Outcome = "stdin-read-failed"
	// OutcomeStdoutNotHeld means a retry was due but --stdout buffer could
	// not hold the failed attempt's output, which went to stdout as it
	// came, so none was made.
	OutcomeStdoutNotHeld Outcome = "stdout-not-held"
	// OutcomeBreakerOpen means the command was not run because its circuit
	// breaker was open and no fallback ran.
	OutcomeBreakerOpen Outcome = "breaker-open"
	// OutcomeFallback means the run failed or was refused and the fallback
	// command ran instead.
	OutcomeFallback Outcome = "fallback"
)

// Outcomes returns every Outcome, in the order the documentation lists them.
func Outcomes() []Outcome {
	return []Outcome{OutcomeSuccess, OutcomeExhausted, OutcomeDeadline, OutcomeTerminal,
		OutcomeCancelled, OutcomeStdinUnreplayable, OutcomeStdinReadFailed, OutcomeStdoutNotHeld, OutcomeBreakerOpen, OutcomeFallback}
}

// Ending is a finished run as the caller knows it: the runner's Result
// together with what only the caller decides, the outcome's name and
// retry's exit code. Report shows both and decides neither.
type Ending struct {
	Result runner.Result
	// Outcome names the ending, as cmd settled it; with
	// OutcomeBreakerOpen, Result.Attempts may be empty.
	Outcome Outcome
	// ExitCode is retry's own exit code, as cmd settled it.
	ExitCode int
}

// outcome is the ending's name, as cmd settled it.
func (e Ending) outcome() Outcome { return e.Outcome }

// end is when the run ended.
func (e Ending) end() time.Time { return e.Result.Start.Add(e.Result.Elapsed) }

// lastError describes the last attempt's failure, or is nil when the run
// succeeded or made no attempt.
func (e Ending) lastError() *string {
	switch {
	case len(e.Result.Attempts) == 0 || e.Result.Stop == runner.Succeeded:
		return nil
	case e.Result.Stop == runner.StdinReadFailed:
		return some(stdinCut(e.Result.StdinLost))
	}
	return some(Failure(e.Result.Last()))
}

// facts is one attempt reduced to plain values, shared by the JSON log and
// the report file. Every field of runner.Attempt that machines see passes
// through attemptFacts, so a field added to Attempt (or Verdict) is added to
// both outputs here.
type facts struct {
	ExitCode    int
	Signal      *string // "SIGTERM", or nil when no signal killed it
	TimedOut    bool
	DeadlineHit bool
	Class       string
	Rule        *string // nil for the plain defaults
	Error       *string // why it could not start, or nil
	// WaitMS and WaitPhase are the wait before the next attempt, nil when
	// there is no next attempt.
	WaitMS    *int64
	WaitPhase *string
	// RetryAfterMS is the wait the command asked for (Retry-After) when the
	// policy weighed it after this attempt, used or refused; nil otherwise.
	RetryAfterMS *int64
	// StdoutBytes and StderrBytes are what the attempt wrote to each
	// stream, nil when it could not be counted without a copy.
	StdoutBytes, StderrBytes *int64
	// LimitMS and LimitFrom are the time limit the attempt ran under and
	// what set it (timeout, deadline, learned, fallback); nil for none.
	LimitMS   *int64
	LimitFrom *string
}

func attemptFacts(o runner.Attempt) facts {
	f := facts{
		ExitCode:    o.Exit.Code,
		TimedOut:    o.Exit.TimedOut,
		DeadlineHit: o.DeadlineHit,
		Class:       o.Verdict.Class.String(),
	}
	if o.Exit.Signal != 0 {
		f.Signal = some(exitcodes.SignalName(o.Exit.Signal))
	}
	if o.Verdict.Rule != "" {
		f.Rule = some(o.Verdict.Rule)
	}
	if o.Err != nil {
		f.Error = some(OneLine(o.Err.Error()))
	}
	if o.Next.Retry {
		f.WaitMS = some(millis(o.Next.Wait))
		f.WaitPhase = some(o.Next.Phase.String())
	}
	if o.Next.Phase == policy.Hint {
		f.RetryAfterMS = some(millis(o.Next.Bound))
	}
	if o.StdoutWritten.Known {
		f.StdoutBytes = some(o.StdoutWritten.Bytes)
	}
	if o.StderrWritten.Known {
		f.StderrBytes = some(o.StderrWritten.Bytes)
	}
	if o.Limit.From != "" {
		f.LimitMS, f.LimitFrom = some(millis(o.Limit.D)), some(o.Limit.From)
	}
	return f
}

// timestamp formats t as RFC 3339 in UTC with milliseconds:
// 2026-01-02T15:04:05.000Z.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// millis rounds d to whole milliseconds.
func millis(d time.Duration) int64 {
	return d.Round(time.Millisecond).Milliseconds()
}

func some[T any](v T) *T { return &v }
