// Package report renders what happened during a run for people and for
// machines. It decides nothing: it turns runner Events into lines.
//
// Every line for people follows the rules in this file: one line, starting
// with "retry: ", lowercase, no trailing period.
package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"retry/policy"
	"retry/runner"
)

// Text writes the attempt and give-up lines to W, usually stderr.
type Text struct {
	W io.Writer
	// Program is the program name shown in lines; the full argv is shown
	// only when Verbose is set, because argv often carries secrets.
	Program string
	Argv    []string
	// Deadline is the run's total deadline, 0 for none, named when it
	// ends the run.
	Deadline time.Duration
	// Quiet keeps only the give-up line; Verbose adds a line per attempt
	// start with the full command, and the attempt's duration.
	Quiet, Verbose bool
	// Annotated leaves out the lines that GitHub annotations carry (a
	// failure that will be retried, giving up, being stopped), so each
	// event is told once.
	Annotated bool
	// Cause says what stopped a cancelled run, such as "received SIGTERM".
	Cause func() string
}

// Observe renders one event; it is a runner.Config.Observe function.
func (t *Text) Observe(e runner.Event) {
	switch e := e.(type) {
	case *runner.AttemptStarted:
		if t.Verbose {
			t.printf("attempt %s: %s", count(e.Attempt, e.Max), Quote(t.Argv))
		}
	case *runner.AttemptEnded:
		if !e.Final && !t.Quiet && !t.Annotated {
			t.attemptFailed(e)
		}
	case *runner.HookEnded:
		if e.Failed() && !t.Quiet {
			t.printf("--on-retry command failed before attempt %d: %s", e.Attempt, hookFailure(e))
		}
	case *runner.Finished:
		t.finished(e.Result)
	}
}

func (t *Text) attemptFailed(e *runner.AttemptEnded) {
	o := e.Attempt
	took := ""
	if t.Verbose {
		took = " after " + Duration(o.Duration)
	}
	phase := o.Next.Phase.String() + " phase"
	if o.Verdict.Throttled && o.Next.Phase == policy.Slow {
		phase += ", as the server asked to slow down"
	}
	when := "in " + Duration(o.Next.Wait)
	if o.Next.Wait <= 0 {
		when = "at once" // full jitter drew 0: not "in 0s"
	}
	t.printf("attempt %s failed%s: %s; retrying %s (%s)",
		count(o.N, e.Max), took, Failure(o), when, phase)
}

// Repeats says, once a run, that an attempt that failed had already
// written to stdout and that the next attempt's output will follow it
// there: whoever reads the pipe or the file gets both. It says nothing
// when the bytes were held (--stdout buffer), when stdout is a terminal
// (a person sees every attempt anyway), when they could not be counted, or
// when no attempt follows. With -q it is not used: the report and the
// JSON log still count the bytes.
type Repeats struct {
	W io.Writer
	// StdoutTerminal is set when our stdout is a terminal.
	StdoutTerminal bool

	said bool
}

// Observe implements a runner.Config.Observe function.
func (r *Repeats) Observe(e runner.Event) {
	end, ok := e.(*runner.AttemptEnded)
	if !ok || end.Final || r.said || r.StdoutTerminal {
		return
	}
	o := end.Attempt
	w := o.StdoutWritten
	if !w.Known || w.Held || w.Bytes == 0 {
		return
	}
	r.said = true
	streams := "stdout"
	if w.WithStderr {
		streams = "stdout and stderr"
	}
	fmt.Fprintf(r.W, "retry: warning: attempt %d failed after writing %s to %s; attempt %d's output will follow them, so the reader gets both; "+
		"--stdout buffer passes on only the successful attempt's output\n",
		o.N, Size(w.Bytes), streams, o.N+1)
}

func (t *Text) finished(r runner.Result) {
	n := len(r.Attempts)
	last := r.Last()
	if r.Stop == runner.Succeeded {
		if n > 1 && !t.Quiet {
			t.printf("%s succeeded on attempt %d after %s", t.Program, n, Duration(r.Elapsed))
		}
		return
	}
	if t.Annotated {
		return
	}
	if r.Stop == runner.StdinReadFailed {
		t.printf("%s succeeded on attempt %d, but on a cut input: %s; its result covers only what came before", t.Program, n, stdinCut(r.StdinLost))
		return
	}
	verb := "giving up on"
	if r.Stop == runner.Cancelled {
		verb = "stopped"
	}
	line := fmt.Sprintf("%s %s after %s in %s: %s", verb, t.Program, plural(n, "attempt"), Duration(r.Elapsed), t.reason(r))
	if n > 0 {
		line += "; last error: " + Failure(last)
	}
	if len(last.Verdict.Lines) > 0 {
		quoted := make([]string, len(last.Verdict.Lines))
		for i, l := range last.Verdict.Lines {
			quoted[i] = fmt.Sprintf("%q", l)
		}
		line += "; output: " + strings.Join(quoted, " ")
	}
	t.printf("%s", line)
}

func (t *Text) reason(r runner.Result) string {
	last := r.Last()
	switch r.Stop {
	case runner.Exhausted:
		return "attempts exhausted"
	case runner.Terminal:
		return "terminal failure"
	case runner.Deadline:
		if last.DeadlineHit {
			return fmt.Sprintf("the %s deadline stopped attempt %d", Duration(t.Deadline), last.N)
		}
		if last.Next.Wait > 0 {
			return fmt.Sprintf("the next wait (%s) would pass the %s deadline", Duration(last.Next.Wait), Duration(t.Deadline))
		}
		return fmt.Sprintf("the %s deadline passed", Duration(t.Deadline))
	case runner.HintPastDeadline:
		return fmt.Sprintf("the wait asked for (%s) would pass the %s deadline", Duration(last.Next.Wait), Duration(t.Deadline))
	case runner.HintTooLong:
		return fmt.Sprintf("the wait asked for (%s) is longer than --retry-after-max", Duration(last.Next.Wait))
	case runner.Cancelled:
		if t.Cause != nil {
			return t.Cause()
		}
		return "cancelled"
	case runner.DownstreamClosed:
		return "the reader of stdout went away"
	case runner.HookFailed:
		return "the --on-retry command failed (--on-retry-must-succeed)"
	case runner.Refused:
		if r.Refusal != nil {
			return r.Refusal.Error()
		}
		return "retry refused"
	case runner.StdinUnreplayable:
		return stdinLost(r.StdinLost)
	case runner.StdinReadFailed:
		return stdinCut(r.StdinLost)
	case runner.StdoutNotHeld:
		return "--stdout buffer could not hold the output, which went to stdout as it came, so a retry's would follow it"
	}
	return r.Stop.String()
}

// stdinLost says why the input cannot be replayed to another attempt and
// what to do instead.
func stdinLost(lost *runner.StdinLost) string {
	const notAgain = "and can no longer be replayed"
	switch {
	case lost == nil:
		return "stdin " + notAgain
	case lost.ReadErr != nil:
		return stdinCut(lost) + ", and it can no longer be replayed"
	case lost.Err != nil:
		return fmt.Sprintf("stdin could not be recorded past %s (%v) %s: pass a file (< file) or set TMPDIR to a writable directory with room",
			Size(lost.Recorded), lost.Err, notAgain)
	}
	size := Size(lost.Read)
	if !lost.Whole {
		size = "at least " + size
	}
	return fmt.Sprintf("stdin was %s, past --stdin-max %s, %s: pass a file (< file) or raise --stdin-max", size, Size(lost.Max), notAgain)
}

// stdinCut says where reading stdin failed.
func stdinCut(lost *runner.StdinLost) string {
	if lost == nil || lost.ReadErr == nil {
		return "reading stdin failed"
	}
	return fmt.Sprintf("reading stdin failed after %s (%v), so the input ended there", Size(lost.Read), lost.ReadErr)
}

// Size formats a number of bytes for people: 512 bytes, 8 MiB, 1.5 GiB.
func Size(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return plural(int(n), "byte")
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	s := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
	return s + " " + units[u:u+1] + "iB"
}

func hookFailure(e *runner.HookEnded) string {
	if e.Err != nil {
		return startProblem(e.Err)
	}
	return e.Exit.String()
}

func (t *Text) printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintf(t.W, "retry: %s\n", OneLine(line))
}

// Failure describes how an attempt failed and how it was judged:
// `exit 7 (transient)`, `killed by SIGSEGV (terminal: a crash)`,
// `"curlx": executable file not found in $PATH (exit 127, terminal)`.
func Failure(o runner.Attempt) string {
	v := o.Verdict
	if o.Err != nil {
		return fmt.Sprintf("%s (exit %d, %s)", startProblem(o.Err), o.Exit.Code, v.Class)
	}
	judged := v.Class.String()
	if v.Rule != "" {
		judged += ": " + v.Rule
	}
	return fmt.Sprintf("%s (%s)", o.Exit, judged)
}

// startProblem says why a program could not start, without repeating its
// name twice as wrapped errors do.
func startProblem(err error) string {
	var se *runner.StartError
	if !errors.As(err, &se) {
		return err.Error()
	}
	inner := se.Err
	for {
		u, ok := inner.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			break
		}
		inner = u.Unwrap()
	}
	return fmt.Sprintf("%q: %v", se.Program, inner)
}

// Duration formats d for people: 437µs, 143ms, 2.5s, 1m30s. A wait or a
// limit under a millisecond keeps its microseconds, so it is never shown
// as 0s or rounded up to 1ms.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Microsecond:
		return d.String()
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", d.Seconds()), "0"), ".0") + "s"
	}
	return d.Round(time.Second).String()
}

// OneLine replaces line breaks and other control characters so a message
// stays on one line whatever it quotes.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// Quote renders argv so it could be pasted into a shell.
func Quote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, needsQuote) < 0 {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}

func needsQuote(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
}

func count(n, max int) string {
	if max <= 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d/%d", n, max)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
