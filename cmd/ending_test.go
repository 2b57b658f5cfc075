package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/exitcodes"
	"retry/report"
	"retry/runner"
)

func TestSettleDecidesOutcomeExitCodeAndFallback(t *testing.T) {
	t.Parallel()
	// ran is a run the runner stopped for stop, whose last attempt ended
	// as exit (with the deadline hitting it when hit is set).
	ran := func(stop runner.Stop, exit exitcodes.Exit, hit bool) runner.Result {
		return runner.Result{Stop: stop, Attempts: []runner.Attempt{{N: 1, Exit: exitcodes.Exit{Code: 1}}, {N: 2, Exit: exit, DeadlineHit: hit}}}
	}
	failed := ran(runner.Exhausted, exitcodes.Exit{Code: 7}, false)
	succeeded := ran(runner.Succeeded, exitcodes.Exit{}, false)
	nothingRan := runner.Result{}
	fellBack := func(code int) *exitcodes.Exit { return &exitcodes.Exit{Code: code} }
	for _, tc := range []struct {
		name string
		end  runEnd
		want ending
	}{
		// Success.
		{"success exits 0", runEnd{res: succeeded}, ending{report.OutcomeSuccess, 0, false}},
		{"success exits 0 even if a late signal arrived", runEnd{res: succeeded, interrupted: syscall.SIGTERM}, ending{report.OutcomeSuccess, 0, false}},
		{"success runs no fallback", runEnd{res: succeeded, fallback: true}, ending{report.OutcomeSuccess, 0, false}},

		// Giving up passes the last attempt's code on.
		{"give-up passes the last code on", runEnd{res: failed}, ending{report.OutcomeExhausted, 7, false}},
		{"a child killed by signal n counts as 128+n", runEnd{res: ran(runner.Exhausted, exitcodes.Signaled(syscall.SIGKILL), false)}, ending{report.OutcomeExhausted, 137, false}},
		{"a terminal failure passes its code on", runEnd{res: ran(runner.Terminal, exitcodes.Exit{Code: 2}, false)}, ending{report.OutcomeTerminal, 2, false}},
		{"a failed hook is terminal", runEnd{res: ran(runner.HookFailed, exitcodes.Exit{Code: 7}, false)}, ending{report.OutcomeTerminal, 7, false}},
		{"not found exits 127", runEnd{res: ran(runner.Terminal, exitcodes.Exit{Start: exitcodes.ProgramMissing, Code: 127}, false)}, ending{report.OutcomeTerminal, 127, false}},
		{"not executable exits 126", runEnd{res: ran(runner.Terminal, exitcodes.Exit{Start: exitcodes.ProgramNotExecutable, Code: 126}, false)}, ending{report.OutcomeTerminal, 126, false}},
		{"a process that could not start exits 125", runEnd{res: ran(runner.Terminal, exitcodes.Exit{Start: exitcodes.StartFailed, Code: 125}, false)}, ending{report.OutcomeTerminal, 125, false}},
		{"unreplayable stdin passes the last code on", runEnd{res: ran(runner.StdinUnreplayable, exitcodes.Exit{Code: 7}, false)}, ending{report.OutcomeStdinUnreplayable, 7, false}},
		{"a success on a cut stdin exits 74", runEnd{res: ran(runner.StdinReadFailed, exitcodes.Exit{}, false)}, ending{report.OutcomeStdinReadFailed, 74, false}},
		{"a success on a cut stdin runs no fallback", runEnd{res: ran(runner.StdinReadFailed, exitcodes.Exit{}, false), fallback: true}, ending{report.OutcomeStdinReadFailed, 74, false}},
		{"unheld stdout passes the last code on", runEnd{res: ran(runner.StdoutNotHeld, exitcodes.Exit{Code: 7}, false)}, ending{report.OutcomeStdoutNotHeld, 7, false}},
		{"a spent retry budget ends as exhausted attempts", runEnd{res: ran(runner.Refused, exitcodes.Exit{Code: 7}, false)}, ending{report.OutcomeExhausted, 7, false}},

		// Deadlines and timeouts.
		{"the deadline stopping an attempt exits 124", runEnd{res: ran(runner.Deadline, exitcodes.Exit{TimedOut: true, Code: 143}, true)}, ending{report.OutcomeDeadline, 124, false}},
		{"the deadline passing before the first attempt exits 124", runEnd{res: runner.Result{Stop: runner.Deadline}}, ending{report.OutcomeDeadline, 124, false}},
		{"a wait that would pass the deadline passes the last code on", runEnd{res: ran(runner.Deadline, exitcodes.Exit{Code: 7}, false)}, ending{report.OutcomeDeadline, 7, false}},
		{"a retry-after past the deadline passes the last code on", runEnd{res: ran(runner.HintPastDeadline, exitcodes.Exit{Code: 75}, false)}, ending{report.OutcomeDeadline, 75, false}},
		{"a retry-after too long passes the last code on", runEnd{res: ran(runner.HintTooLong, exitcodes.Exit{Code: 75}, false)}, ending{report.OutcomeDeadline, 75, false}},
		{"a last attempt that hit --timeout exits 124", runEnd{res: ran(runner.Exhausted, exitcodes.Exit{TimedOut: true, Code: 137, Signal: syscall.SIGKILL}, false)}, ending{report.OutcomeExhausted, 124, false}},

		// Signals and a reader gone.
		{"stopped by SIGINT exits 130", runEnd{res: ran(runner.Cancelled, exitcodes.Exit{Code: 1}, false), interrupted: syscall.SIGINT, cancelled: true}, ending{report.OutcomeCancelled, 130, false}},
		{"stopped by SIGTERM exits 143", runEnd{res: ran(runner.Cancelled, exitcodes.Exit{Code: 1}, false), interrupted: syscall.SIGTERM, cancelled: true}, ending{report.OutcomeCancelled, 143, false}},
		{"a signal beats the deadline", runEnd{res: ran(runner.Deadline, exitcodes.Exit{TimedOut: true, Code: 143}, true), interrupted: syscall.SIGHUP}, ending{report.OutcomeDeadline, 129, false}},
		{"a signal runs no fallback", runEnd{res: ran(runner.Cancelled, exitcodes.Exit{Code: 1}, false), interrupted: syscall.SIGINT, cancelled: true, fallback: true}, ending{report.OutcomeCancelled, 130, false}},
		{"a cancelled context runs no fallback", runEnd{res: failed, cancelled: true, fallback: true}, ending{report.OutcomeExhausted, 7, false}},
		{"the reader of stdout gone exits 141", runEnd{res: ran(runner.DownstreamClosed, exitcodes.Exit{Code: 1}, false)}, ending{report.OutcomeCancelled, 141, false}},
		{"a broken pipe passing held output on exits 141 after a success", runEnd{res: succeeded, brokenPipe: true}, ending{report.OutcomeSuccess, 141, false}},
		{"held output that could not be written exits 74 after a success", runEnd{res: succeeded, outputLost: true}, ending{report.OutcomeSuccess, 74, false}},
		{"held output that could not be written runs no fallback", runEnd{res: succeeded, outputLost: true, fallback: true}, ending{report.OutcomeSuccess, 74, false}},
		{"the reader of stdout gone runs no fallback", runEnd{res: ran(runner.DownstreamClosed, exitcodes.Exit{Code: 1}, false), fallback: true}, ending{report.OutcomeCancelled, 141, false}},

		// The circuit breaker.
		{"a circuit open before the first attempt exits 75", runEnd{res: nothingRan, circuitOpen: true}, ending{report.OutcomeBreakerOpen, 75, false}},
		{"a run that waited for the circuit and ran nothing exits 75", runEnd{res: runner.Result{Stop: runner.Refused}, circuitOpen: true}, ending{report.OutcomeBreakerOpen, 75, false}},
		{"a circuit that opened mid-run passes the last code on", runEnd{res: ran(runner.Refused, exitcodes.Exit{Code: 7}, false), circuitOpen: true}, ending{report.OutcomeBreakerOpen, 7, false}},

		// The fallback: asked for when retry gives up, then its code.
		{"giving up runs the fallback", runEnd{res: failed, fallback: true}, ending{report.OutcomeExhausted, 0, true}},
		{"an open circuit runs the fallback", runEnd{res: nothingRan, circuitOpen: true, fallback: true}, ending{report.OutcomeBreakerOpen, 0, true}},
		{"the fallback's code is retry's", runEnd{res: failed, fallback: true, fellBack: fellBack(3)}, ending{report.OutcomeFallback, 3, false}},
		{"a fallback that succeeds exits 0 for an open circuit", runEnd{res: nothingRan, circuitOpen: true, fallback: true, fellBack: fellBack(0)}, ending{report.OutcomeFallback, 0, false}},
		{"a signal during the fallback exits 128+n", runEnd{res: failed, fallback: true, fellBack: fellBack(0), interrupted: syscall.SIGTERM}, ending{report.OutcomeFallback, 143, false}},
		{"a fallback runs once", runEnd{res: failed, fallback: true, fellBack: fellBack(9)}, ending{report.OutcomeFallback, 9, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, settle(tc.end))
		})
	}
}

func TestEveryStopReasonSettlesToAnOutcomeReportsKnow(t *testing.T) {
	t.Parallel()
	for stop := runner.Succeeded; stop <= runner.StdoutNotHeld; stop++ {
		got := settle(runEnd{res: runner.Result{Stop: stop}}).outcome
		assert.Contains(t, report.Outcomes(), got, "%v", stop)
	}
	assert.Equal(t, report.Outcome("stop(99)"), outcomeOf(99), "an unknown stop reason is named by its String")
}

func TestOnlyTheCircuitsRefusalCountsAsOpen(t *testing.T) {
	t.Parallel()
	assert.True(t, circuitRefused(&refusal{msg: "circuit open", opened: true}))
	assert.False(t, circuitRefused(&refusal{msg: "retry budget spent"}))
	assert.False(t, circuitRefused(errors.New("other")))
	assert.False(t, circuitRefused(nil))
}

// The whole path in process: settle asks for the fallback, run runs it,
// and the exit code and the report file's outcome are the ones settle
// gives with the fallback's exit. (It passed before settle existed too.)
func TestARunThatGivesUpRunsTheFallbackAndExitsWithItsCode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "report.json")
	r := runMain(t, nil, "-n", "1", "--report", path, "--fallback", "exit 3", "--", "/bin/false")
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stderr, "retry: ran the --fallback command instead: exit 3")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Outcome  string `json:"outcome"`
		ExitCode int    `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "fallback", doc.Outcome)
	assert.Equal(t, 3, doc.ExitCode)
}
