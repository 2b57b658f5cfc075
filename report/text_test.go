package report

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"retry/exitcodes"
	"retry/policy"
	"retry/runner"
)

func TestDurationIsShortAndReadable(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0:                        "0s",
		143 * time.Millisecond:   "143ms",
		1500 * time.Microsecond:  "2ms",
		500 * time.Microsecond:   "500µs",
		437211 * time.Nanosecond: "437µs",
		40 * time.Nanosecond:     "40ns",
		2 * time.Second:          "2s",
		2500 * time.Millisecond:  "2.5s",
		12345 * time.Millisecond: "12.35s",
		90 * time.Second:         "1m30s",
	} {
		assert.Equal(t, want, Duration(d), "%v", d)
	}
}

func TestOneLineRemovesLineBreaks(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a b c", OneLine("a\nb\rc"))
}

func TestQuoteMakesArgvPasteable(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `curl -fsS 'a b' '' 'it'\''s' 'https://x/y?z=1' a=b:c@d`,
		Quote([]string{"curl", "-fsS", "a b", "", "it's", "https://x/y?z=1", "a=b:c@d"}))
}

func TestFailureNamesTheEndingTheClassAndTheRule(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "exit 7 (transient)", Failure(runner.Attempt{
		Exit: exitcodes.Exit{Code: 7}, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}}))
	assert.Equal(t, "killed by SIGSEGV (terminal: a crash)", Failure(runner.Attempt{
		Exit: exitcodes.Signaled(syscall.SIGSEGV), Verdict: exitcodes.Classify(exitcodes.Signaled(syscall.SIGSEGV))}))
	assert.Equal(t, `"curlx": executable file not found in $PATH (exit 127, terminal)`, Failure(runner.Attempt{
		Exit:    exitcodes.Exit{Code: 127, Start: exitcodes.ProgramMissing},
		Verdict: exitcodes.Verdict{Class: exitcodes.Terminal, Rule: "not found"},
		Err:     &runner.StartError{Program: "curlx", Err: errors.New("executable file not found in $PATH")},
	}))
}

func TestTextLinesForARetriedRunThatGivesUp(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	tx := &Text{W: &b, Program: "curl", Argv: []string{"curl", "secret"}}
	failed := func(n int, wait time.Duration, phase policy.Phase) runner.Attempt {
		return runner.Attempt{N: n, Exit: exitcodes.Exit{Code: 7},
			Verdict: exitcodes.Verdict{Class: exitcodes.Transient},
			Next:    policy.Decision{Retry: wait > 0, Wait: wait, Phase: phase}}
	}
	o1, o2 := failed(1, 143*time.Millisecond, policy.Fast), failed(2, 0, 0)
	tx.Observe(&runner.AttemptStarted{Attempt: 1, Max: 2})
	tx.Observe(&runner.AttemptEnded{Attempt: o1, Max: 2})
	tx.Observe(&runner.AttemptStarted{Attempt: 2, Max: 2})
	tx.Observe(&runner.AttemptEnded{Attempt: o2, Max: 2, Final: true})
	tx.Observe(&runner.Finished{Result: runner.Result{Attempts: []runner.Attempt{o1, o2}, Stop: runner.Exhausted, Elapsed: 1234 * time.Millisecond}})
	assert.Equal(t, "retry: attempt 1/2 failed: exit 7 (transient); retrying in 143ms (fast phase)\n"+
		"retry: giving up on curl after 2 attempts in 1.23s: attempts exhausted; last error: exit 7 (transient)\n", b.String())
	assert.NotContains(t, b.String(), "secret")
}

func TestSizeIsShortAndReadable(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0:             "0 bytes",
		1:             "1 byte",
		1023:          "1023 bytes",
		1024:          "1 KiB",
		1536:          "1.5 KiB",
		8 << 20:       "8 MiB",
		60<<20 + 123:  "60 MiB",
		1<<30 + 1<<29: "1.5 GiB",
		5 << 40:       "5 TiB",
		1 << 62:       "4 EiB",
	} {
		assert.Equal(t, want, Size(n), "%d", n)
	}
}

func TestGiveUpLineSaysWhyStdinCannotBeReplayedAndWhatToDo(t *testing.T) {
	t.Parallel()
	failed := runner.Attempt{N: 1, Exit: exitcodes.Exit{Code: 3}, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}}
	for _, tc := range []struct {
		name string
		lost *runner.StdinLost
		want string
	}{
		{"past the cap, the whole input read", &runner.StdinLost{Recorded: 50 << 20, Read: 60 << 20, Whole: true, Max: 50 << 20},
			"stdin was 60 MiB, past --stdin-max 50 MiB, and can no longer be replayed: pass a file (< file) or raise --stdin-max"},
		{"past the cap, the input not read to its end", &runner.StdinLost{Recorded: 1 << 20, Read: 3 << 20, Max: 1 << 20},
			"stdin was at least 3 MiB, past --stdin-max 1 MiB, and can no longer be replayed: pass a file (< file) or raise --stdin-max"},
		{"reading stdin failed", &runner.StdinLost{Recorded: 6, Read: 6, ReadErr: &os.PathError{Op: "read", Path: "/dev/stdin", Err: syscall.ECONNRESET}},
			"reading stdin failed after 6 bytes (read /dev/stdin: connection reset by peer), so the input ended there, and it can no longer be replayed"},
		{"the spool could not be written", &runner.StdinLost{Recorded: 8 << 20, Read: 20 << 20, Whole: true,
			Err: &os.PathError{Op: "write", Path: "/tmp", Err: syscall.ENOSPC}},
			"stdin could not be recorded past 8 MiB (write /tmp: no space left on device) and can no longer be replayed: pass a file (< file) or set TMPDIR to a writable directory with room"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			tx := &Text{W: &b, Program: "aws", Quiet: true}
			tx.Observe(&runner.Finished{Result: runner.Result{Attempts: []runner.Attempt{failed}, Stop: runner.StdinUnreplayable,
				StdinLost: tc.lost, Elapsed: 2 * time.Second}})
			assert.Equal(t, "retry: giving up on aws after 1 attempt in 2s: "+tc.want+"; last error: exit 3 (transient)\n", b.String())
		})
	}
}

func TestSuccessOnACutStdinIsSaidEvenWithQuiet(t *testing.T) {
	t.Parallel()
	ok := runner.Attempt{N: 2, Verdict: exitcodes.Verdict{Class: exitcodes.Success}}
	var b strings.Builder
	tx := &Text{W: &b, Program: "psql", Quiet: true}
	tx.Observe(&runner.Finished{Result: runner.Result{Attempts: []runner.Attempt{{N: 1}, ok}, Stop: runner.StdinReadFailed,
		StdinLost: &runner.StdinLost{Read: 3 << 20, ReadErr: &os.PathError{Op: "read", Path: "/dev/stdin", Err: syscall.EIO}, Cut: true}}})
	assert.Equal(t, "retry: psql succeeded on attempt 2, but on a cut input: reading stdin failed after 3 MiB (read /dev/stdin: input/output error), so the input ended there; its result covers only what came before\n", b.String())
}

func TestRepeatsWarnsOnceWhenAFailedAttemptsStdoutWentDownstream(t *testing.T) {
	t.Parallel()
	wrote := func(n int64) runner.Written { return runner.Written{Bytes: n, Known: true} }
	ended := func(n int, w runner.Written, final bool) *runner.AttemptEnded {
		return &runner.AttemptEnded{Attempt: runner.Attempt{N: n, StdoutWritten: w}, Max: 5, Final: final}
	}
	for _, c := range []struct {
		name     string
		terminal bool
		events   []runner.Event
		want     string
	}{
		{"bytes went downstream and a retry follows", false,
			[]runner.Event{ended(1, wrote(8), false), ended(2, wrote(8), false), ended(3, wrote(8), true)},
			"retry: warning: attempt 1 failed after writing 8 bytes to stdout; attempt 2's output will follow them, so the reader gets both; --stdout buffer passes on only the successful attempt's output\n"},
		{"said for the first attempt that wrote, once", false,
			[]runner.Event{ended(1, wrote(0), false), ended(2, wrote(2048), false), ended(3, wrote(1), false)},
			"retry: warning: attempt 2 failed after writing 2 KiB to stdout; attempt 3's output will follow them, so the reader gets both; --stdout buffer passes on only the successful attempt's output\n"},
		{"stderr counted with stdout", false,
			[]runner.Event{ended(1, runner.Written{Bytes: 5, Known: true, WithStderr: true}, false)},
			"retry: warning: attempt 1 failed after writing 5 bytes to stdout and stderr; attempt 2's output will follow them, so the reader gets both; --stdout buffer passes on only the successful attempt's output\n"},
		{"nothing written", false, []runner.Event{ended(1, wrote(0), false)}, ""},
		{"no retry follows", false, []runner.Event{ended(1, wrote(8), true)}, ""},
		{"held by --stdout buffer", false, []runner.Event{ended(1, runner.Written{Bytes: 8, Known: true, Held: true}, false)}, ""},
		{"not counted", false, []runner.Event{ended(1, runner.Written{}, false)}, ""},
		{"stdout is a terminal", true, []runner.Event{ended(1, wrote(8), false)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			r := &Repeats{W: &b, StdoutTerminal: c.terminal}
			for _, e := range c.events {
				r.Observe(e)
			}
			assert.Equal(t, c.want, b.String())
		})
	}
}

func TestTextLeavesAnnotatedEventsToTheAnnotations(t *testing.T) {
	t.Parallel()
	var plain, annotated strings.Builder
	events, _ := scriptedRun()
	observeAll((&Text{W: &plain, Program: "curl"}).Observe, events)
	observeAll((&Text{W: &annotated, Program: "curl", Annotated: true}).Observe, events)
	assert.Contains(t, plain.String(), "retry: attempt 1/")
	assert.Contains(t, plain.String(), "retry: giving up on curl")
	assert.NotContains(t, annotated.String(), "failed:", "a failure that will be retried is a ::warning")
	assert.NotContains(t, annotated.String(), "giving up", "giving up is an ::error")
}

func TestTextSaysAtOnceForAWaitOfZero(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	tx := &Text{W: &b, Program: "curl"}
	tx.Observe(&runner.AttemptEnded{Max: 3, Attempt: runner.Attempt{N: 1, Exit: exitcodes.Exit{Code: 7},
		Verdict: exitcodes.Verdict{Class: exitcodes.Transient},
		Next:    policy.Decision{Retry: true, Phase: policy.Fast}}})
	assert.Equal(t, "retry: attempt 1/3 failed: exit 7 (transient); retrying at once (fast phase)\n", b.String(),
		"full jitter drew a wait of 0: not \"retrying in 0s\"")
}
