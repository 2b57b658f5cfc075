package report

import (
	"errors"
	"syscall"
	"time"

	"retry/exitcodes"
	"retry/policy"
	"retry/runner"
)

// scriptedStart is when the scripted run starts, in a zone other than UTC
// so the tests see every time converted.
func scriptedStart() time.Time {
	return time.Date(2026, 1, 2, 4, 4, 5, 678_000_000, time.FixedZone("CET", 3600))
}

const scriptedArgv0 = "curl"

func scriptedArgv() []string {
	return []string{scriptedArgv0, "-fsS", "https://user:secret@example.com/health"}
}

// scriptedRun is one run of five attempts, each ending differently, built
// from literal values with fixed times: exit 7 then a fast wait; a timeout
// then a fast wait; EX_TEMPFAIL with a 5s Retry-After; a SIGKILL then a slow
// wait; exit 7 again, and the attempts are exhausted. The first attempt
// writes nothing to stdout, the second and later ones do (said once), and
// the last one's stdout is not counted (a pipe handed over as it is).
func scriptedRun() (events []runner.Event, end Ending) {
	type step struct {
		exit        exitcodes.Exit
		verdict     exitcodes.Verdict
		took        time.Duration
		next        policy.Decision
		stdout, err runner.Written
	}
	transient := exitcodes.Verdict{Class: exitcodes.Transient}
	wrote := func(n int64) runner.Written { return runner.Written{Bytes: n, Known: true} }
	steps := []step{
		{exitcodes.Exit{Code: 7}, transient, 1234 * time.Millisecond,
			policy.Decision{Retry: true, Wait: 43 * time.Millisecond, Phase: policy.Fast, Bound: 50 * time.Millisecond},
			wrote(0), wrote(48)},
		{exitcodes.Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true}, transient, 2 * time.Second,
			policy.Decision{Retry: true, Wait: 87 * time.Millisecond, Phase: policy.Fast, Bound: 100 * time.Millisecond},
			wrote(1536), wrote(0)},
		{exitcodes.Exit{Code: 75}, exitcodes.Verdict{Class: exitcodes.Transient, Rule: "sysexits EX_TEMPFAIL"}, 500 * time.Millisecond,
			policy.Decision{Retry: true, Wait: 5 * time.Second, Phase: policy.Hint, Bound: 5 * time.Second},
			wrote(2048), wrote(60)},
		{exitcodes.Signaled(syscall.SIGKILL), transient, 250 * time.Millisecond,
			policy.Decision{Retry: true, Wait: 1500 * time.Millisecond, Phase: policy.Slow, Bound: 2 * time.Second},
			wrote(2048), wrote(60)},
		{exitcodes.Exit{Code: 7}, transient, 300 * time.Millisecond,
			policy.Decision{Stop: policy.Exhausted},
			runner.Written{}, wrote(48)},
	}
	const max = 5
	t0 := scriptedStart()
	res := runner.Result{Start: t0}
	at := t0
	for i, s := range steps {
		n := i + 1
		o := runner.Attempt{N: n, Start: at, Duration: s.took, Exit: s.exit, Verdict: s.verdict, Next: s.next,
			StdoutWritten: s.stdout, StderrWritten: s.err}
		o.Limit = runner.Limit{D: 2 * time.Second, From: runner.LimitTimeout} // --timeout 2s
		events = append(events,
			&runner.AttemptStarted{Attempt: n, Max: max, Time: at},
			&runner.AttemptEnded{Attempt: o, Max: max, Final: n == len(steps)})
		res.Attempts = append(res.Attempts, o)
		at = at.Add(s.took + s.next.Wait)
	}
	res.Elapsed = at.Sub(t0) + 2*time.Millisecond // the runner's own time
	res.Stop = runner.Exhausted
	events = append(events, &runner.Finished{Result: res})
	return events, Ending{Result: res, Outcome: OutcomeExhausted, ExitCode: 7}
}

func observeAll(observe func(runner.Event), events []runner.Event) {
	for _, e := range events {
		observe(e)
	}
}

// endings returns one run of each kind, with the outcome and the exit code
// cmd would settle on.
func endings() map[string]Ending {
	t0 := scriptedStart()
	failed := func(n int, start time.Time, next policy.Decision) runner.Attempt {
		return runner.Attempt{N: n, Start: start, Duration: 100 * time.Millisecond,
			Exit: exitcodes.Exit{Code: 7}, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}, Next: next}
	}
	waitFast := policy.Decision{Retry: true, Wait: 40 * time.Millisecond, Phase: policy.Fast, Bound: 50 * time.Millisecond}
	run := func(stop runner.Stop, elapsed time.Duration, attempts ...runner.Attempt) runner.Result {
		return runner.Result{Start: t0, Elapsed: elapsed, Attempts: attempts, Stop: stop}
	}
	_, exhausted := scriptedRun()
	return map[string]Ending{
		"success after a retry": {ExitCode: 0, Outcome: OutcomeSuccess, Result: run(runner.Succeeded, 300*time.Millisecond,
			failed(1, t0, waitFast),
			runner.Attempt{N: 2, Start: t0.Add(140 * time.Millisecond), Duration: 150 * time.Millisecond,
				Verdict: exitcodes.Verdict{Class: exitcodes.Success}})},
		"attempts exhausted": exhausted,
		"the deadline stopped an attempt": {ExitCode: exitcodes.Timeout, Outcome: OutcomeDeadline, Result: run(runner.Deadline, 10*time.Second,
			failed(1, t0, waitFast),
			runner.Attempt{N: 2, Start: t0.Add(140 * time.Millisecond), Duration: 9860 * time.Millisecond,
				Exit:        exitcodes.Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true},
				Verdict:     exitcodes.Verdict{Class: exitcodes.Transient},
				DeadlineHit: true,
				Limit:       runner.Limit{D: 9860 * time.Millisecond, From: runner.LimitDeadline}})},
		"a retry-after hint would pass the deadline": {ExitCode: 75, Outcome: OutcomeDeadline, Result: run(runner.HintPastDeadline, 200*time.Millisecond,
			runner.Attempt{N: 1, Start: t0, Duration: 200 * time.Millisecond, Exit: exitcodes.Exit{Code: 75},
				Verdict: exitcodes.Verdict{Class: exitcodes.Transient, Rule: "sysexits EX_TEMPFAIL"},
				Next:    policy.Decision{Wait: time.Minute, Bound: time.Minute, Phase: policy.Hint, Stop: policy.HintPastDeadline}})},
		"terminal: command not found": {ExitCode: exitcodes.NotFound, Outcome: OutcomeTerminal, Result: run(runner.Terminal, 2*time.Millisecond,
			runner.Attempt{N: 1, Start: t0, Duration: time.Millisecond,
				Exit:    exitcodes.Exit{Code: 127, Start: exitcodes.ProgramMissing},
				Verdict: exitcodes.Verdict{Class: exitcodes.Terminal, Rule: "not found"},
				Err:     &runner.StartError{Program: "curlx", Err: errors.New("executable file not found in $PATH")}})},
		"cancelled during a wait": {ExitCode: 130, Outcome: OutcomeCancelled, Result: run(runner.Cancelled, 1500*time.Millisecond,
			failed(1, t0, policy.Decision{Retry: true, Wait: 3 * time.Second, Phase: policy.Slow, Bound: 4 * time.Second}))},
		"stdin could no longer be replayed": {ExitCode: 7, Outcome: OutcomeStdinUnreplayable, Result: runner.Result{Start: t0, Elapsed: 2 * time.Second,
			Attempts: []runner.Attempt{failed(1, t0, policy.Decision{})}, Stop: runner.StdinUnreplayable,
			StdinLost: &runner.StdinLost{Recorded: 50 << 20, Read: 60 << 20, Whole: true, Max: 50 << 20}}},
		"breaker open, nothing ran": {ExitCode: exitcodes.TempFail, Outcome: OutcomeBreakerOpen,
			Result: runner.Result{Start: t0}},
		"fallback after giving up": {ExitCode: 0, Outcome: OutcomeFallback, Result: exhausted.Result},
	}
}
