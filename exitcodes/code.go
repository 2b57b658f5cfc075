package exitcodes

import "syscall"

// retry's own exit codes, beside the command's own codes that it passes on.
const (
	// OK is the exit code of a run whose command succeeded.
	OK = 0
	// TempFail (EX_TEMPFAIL) is used when the circuit breaker is open and
	// no fallback ran.
	TempFail = 75
	// Timeout is used when the deadline stopped a running attempt, or the
	// last attempt hit its --timeout, as timeout(1) does.
	Timeout = 124
	// Usage is used for retry's own usage and internal errors; the command
	// was never run.
	Usage = 125
	// NotExecutable is used when the command exists but cannot be run.
	NotExecutable = 126
	// NotFound is used when the command does not exist.
	NotFound = 127
)

// Summary is what the exit code depends on; cmd fills it from a run's
// result.
type Summary struct {
	// Succeeded is set when an attempt exited 0.
	Succeeded bool
	// Interrupted is the signal that stopped retry itself, or 0.
	Interrupted syscall.Signal
	// DeadlineStopped is set when the deadline stopped a running attempt.
	DeadlineStopped bool
	// BreakerOpen is set when the command was not run because its circuit
	// is open.
	BreakerOpen bool
	// DownstreamClosed is set when the reader of retry's stdout went away
	// (`retry ... | head -1`); retry then ends as a shell pipeline would.
	DownstreamClosed bool
	// Last is how the last attempt ended (zero when none ran).
	Last Exit
	// FallbackRan is set when --fallback ran after retry gave up or found
	// the circuit open; its ending, Fallback, decides the code.
	FallbackRan bool
	Fallback    Exit
}

// Code is the one table from a run's outcome to retry's exit code:
// success 0 (even when a forwarded signal arrived too late to matter);
// stopped by signal n 128+n; the reader of stdout gone 141 (128+SIGPIPE);
// the fallback's own code when one ran; deadline or timeout 124; circuit
// open 75; otherwise the last attempt's own code (126/127 when it could not
// start, 128+n when it was killed by signal n).
func Code(s Summary) int {
	switch {
	case s.Succeeded:
		// The command finished its work, even if a signal arrived after
		// it had been forwarded: nothing is left to report as a failure.
		return OK
	case s.Interrupted != 0:
		return 128 + int(s.Interrupted)
	case s.DownstreamClosed:
		return 128 + int(syscall.SIGPIPE)
	case s.FallbackRan:
		return s.Fallback.Code
	case s.DeadlineStopped, s.Last.TimedOut:
		return Timeout
	case s.BreakerOpen:
		return TempFail
	case s.Last.Start == ProgramMissing:
		return NotFound
	case s.Last.Start == ProgramNotExecutable:
		return NotExecutable
	case s.Last.Start == StartFailed:
		return Usage
	}
	return s.Last.Code
}
