package cmd

import (
	"syscall"

	"retry/exitcodes"
	"retry/report"
	"retry/runner"
)

// runEnd is what decides how a run ended.
type runEnd struct {
	// res is what the runner returned; empty when the circuit refused the
	// run before its first attempt.
	res runner.Result
	// circuitOpen is set when the circuit refused an attempt: the first
	// (nothing ran), or a retry.
	circuitOpen bool
	// interrupted is the signal that stopped retry itself, or 0.
	interrupted syscall.Signal
	// brokenPipe is set when passing held output on to stdout found its
	// reader gone (EPIPE), which the runner does not see; outputLost when
	// it failed otherwise (a full disk, an I/O error).
	brokenPipe, outputLost bool
	// fallback is set when a --fallback command is given; cancelled when
	// the run's context has ended, which rules it out.
	fallback, cancelled bool
	// fellBack is how the --fallback command ended, once it has run.
	fellBack *exitcodes.Exit
}

// ending is how a run ended: its outcome's name in reports, retry's exit
// code, and whether the --fallback command is to run first.
type ending struct {
	outcome report.Outcome
	code    int
	// fallback says to run the --fallback command now and settle again
	// with its exit in runEnd.fellBack; outcome and code are not final.
	fallback bool
}

// settle is the one place that decides how a run ended. The exit code:
// success 0 (even when a forwarded signal arrived too late to matter);
// stopped by signal n 128+n; the reader of stdout gone 141 (128+SIGPIPE);
// a success on a cut input (reading stdin failed) or whose held output
// could not be written 74; the fallback's own code when one ran; deadline
// or timeout 124; circuit open before anything ran 75; otherwise the last
// attempt's own code (126/127 when it could not start, 128+n when it was
// killed by signal n). The fallback runs when retry gave up (neither
// success, nor a signal, nor a reader gone, nor a success whose input was
// cut or whose output was lost) and the run was not cancelled.
func settle(e runEnd) ending {
	res, last := e.res, e.res.Last()
	downstreamClosed := res.Stop == runner.DownstreamClosed || e.brokenPipe
	succeeded := res.Stop == runner.Succeeded && !downstreamClosed && !e.outputLost
	nothingRan := len(res.Attempts) == 0
	outcome := outcomeOf(res.Stop)
	if e.circuitOpen {
		outcome = report.OutcomeBreakerOpen
	}
	// A success on a cut input did its work; it is not trusted, but
	// there is no failure for a fallback to stand in for.
	cut := res.Stop == runner.StdinReadFailed
	gaveUp := !succeeded && e.interrupted == 0 && !downstreamClosed && !cut && !e.outputLost
	if e.fellBack == nil && e.fallback && gaveUp && !e.cancelled {
		return ending{outcome: outcome, fallback: true}
	}
	if e.fellBack != nil {
		outcome = report.OutcomeFallback
	}
	code := last.Exit.Code
	switch {
	case succeeded:
		// The command finished its work, even if a signal arrived after
		// it had been forwarded: nothing is left to report as a failure.
		code = exitcodes.OK
	case e.interrupted != 0:
		code = 128 + int(e.interrupted)
	case downstreamClosed:
		code = 128 + int(syscall.SIGPIPE)
	case cut, e.outputLost:
		code = exitcodes.IOErr
	case e.fellBack != nil:
		code = e.fellBack.Code
	// The deadline cut the last attempt short, or passed before the
	// first one could start (nothing ran: no code of the command's).
	case res.Stop == runner.Deadline && (last.DeadlineHit || nothingRan), last.Exit.TimedOut:
		code = exitcodes.Timeout
	// Refused at once, or gave up waiting for the circuit before any
	// attempt ran.
	case e.circuitOpen && nothingRan:
		code = exitcodes.TempFail
	case last.Exit.Start == exitcodes.ProgramMissing:
		code = exitcodes.NotFound
	case last.Exit.Start == exitcodes.ProgramNotExecutable:
		code = exitcodes.NotExecutable
	case last.Exit.Start == exitcodes.StartFailed:
		code = exitcodes.Usage
	}
	return ending{outcome: outcome, code: code}
}

// outcomeOf names the ending of a run that the runner stopped for s. A
// Retry-After hint that would pass the deadline counts as a deadline. A
// stop reason it does not know is named by its String.
func outcomeOf(s runner.Stop) report.Outcome {
	switch s {
	case runner.Succeeded:
		return report.OutcomeSuccess
	case runner.Exhausted, runner.Refused:
		// A spent retry budget ends the retries as running out of
		// attempts does; a circuit that opened is named by settle.
		return report.OutcomeExhausted
	case runner.Deadline, runner.HintPastDeadline, runner.HintTooLong:
		return report.OutcomeDeadline
	case runner.Terminal, runner.HookFailed:
		return report.OutcomeTerminal
	case runner.Cancelled, runner.DownstreamClosed:
		return report.OutcomeCancelled
	case runner.StdinUnreplayable:
		return report.OutcomeStdinUnreplayable
	case runner.StdinReadFailed:
		return report.OutcomeStdinReadFailed
	case runner.StdoutNotHeld:
		return report.OutcomeStdoutNotHeld
	}
	return report.Outcome(s.String())
}
