// Package exitcodes classifies how one attempt ended (transient, terminal or
// success) and names retry's own process exit codes; cmd settles which one
// a run ends with.
//
// It is pure: values in, values out, no I/O, so every rule is tested
// exhaustively.
//
// # Precedence
//
// A Classifier judges an attempt from its Exit and from what a Scan saw in
// its output, in this order; the first step that decides wins:
//
//  1. Exit 0 is success. Patterns only classify failures: a line that
//     matches --stop-if or --retry-if never turns a success into a failure.
//  2. A program that could not start (not found, 127; not executable,
//     126; from the runner or reported by a shell) is terminal, unless the
//     user lists that code by itself in --retry-on-exit ("127", not a
//     range that happens to cover it): a typo in a command name never
//     heals, but a program that appears later, such as one installed by a
//     concurrent job, can be waited for on purpose.
//  3. A process killed by SIGPIPE (or exiting 141) is terminal: the reader
//     went away, and no rule can bring it back.
//  4. The user's stop rules: --stop-on-exit, then --stop-if.
//  5. The user's retry rules: --retry-on-exit, then --retry-if.
//  6. A timeout (the attempt hit --timeout) is transient, even with an
//     allow-list (step 7): the user asked retry to cut hung attempts short
//     so that they are tried again. Put timeout in --stop-on-exit to stop.
//  7. The allow-list: when the user gives any retry rule (--retry-on-exit
//     or --retry-if), a failure that no user rule matched is terminal.
//  8. The presets, for a process that exited by itself (a death by signal
//     is left to the default table). Within a preset, its rules are tried
//     in order and the first that holds decides, so a preset lists its
//     exceptions before its general rules; across presets, terminal beats
//     transient.
//  9. The cross-tool signatures (Config.Signatures), for a process that
//     exited by itself with a code the default table would call transient
//     for no named reason (not a sysexits code, nor a shell's 128+n): messages that mean the same whatever printed
//     them, such as "HTTP 404" or "connection refused". A transient
//     signature beats a terminal one unless the terminal one is sure
//     (certificates, credentials, missing modules), and an explicit "try
//     again later" beats even those; the terminal ones are not sought on
//     a line that goes on to say what the program does about a missing
//     thing ("was not found. Fetching box"); where a runtime
//     reported the error that ended the program (a traceback's last
//     exception), the output from there on is judged first.
//  10. The default table, Classify.
//
// So stop rules beat retry rules, the user's rules beat presets, presets
// beat the signatures, and the signatures beat the defaults.
//
// A transient verdict carries the last wait the output asked for, if any:
// from the user's --retry-after patterns first, then from the presets'
// built-in ones (Retry-After, x-amz-retry-after, grpc-retry-pushback-ms).
package exitcodes

import (
	"fmt"
	"regexp"
	"syscall"
	"time"
)

// Class is the judgement on one attempt.
type Class int

const (
	// Success means the attempt exited 0.
	Success Class = iota + 1
	// Transient means the failure may pass, so a retry may help.
	Transient
	// Terminal means the failure will not pass by itself: never retried.
	Terminal
)

// String returns "success", "transient" or "terminal".
func (c Class) String() string {
	switch c {
	case Success:
		return "success"
	case Transient:
		return "transient"
	case Terminal:
		return "terminal"
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// Start says why an attempt could not be started, if it was not.
type Start int

const (
	// Started means the process ran (the zero value).
	Started Start = iota
	// ProgramMissing means the program does not exist (exit 127).
	ProgramMissing
	// ProgramNotExecutable means the program exists but cannot be
	// executed (exit 126).
	ProgramNotExecutable
	// StartFailed means the system could not start the process for another
	// reason, such as a fork limit (exit 125, like retry's own errors).
	StartFailed
)

// Exit is how one attempt ended.
type Exit struct {
	// Code is the exit status as a shell reports it: 128+n when the process
	// was killed by signal n, 126 or 127 when it could not be started.
	Code int
	// Signal is the signal that killed the process, or 0.
	Signal syscall.Signal
	// TimedOut is set when retry stopped the attempt at its time limit
	// (--timeout, or the deadline).
	TimedOut bool
	// Limit is the time limit that ran out, when TimedOut: the
	// --timeout, or the time that was left before the deadline.
	Limit time.Duration
	// Start is set when the process could not be started.
	Start Start
}

// Signaled returns the Exit of a process killed by sig.
func Signaled(sig syscall.Signal) Exit {
	return Exit{Code: 128 + int(sig), Signal: sig}
}

// String describes the ending for people: "exit 7", "killed by SIGKILL",
// "timed out after 10s", "command not found".
func (e Exit) String() string {
	switch {
	case e.Start == ProgramMissing:
		return "command not found"
	case e.Start == ProgramNotExecutable:
		return "command not executable"
	case e.Start == StartFailed:
		return "command could not be started"
	case e.TimedOut && e.Limit > 0:
		limit := e.Limit
		if limit >= time.Millisecond {
			limit = limit.Round(time.Millisecond) // the time left before a deadline is not round
		}
		return "timed out after " + limit.String()
	case e.TimedOut:
		return "timed out"
	case e.Signal != 0:
		return fmt.Sprintf("killed by %s", SignalName(e.Signal))
	}
	return fmt.Sprintf("exit %d", e.Code)
}

// Verdict is a Class together with the rule that decided it, the wait the
// command asked for and the output lines that decided it.
type Verdict struct {
	Class Class
	// Rule names what decided the class, for people: "sysexits EX_USAGE",
	// "a crash", `curl preset, "returned error: 503"`, `--retry-if
	// "timeout"`, "--stop-on-exit 2". It is empty for the plain defaults:
	// timeouts and any other non-zero exit or signal are transient.
	Rule string
	// Hint is the wait the output asked for (a Retry-After value), when
	// HasHint is set; only a transient verdict carries one.
	Hint    time.Duration
	HasHint bool
	// Lines are the last output lines (at most MaxLines, each at most
	// MaxLineChars characters) that matched the deciding rule's patterns,
	// oldest first; empty when no pattern decided.
	Lines []string
	// Throttled is set on a transient verdict whose deciding lines say the
	// server asked callers to slow down (HTTP 429, a rate limit,
	// throttling) and gave no Retry-After: see Throttled.
	Throttled bool
}

// Throttled reports whether one of lines says that a server is shedding
// load and asks its callers to slow down: HTTP 429 or "too many
// requests", a rate limit, throttling, "slow down", a quota exceeded. The
// pattern is compiled only when there are lines: for a transient failure
// decided by output lines, never at start.
func Throttled(lines []string) bool {
	if len(lines) == 0 {
		return false // decided by the exit status alone: nothing to compile
	}
	re := regexp.MustCompile(`(?i)\b429\b|too many requests|rate[ _-]?limit|throttl|\bslow ?down\b|quota exceeded|requestlimitexceeded`)
	for _, l := range lines {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// Classify applies the default table to e: exit 0 succeeds; not found,
// not executable, the sysexits usage-type codes, an interrupt and crash
// signals are terminal; timeouts, EX_TEMPFAIL and every other failure are
// transient. docs/exit-codes.md holds the same table.
func Classify(e Exit) Verdict {
	switch {
	case e.Start == ProgramMissing:
		return Verdict{Class: Terminal, Rule: "not found"}
	case e.Start == ProgramNotExecutable:
		return Verdict{Class: Terminal, Rule: "not executable"}
	case e.Start == StartFailed:
		return Verdict{Class: Transient, Rule: "start failed"}
	case e.TimedOut:
		return Verdict{Class: Transient}
	case e.Signal != 0:
		class, why := classifySignal(e.Signal)
		return Verdict{Class: class, Rule: why}
	case e.Code == 0:
		return Verdict{Class: Success}
	case e.Code > 128 && e.Code < 128+65:
		// A shell reports a child killed by signal n as 128+n: judge the
		// signal, so `sh -c 'prog; exit $?'` is classified like prog.
		sig := syscall.Signal(e.Code - 128)
		if class, why := classifySignal(sig); class == Terminal {
			return Verdict{Class: Terminal, Rule: "128+" + SignalName(sig) + ", " + why}
		}
	case e.Code == 126:
		return Verdict{Class: Terminal, Rule: "exit 126 means not executable"}
	case e.Code == 127:
		return Verdict{Class: Terminal, Rule: "exit 127 means not found"}
	}
	if name, terminal := sysexit(e.Code); name != "" {
		if terminal {
			return Verdict{Class: Terminal, Rule: "sysexits " + name}
		}
		return Verdict{Class: Transient, Rule: "sysexits " + name}
	}
	return Verdict{Class: Transient}
}

// sysexit names the BSD sysexits.h code and says whether it is terminal.
func sysexit(code int) (name string, terminal bool) {
	switch code {
	case 64:
		return "EX_USAGE", true
	case 65:
		return "EX_DATAERR", true
	case 66:
		return "EX_NOINPUT", true
	case 67:
		return "EX_NOUSER", true
	case 68:
		return "EX_NOHOST", true
	case 70:
		return "EX_SOFTWARE", true
	case 75:
		return "EX_TEMPFAIL", false
	case 76:
		return "EX_PROTOCOL", true
	case 77:
		return "EX_NOPERM", true
	case 78:
		return "EX_CONFIG", true
	}
	return "", false
}

// classifySignal judges a death by sig and says why, for the rule.
func classifySignal(sig syscall.Signal) (Class, string) {
	switch sig {
	case syscall.SIGINT, syscall.SIGQUIT:
		return Terminal, "an interrupt"
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT:
		return Terminal, "a crash"
	case syscall.SIGPIPE:
		return Terminal, "the reader went away"
	}
	return Transient, ""
}
