package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"retry/runner"
)

func TestGitHubEscapesDataAndPropertiesAsTheRunnerExpects(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][2]string{ // data, property
		"plain":         {"plain", "plain"},
		"100% done":     {"100%25 done", "100%25 done"},
		"a\r\nb":        {"a%0D%0Ab", "a%0D%0Ab"},
		"k: v, w":       {"k: v, w", "k%3A v%2C w"},
		"%0A stays put": {"%250A stays put", "%250A stays put"},
	} {
		assert.Equal(t, want[0], escapeData(in), "data %q", in)
		assert.Equal(t, want[1], escapeProperty(in), "property %q", in)
	}
}

func TestGitHubWarnsForEachRetryAndGroupsEachRetriedAttempt(t *testing.T) {
	t.Parallel()
	e := endings()["success after a retry"]
	var b bytes.Buffer
	g := &GitHub{W: &b, Program: "curl"}
	for i, o := range e.Result.Attempts {
		g.Observe(&runner.AttemptStarted{Attempt: o.N, Max: 3})
		if i == 1 {
			b.WriteString("the child's output\n")
		}
		g.Observe(&runner.AttemptEnded{Attempt: o, Max: 3, Final: i == len(e.Result.Attempts)-1})
	}
	g.Observe(&runner.Finished{Result: e.Result})
	assert.Equal(t, "::warning title=retry::attempt 1/3 failed: exit 7 (transient); retrying in 40ms (fast phase)\n"+
		"::group::retry: attempt 2/3\n"+
		"the child's output\n"+
		"::endgroup::\n", b.String(), "no error when it succeeds")
}

func TestGitHubErrorWhenRetryIsStoppedNamesTheCause(t *testing.T) {
	t.Parallel()
	e := endings()["cancelled during a wait"]
	var b bytes.Buffer
	g := &GitHub{W: &b, Program: "curl", Cause: func() string { return "received SIGINT" }}
	g.Observe(&runner.Finished{Result: e.Result})
	assert.Equal(t, "::error title=retry::stopped curl after 1 attempt in 1.5s: received SIGINT; last error: exit 7 (transient)\n", b.String())
}

func TestGitHubClosesAnOpenGroupBeforeTheError(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	g := &GitHub{W: &b, Program: "curl"}
	g.Observe(&runner.AttemptStarted{Attempt: 2})
	g.Observe(&runner.Finished{Result: runner.Result{Stop: runner.Cancelled}})
	assert.Equal(t, "::group::retry: attempt 2\n::endgroup::\n::error title=retry::stopped curl after 0 attempts in 0s: cancelled\n", b.String())
}

func TestGitHubMessagesCannotBreakOutOfTheirCommand(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	g := &GitHub{W: &b, Program: "50%\n::error::x"}
	g.Observe(&runner.Finished{Result: runner.Result{Stop: runner.Terminal}})
	assert.Equal(t, "::error title=retry::giving up on 50%25 ::error::x after 0 attempts in 0s: terminal failure\n", b.String())
}
