package report

import (
	"errors"
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
	assert.Equal(t, "exit 7 (transient)", Failure(runner.Outcome{
		Exit: exitcodes.Exit{Code: 7}, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}}))
	assert.Equal(t, "killed by SIGSEGV (terminal: a crash)", Failure(runner.Outcome{
		Exit: exitcodes.Signaled(syscall.SIGSEGV), Verdict: exitcodes.Classify(exitcodes.Signaled(syscall.SIGSEGV))}))
	assert.Equal(t, `"curlx": executable file not found in $PATH (exit 127, terminal)`, Failure(runner.Outcome{
		Exit:    exitcodes.Exit{Code: 127, Start: exitcodes.ProgramMissing},
		Verdict: exitcodes.Verdict{Class: exitcodes.Terminal, Rule: "not found"},
		Err:     &runner.StartError{Program: "curlx", Err: errors.New("executable file not found in $PATH")},
	}))
}

func TestTextLinesForARetriedRunThatGivesUp(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	tx := &Text{W: &b, Program: "curl", Argv: []string{"curl", "secret"}}
	failed := func(n int, wait time.Duration, phase policy.Phase) runner.Outcome {
		return runner.Outcome{Attempt: n, Exit: exitcodes.Exit{Code: 7},
			Verdict: exitcodes.Verdict{Class: exitcodes.Transient},
			Next:    policy.Decision{Retry: wait > 0, Wait: wait, Phase: phase}}
	}
	o1, o2 := failed(1, 143*time.Millisecond, policy.Fast), failed(2, 0, 0)
	tx.Observe(&runner.AttemptStarted{Attempt: 1, Max: 2})
	tx.Observe(&runner.AttemptEnded{Outcome: o1, Max: 2})
	tx.Observe(&runner.AttemptStarted{Attempt: 2, Max: 2})
	tx.Observe(&runner.AttemptEnded{Outcome: o2, Max: 2, Final: true})
	tx.Observe(&runner.Finished{Result: runner.Result{Attempts: []runner.Outcome{o1, o2}, Stop: runner.Exhausted, Elapsed: 1234 * time.Millisecond}})
	assert.Equal(t, "retry: attempt 1/2 failed: exit 7 (transient); retrying in 143ms (fast phase)\n"+
		"retry: giving up on curl after 2 attempts in 1.23s: attempts exhausted; last error: exit 7 (transient)\n", b.String())
	assert.NotContains(t, b.String(), "secret")
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
