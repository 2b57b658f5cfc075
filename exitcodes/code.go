package exitcodes

// retry's own exit codes, beside the command's own codes that it passes on.
// cmd's settle picks among them and those.
const (
	// OK is the exit code of a run whose command succeeded.
	OK = 0
	// IOErr (EX_IOERR) is used when an attempt succeeded on a cut input:
	// reading retry's stdin failed while it read.
	IOErr = 74
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
