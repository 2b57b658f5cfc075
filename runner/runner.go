// Package runner runs the retry loop: attempt, classify, decide, wait,
// attempt again. It starts each attempt in its own process group, enforces
// the per-attempt timeout and the total deadline (signal, grace period,
// SIGKILL), reports what happens to an observer as Events, and returns a
// Result. It never prints and never picks an exit code: cmd does both.
package runner

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"retry/exitcodes"
	"retry/internal/steptrace"
	"retry/policy"
)

// Config is everything one run needs.
type Config struct {
	// Args is the command: Args[0] is the program, run directly, no shell.
	Args []string
	// Env is the child's base environment; the RETRY_* variables are
	// added for each attempt.
	Env []string
	// Dir is the child's working directory; empty means ours.
	Dir string
	// Stdin, Stdout and Stderr are our own streams. The attempt gets them
	// as they are unless StdinMode, StdoutMode or scanning needs the bytes.
	Stdin, Stdout, Stderr *os.File
	// StdinMode says how each attempt gets its input.
	StdinMode StdinMode
	// StdoutMode says whether each attempt's output is passed through or
	// held until the attempt has ended.
	StdoutMode StdoutMode
	// TempDir is where spools that outgrow memory go; empty means the
	// system's default.
	TempDir string
	// StdinMax caps the recording of a replayed stream (StdinReplay), in
	// bytes; 0 means no cap. Past it the attempt reading the stream
	// still gets all of it, but no later attempt can.
	StdinMax int64
	// Input, when set, is the input made from the fields above by
	// NewInput, which the caller closes: Run's attempts and then RunOnce's
	// command read it, so a --fallback gets what the attempts got. Unset,
	// Run makes its own and RunOnce gives no stdin.
	Input *Input
	// NewScan, when set, makes each attempt's stderr (and stdout, with
	// ScanStdout) go through a pipe, or a pseudo-terminal when our stderr
	// is a terminal, and returns the scanner that sees its lines. The
	// bytes are copied through unchanged as they arrive.
	NewScan    func() LineScanner
	ScanStdout bool
	// WatchStderr makes each attempt's stderr go through a pipe (or a
	// pseudo-terminal) even when nothing scans it, so that
	// Attempt.StderrMidLine is known: for a caller whose next line on
	// Stderr must start a line of its own (CI workflow commands).
	WatchStderr bool

	// Policy is the schedule: it decides the waits, the attempt limit and
	// the deadline.
	Policy policy.Policy
	// Rand drives the jitter.
	Rand policy.Rand
	// Classify judges each attempt from its ending and the scanner that
	// saw its output (nil without NewScan); nil means exitcodes.Classify.
	// It must judge an attempt that exited 0 of itself a success, as
	// exitcodes does: what such an attempt left running in its process
	// group has been left alone by the time it is judged.
	Classify func(exitcodes.Exit, LineScanner) exitcodes.Verdict

	// Timeout limits one attempt; 0 means no limit. Each attempt's limit is
	// also cut to the time left before the deadline.
	Timeout time.Duration
	// Limits, when set, gives attempt n's limit in place of Timeout
	// (which still limits the hook), from the attempt before it (the zero
	// Attempt for the first); it is cut to the deadline too.
	Limits func(n int, last Attempt) Limit
	// Signal is sent to the attempt's process group when its time is up;
	// SIGKILL follows after KillAfter.
	Signal    syscall.Signal
	KillAfter time.Duration

	// IdempotencyKey is given to every attempt as RETRY_IDEMPOTENCY_KEY.
	IdempotencyKey string

	// Hook, when set, is run before each retry (after the wait), with
	// RETRY_ATTEMPT (the attempt about to run), RETRY_LAST_EXIT and
	// RETRY_LAST_CLASS in its environment, no stdin, and its output on
	// Stderr. Its failure is reported; it stops the run only with
	// HookMustSucceed.
	Hook            []string
	HookMustSucceed bool

	// Gate, when set, is told every attempt's outcome and asked before
	// every retry: the circuit breaker and the retry budgets.
	Gate Gate

	// Starter starts each attempt; nil means Exec.
	Starter Starter
	// Attach, when set, is called with each started attempt so signals
	// can be forwarded to it; the returned function detaches it.
	Attach func(Process) (detach func())
	// Observe, when set, receives every Event as it happens.
	Observe func(Event)
}

// Gate is consulted around attempts by something that sees more than one
// run, such as a circuit breaker.
type Gate interface {
	// Allow is asked before retry number next (from 2), once the schedule
	// (Config.Policy) has decided to retry and before its wait; an error refuses it,
	// stops the run (Refused) and says why.
	Allow(ctx context.Context, next int) error
	// Admit is asked just before attempt number n (from 1) starts, after
	// any wait. It may wait itself (for a circuit to close, say), ending
	// at once when ctx ends, and must not wait past deadline (zero when
	// there is none). An error refuses the attempt and stops the run:
	// Cancelled if ctx has ended, else Refused.
	Admit(ctx context.Context, n int, deadline time.Time) error
	// Done is told how each attempt ended.
	Done(ctx context.Context, o Attempt)
}

// Stop says why a run ended.
type Stop int

const (
	// Succeeded means an attempt exited 0.
	Succeeded Stop = iota + 1
	// Exhausted means the last allowed attempt failed.
	Exhausted
	// Deadline means the deadline stopped a running attempt, or the next
	// wait would have ended at or after it.
	Deadline
	// HintPastDeadline means the wait the command asked for would have
	// ended at or after the deadline.
	HintPastDeadline
	// HintTooLong means the wait the command asked for is longer than the
	// schedule allows (--retry-after-max).
	HintTooLong
	// Terminal means an attempt failed in a way that retrying cannot fix.
	Terminal
	// Cancelled means a signal stopped the run.
	Cancelled
	// DownstreamClosed means the reader of our stdout went away (a closed
	// pipe): retrying cannot help.
	DownstreamClosed
	// HookFailed means the --on-retry hook failed and had to succeed.
	HookFailed
	// Refused means the Gate refused a retry (Result.Refusal says why).
	Refused
	// StdinUnreplayable means a retry was due but stdin could no longer be
	// replayed to it whole (Result.StdinLost says why).
	StdinUnreplayable
	// StdoutNotHeld means a retry was due but the failed attempt's stdout,
	// which StdoutBuffer could not hold (Attempt.Unheld says why), went
	// downstream as it came: a retry's output would follow it.
	StdoutNotHeld
	// StdinReadFailed means an attempt succeeded on a cut input: reading
	// stdin failed after it had read all that came before, so it was
	// handed the end of its input there (Result.StdinLost says why). Its
	// success is not the command's on the whole input, as the command
	// would have seen the error itself.
	StdinReadFailed
)

// String returns the stop reason's name as used in reports.
func (s Stop) String() string {
	switch s {
	case Succeeded:
		return "success"
	case Exhausted:
		return "exhausted"
	case Deadline:
		return "deadline"
	case HintPastDeadline:
		return "retry-after-past-deadline"
	case HintTooLong:
		return "retry-after-too-long"
	case Terminal:
		return "terminal"
	case Cancelled:
		return "cancelled"
	case DownstreamClosed:
		return "downstream-closed"
	case HookFailed:
		return "hook-failed"
	case Refused:
		return "refused"
	case StdinUnreplayable:
		return "stdin-unreplayable"
	case StdoutNotHeld:
		return "stdout-not-held"
	case StdinReadFailed:
		return "stdin-read-failed"
	}
	return "stop(" + strconv.Itoa(int(s)) + ")"
}

// Attempt is one attempt of a run: how it ended, how it was judged, and
// what followed.
type Attempt struct {
	// N is the attempt's number, from 1.
	N        int
	Start    time.Time
	Duration time.Duration
	Exit     exitcodes.Exit
	Verdict  exitcodes.Verdict
	// Err says why the attempt could not be started, if it was not.
	Err error
	// DeadlineHit is set when the deadline (not --timeout) stopped it.
	DeadlineHit bool
	// Limit is the time limit it ran under.
	Limit Limit
	// Stdout is the attempt's held output with StdoutBuffer; it is valid
	// only while its AttemptEnded event is being observed.
	Stdout Captured
	// Unheld is why StdoutBuffer could not hold the attempt's output (its
	// temporary file could not be created or written); the output then
	// went to Stdout as it came, whole, and Stdout above is nil.
	Unheld error
	// DownstreamGone is set when the reader of our stdout went away.
	DownstreamGone bool
	// StdoutWritten and StderrWritten count what the attempt wrote to our
	// stdout and stderr: what went downstream, and what a retry's output
	// will follow.
	StdoutWritten, StderrWritten Written
	// Unmatched counts output bytes not scanned because matching fell
	// behind a fast writer (the newest output is always scanned).
	Unmatched int64
	// Stopped counts the processes a failed, timed-out or cancelled
	// attempt left running in its process group, which were stopped when
	// it ended; -1 when there were some but the system cannot count them.
	// What a successful attempt leaves running is left alone.
	Stopped int
	// StderrMidLine is set when the attempt's stderr, copied by retry
	// (see NewScan and WatchStderr), ended without a line feed, so the
	// next line written to Stderr would be glued to it. It is never set
	// when the child wrote to Stderr itself: retry does not see those
	// bytes.
	StderrMidLine bool
	// Next is the schedule's decision after a transient failure: the wait
	// before the next attempt, or why there is none.
	Next policy.Decision
}

// Written is how many bytes an attempt wrote to one of our output streams.
// It is counted without a copy when the stream is a regular file (by its
// offset, or its size when it is open for appending: writes by anyone else
// to the file during the attempt count too), through the copy retry makes
// anyway (scanning, StdoutBuffer), or through a copy made for it when
// stdout is a pipe or socket and a retry may follow. Otherwise it is not
// known: a terminal, a character device, a pipe or socket handed over as
// it is.
type Written struct {
	// Bytes is the count, 0 when not Known.
	Bytes int64
	// Known is false when the count could not be had without a copy
	// that was not made, or when a file was truncated or rewound.
	Known bool
	// Held is set when the bytes were held (StdoutBuffer), not passed on
	// as they came.
	Held bool
	// WithStderr is set on stdout's count when stderr went to the same
	// file or pipe and is counted in it (`> out 2>&1`, `2>&1 |`); stderr's
	// own count is then not known.
	WithStderr bool
}

// Result is the whole run.
type Result struct {
	Start    time.Time
	Elapsed  time.Duration
	Attempts []Attempt
	Stop     Stop
	// Refusal is why the Gate refused a retry, when Stop is Refused.
	Refusal error
	// StdinLost is why stdin could not be replayed, when Stop is
	// StdinUnreplayable or StdinReadFailed.
	StdinLost *StdinLost
}

// Last returns the last attempt made, or the zero Attempt if none was.
func (r Result) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// Event is something that happened during a run: *AttemptStarted,
// *AttemptEnded, *HookStarted, *HookEnded or *Finished.
type Event interface{ event() }

// AttemptStarted is sent just before an attempt's process starts.
type AttemptStarted struct {
	Attempt int
	// Max is the attempt limit, 0 when there is none.
	Max  int
	Time time.Time
}

// AttemptEnded is sent when an attempt has ended and been judged, with
// the decision on what follows (Attempt.Next), before any wait.
type AttemptEnded struct {
	Attempt Attempt
	Max     int
	// Final is set when no further attempt will be made.
	Final bool
}

// HookStarted is sent just before the --on-retry hook starts, after the
// wait, before Attempt. The hook writes to the run's stderr, so a renderer
// holding a line there (a countdown) clears it now.
type HookStarted struct {
	Attempt int
}

// HookEnded is sent when the --on-retry hook has run before Attempt.
type HookEnded struct {
	Attempt int
	Exit    exitcodes.Exit
	// Err says why the hook could not be started, if it was not.
	Err error
}

// Failed reports whether the hook did not succeed.
func (h *HookEnded) Failed() bool { return h.Err != nil || h.Exit.Code != 0 || h.Exit.TimedOut }

// Finished is sent once, when the run is over.
type Finished struct{ Result Result }

func (*AttemptStarted) event() {}
func (*AttemptEnded) event()   {}
func (*HookStarted) event()    {}
func (*HookEnded) event()      {}
func (*Finished) event()       {}

// Run runs cfg.Args until an attempt succeeds, fails terminally, the
// attempts or the deadline run out, or ctx is cancelled. Cancelling ctx ends
// a wait at once and starts no further attempt; the attempt in progress is
// left to the signal forwarded to it (see Config.Attach) and is killed if it
// is still running KillAfter later.
func Run(ctx context.Context, cfg Config) Result {
	r := &run{cfg: cfg, start: time.Now(), ours: newPidSet()}
	if r.cfg.Classify == nil {
		r.cfg.Classify = func(e exitcodes.Exit, _ LineScanner) exitcodes.Verdict { return exitcodes.Classify(e) }
	}
	if r.cfg.Starter == nil {
		r.cfg.Starter = Exec{}
	}
	defer reapOrphans(r.ours.has)()
	steptrace.Mark("reaper")
	input := cfg.Input
	if input == nil {
		input = NewInput(cfg, false)
		defer input.Close()
	}
	r.stdin = input
	steptrace.Mark("stdin")
	res := r.loop(ctx)
	res.Start = r.start
	res.Elapsed = time.Since(r.start)
	r.emit(&Finished{Result: res})
	return res
}

type run struct {
	cfg   Config
	start time.Time
	stdin stdinSource
	// ours holds the pids of the processes this run started and has not
	// yet waited for, which no orphan reaping may take.
	ours *pidSet
	// step is the schedule's place after the last failure (see
	// policy.Input.Step): it starts over when an attempt ran long enough.
	step int
	// last is the attempt made before the one running.
	last Attempt
}

func (r *run) emit(e Event) {
	if r.cfg.Observe != nil {
		r.cfg.Observe(e)
	}
}

func (r *run) loop(ctx context.Context) Result {
	var res Result
	max := r.cfg.Policy.Attempts
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			res.Stop = Cancelled
			return res
		}
		if d := r.cfg.Policy.Deadline; d > 0 && time.Since(r.start) >= d {
			res.Stop = Deadline // a hook or a slow start used the last of it
			return res
		}
		if r.cfg.Gate != nil {
			var deadline time.Time
			if d := r.cfg.Policy.Deadline; d > 0 {
				deadline = r.start.Add(d)
			}
			if err := r.cfg.Gate.Admit(ctx, n, deadline); err != nil {
				if ctx.Err() != nil {
					res.Stop = Cancelled
				} else {
					res.Stop, res.Refusal = Refused, err
				}
				return res
			}
		}
		out, scan, pipes := r.attempt(ctx, n)
		captured := pipes.held()
		stop := r.judge(ctx, &out, scan)
		// Checked before the Gate, so a refused retry takes no token
		// from a budget.
		switch lost := r.stdin.unreplayable(); {
		case stop == Succeeded && lost != nil && lost.Cut:
			stop, res.StdinLost = StdinReadFailed, lost
		case stop != 0:
		case lost != nil:
			stop, res.StdinLost = StdinUnreplayable, lost
			out.Next = policy.Decision{}
		case out.Unheld != nil:
			stop, out.Next = StdoutNotHeld, policy.Decision{}
		}
		if r.cfg.Gate != nil {
			r.cfg.Gate.Done(ctx, out)
			if stop == 0 {
				if err := r.cfg.Gate.Allow(ctx, n+1); err != nil {
					stop, res.Refusal = Refused, err
					out.Next = policy.Decision{}
				}
			}
		}
		if captured != nil {
			out.Stdout = captured
		}
		r.emit(&AttemptEnded{Attempt: out, Max: max, Final: stop != 0})
		if captured != nil {
			captured.Close()
			out.Stdout = nil
		}
		// After the held output, so that what a process left running
		// writes later follows it.
		pipes.handOff()
		res.Attempts = append(res.Attempts, out)
		r.last = out
		if stop != 0 {
			res.Stop = stop
			return res
		}
		if !wait(ctx, out.Next.Wait) {
			res.Stop = Cancelled
			return res
		}
		if len(r.cfg.Hook) > 0 && r.hook(ctx, n+1, out) && r.cfg.HookMustSucceed {
			res.Stop = HookFailed
			return res
		}
	}
}

// judge classifies the attempt, asks the schedule what follows a transient
// failure, and returns why the run stops, or 0 to go on.
func (r *run) judge(ctx context.Context, out *Attempt, scan LineScanner) Stop {
	out.Verdict = r.cfg.Classify(out.Exit, scan)
	switch {
	case out.Verdict.Class == exitcodes.Success:
		return Succeeded
	case ctx.Err() != nil:
		return Cancelled
	case out.DownstreamGone:
		return DownstreamClosed
	case out.DeadlineHit:
		return Deadline
	case out.Verdict.Class == exitcodes.Terminal:
		return Terminal
	}
	out.Next = r.cfg.Policy.Next(policy.Input{
		Attempt:   out.N,
		Elapsed:   time.Since(r.start),
		Hint:      out.Verdict.Hint,
		HasHint:   out.Verdict.HasHint,
		Ran:       out.Duration,
		Step:      r.step + 1,
		Throttled: out.Verdict.Throttled,
	}, r.cfg.Rand)
	r.step = out.Next.Step
	switch out.Next.Stop {
	case policy.Exhausted:
		return Exhausted
	case policy.WaitPastDeadline:
		return Deadline
	case policy.HintPastDeadline:
		return HintPastDeadline
	case policy.HintTooLong:
		return HintTooLong
	}
	return 0
}

// attempt runs attempt n to its end and reports how it ended, with the
// scanner that saw its output and its plumbing (nil when it could not be
// set up), which holds its stdout with StdoutBuffer.
func (r *run) attempt(ctx context.Context, n int) (Attempt, LineScanner, *attemptIO) {
	out := Attempt{N: n, Start: time.Now()}
	out.Limit = r.attemptLimit(n)
	r.emit(&AttemptStarted{Attempt: n, Max: r.cfg.Policy.Attempts, Time: out.Start})
	var scan LineScanner
	if r.cfg.NewScan != nil {
		scan = r.cfg.NewScan()
	}
	last := r.cfg.Policy.Attempts > 0 && n >= r.cfg.Policy.Attempts
	pipes, err := r.openIO(scan, last)
	steptrace.Mark("io")
	if err != nil {
		out.Err = err
		out.Exit = exitcodes.Exit{Start: exitcodes.StartFailed, Code: exitcodes.Usage}
		out.Duration = time.Since(out.Start)
		return out, scan, nil
	}
	ended, deadlineHit, err := r.execute(ctx, Command{
		Args:      r.cfg.Args,
		Env:       r.env(n),
		Dir:       r.cfg.Dir,
		Stdin:     pipes.stdin,
		Stdout:    pipes.stdout,
		Stderr:    pipes.stderr,
		Signal:    r.cfg.Signal,
		KillAfter: r.cfg.KillAfter,
	}, out.Limit.D, out.Limit.From == LimitDeadline, pipes.started)
	out.Exit, out.DeadlineHit, out.Err, out.Stopped = ended.Exit, deadlineHit, err, ended.Stopped
	out.DownstreamGone, out.Unmatched = pipes.finish(ended.LeftAlone)
	out.Unheld = pipes.unheld()
	out.StdoutWritten, out.StderrWritten = pipes.written()
	out.StderrMidLine = pipes.stderrMidLine()
	out.DownstreamGone = out.DownstreamGone || readerGone(r.cfg.Stdout)
	out.Duration = time.Since(out.Start)
	return out, scan, pipes
}

// execute starts c and supervises it to its end. started is called once
// the process is running. A program that cannot be started is reported in
// the Exit (126, 127, or 125 for other failures) and the error.
func (r *run) execute(ctx context.Context, c Command, limit time.Duration, byDeadline bool, started func()) (Ended, bool, error) {
	steptrace.Mark("start")
	p, err := r.cfg.Starter.Start(ctx, c)
	steptrace.Mark("started")
	started()
	if err != nil {
		exit := exitcodes.Exit{Start: exitcodes.StartFailed, Code: exitcodes.Usage}
		var se *StartError
		if errors.As(err, &se) {
			exit.Start = se.Kind
			switch se.Kind {
			case exitcodes.ProgramMissing:
				exit.Code = exitcodes.NotFound
			case exitcodes.ProgramNotExecutable:
				exit.Code = exitcodes.NotExecutable
			}
		}
		return Ended{Exit: exit}, false, err
	}
	if pid, ok := pidOf(p); ok {
		r.ours.add(pid)
		defer r.ours.remove(pid)
	}
	if r.cfg.Attach != nil {
		detach := r.cfg.Attach(p)
		defer detach()
	}
	ended, deadlineHit := r.supervise(ctx, p, limit, byDeadline)
	steptrace.Mark("waited")
	return ended, deadlineHit, nil
}

// RunOnce runs args once outside the retry loop, such as a fallback: with
// cfg's environment, directory, stdout and stderr, no stdin, in its own
// process group with cfg.Attach forwarding signals, and no time limit.
func RunOnce(ctx context.Context, cfg Config, args []string) (exitcodes.Exit, error) {
	r := &run{cfg: cfg, start: time.Now(), ours: newPidSet()}
	if r.cfg.Starter == nil {
		r.cfg.Starter = Exec{}
	}
	defer reapOrphans(r.ours.has)()
	stdin, done, err := cfg.Input.forLast()
	if err != nil {
		return exitcodes.Exit{}, err
	}
	defer done()
	ended, _, err := r.execute(ctx, Command{
		Args:      args,
		Env:       cfg.Env,
		Dir:       cfg.Dir,
		Stdin:     stdin,
		Stdout:    cfg.Stdout,
		Stderr:    cfg.Stderr,
		Signal:    cfg.Signal,
		KillAfter: cfg.KillAfter,
	}, 0, false, func() {})
	return ended.Exit, err
}

// hook runs the --on-retry hook before attempt next and reports whether it
// failed.
func (r *run) hook(ctx context.Context, next int, last Attempt) bool {
	limit, byDeadline := r.limit()
	env := append(r.env(next),
		"RETRY_LAST_EXIT="+strconv.Itoa(last.Exit.Code),
		"RETRY_LAST_CLASS="+last.Verdict.Class.String())
	r.emit(&HookStarted{Attempt: next})
	ended, _, err := r.execute(ctx, Command{
		Args:      r.cfg.Hook,
		Env:       env,
		Dir:       r.cfg.Dir,
		Stdout:    r.cfg.Stderr,
		Stderr:    r.cfg.Stderr,
		Signal:    r.cfg.Signal,
		KillAfter: r.cfg.KillAfter,
	}, limit, byDeadline, func() {})
	e := &HookEnded{Attempt: next, Exit: ended.Exit, Err: err}
	r.emit(e)
	return e.Failed()
}

// supervise waits for p while enforcing its time limit (0 for none): when
// time is up, or ctx is cancelled, it sends the stop signal (cancellation
// has already forwarded one) and SIGKILL KillAfter later. A cancel counts
// until p has exited: then a success leaves its process group alone.
func (r *run) supervise(ctx context.Context, p Process, limit time.Duration, byDeadline bool) (ended Ended, deadlineHit bool) {
	done := make(chan Ended, 1)
	go func() { done <- p.Wait(func() bool { return ctx.Err() != nil }) }()

	var timeUp, kill <-chan time.Time
	if limit > 0 || byDeadline {
		t := time.NewTimer(limit)
		defer t.Stop()
		timeUp = t.C
	}
	cancelled := ctx.Done()
	timedOut := false
	var grace *time.Timer
	defer func() {
		if grace != nil {
			grace.Stop()
		}
	}()
	startGrace := func() {
		if grace == nil {
			grace = time.NewTimer(r.cfg.KillAfter)
			kill = grace.C
		}
	}
	for {
		select {
		case e := <-done:
			e.Exit.TimedOut = e.Exit.TimedOut || timedOut
			if timedOut {
				e.Exit.Limit = limit
			}
			return e, timedOut && byDeadline
		case <-timeUp:
			timeUp = nil
			if errors.Is(p.Signal(r.cfg.Signal), errLeftAlone) {
				continue // it succeeded just in time: done is on its way
			}
			timedOut = true
			startGrace()
		case <-cancelled:
			cancelled = nil
			startGrace()
		case <-kill:
			kill = nil
			_ = p.Signal(syscall.SIGKILL)
		}
	}
}

// wait waits d, or less if ctx is cancelled first; it reports whether the
// whole wait passed.
func wait(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Variables set in every attempt's environment.
const (
	EnvAttempt        = "RETRY_ATTEMPT"
	EnvMaxAttempts    = "RETRY_MAX_ATTEMPTS"
	EnvIdempotencyKey = "RETRY_IDEMPOTENCY_KEY"
	EnvDeadlineMS     = "RETRY_DEADLINE_MS"
)

// env is the child's environment for attempt n: the base environment with
// the RETRY_* variables set (replacing any inherited ones).
func (r *run) env(n int) []string {
	ours := []string{
		EnvAttempt + "=" + strconv.Itoa(n),
		EnvMaxAttempts + "=" + strconv.Itoa(r.cfg.Policy.Attempts),
		EnvIdempotencyKey + "=" + r.cfg.IdempotencyKey,
	}
	if r.cfg.Policy.Deadline > 0 {
		left := r.cfg.Policy.Deadline - time.Since(r.start)
		ours = append(ours, EnvDeadlineMS+"="+strconv.FormatInt(max(left, 0).Milliseconds(), 10))
	}
	env := make([]string, 0, len(r.cfg.Env)+len(ours))
	for _, kv := range r.cfg.Env {
		if !isOurs(kv) {
			env = append(env, kv)
		}
	}
	return append(env, ours...)
}

// isOurs reports whether kv sets one of the variables retry sets itself.
// It is asked of every variable before every attempt, so it compares the
// name as it stands rather than build each name+"=".
func isOurs(kv string) bool {
	name, _, ok := strings.Cut(kv, "=")
	if !ok {
		return false
	}
	switch name {
	case EnvAttempt, EnvMaxAttempts, EnvIdempotencyKey, EnvDeadlineMS:
		return true
	}
	return false
}
