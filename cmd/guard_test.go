package cmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/breaker"
	"retry/exitcodes"
	"retry/policy"
	"retry/runner"
)

// TestRetriesAllowedAtOnceTakeTheBudgetsTokensOneByOne is the budget race
// at the level of runs: runs whose retries are allowed before any of them
// has failed must not all see the budget unspent. Before Allow left the
// token to Admit's Check, a run's retry took its token only when its
// failure was recorded, and every run asking meanwhile went through.
func TestRetriesAllowedAtOnceTakeTheBudgetsTokensOneByOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := defaultBreakerOptions()
	// 9 tokens: retries stop at 4.5 left, half a token from a whole
	// number, so the budget's refill with time (a token a second) cannot
	// tip the count in a slow test.
	o.Key, o.State, o.Min, o.Tokens = "k", t.TempDir(), 1000, 9
	p := policy.Default()
	newRun := func() *guard {
		t.Helper()
		g, err := newGuard(&o, p, Deps{}, func(f string, a ...any) { t.Errorf("warning: "+f, a...) })
		require.NoError(t, err)
		require.NotNil(t, g)
		t.Cleanup(g.close)
		return g
	}
	failed := runner.Attempt{N: 1, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}}
	// Three failed first attempts leave 6 of 9 tokens: two retries above
	// half.
	var runs []*guard
	for range 3 {
		g := newRun()
		require.Nil(t, g.first(ctx))
		g.Done(ctx, failed)
		runs = append(runs, g)
	}
	admitted := 0
	for _, g := range runs[:3] {
		if g.Allow(ctx, 2) == nil && g.Admit(ctx, 2, g.deadline) == nil {
			admitted++
		}
	}
	assert.Equal(t, 2, admitted, "only the tokens above half let retries through")
}

func TestABudgetThatRefusesSaysWhatARetryNeeds(t *testing.T) {
	t.Parallel()
	s := breaker.Status{Tokens: 3.1, MaxTokens: 10}
	g := &guard{key: "k"}
	assert.Contains(t, g.budgetMessage(breaker.Status{Tokens: 0.5, MaxTokens: 2.5}), "(0.5 of 2.5 tokens left; a retry needs more than 1.25", "a budget that is not a whole number is shown as it is")
	assert.Equal(t, `retry budget exhausted for "k" (3.1 of 10 tokens left; a retry needs more than 5, --budget-tokens sets them)`, g.budgetMessage(s))
	w := waitMessage("k", breaker.Wait{Status: s, Budget: true, Next: time.Now().Add(5 * time.Second)})
	assert.Contains(t, w, `retry budget of "k" is spent (3.1 of 10 tokens left; a retry needs more than 5, --budget-tokens sets them); waiting for it to refill until `)
}

// A retry that the budget allowed when it was announced ("retrying in
// 2s") and that other runs' failures refused by the time it was due says
// so, rather than only "exhausted" after the announced wait.
func TestABudgetSpentDuringTheWaitSaysOtherRunsSpentIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := defaultBreakerOptions()
	o.Key, o.State, o.Min, o.Tokens = "k", t.TempDir(), 1000, 9
	newRun := func() *guard {
		t.Helper()
		g, err := newGuard(&o, policy.Default(), Deps{}, func(f string, a ...any) { t.Errorf("warning: "+f, a...) })
		require.NoError(t, err)
		t.Cleanup(g.close)
		return g
	}
	failed := runner.Attempt{N: 1, Verdict: exitcodes.Verdict{Class: exitcodes.Transient}}
	g := newRun()
	require.Nil(t, g.first(ctx))
	g.Done(ctx, failed)
	require.NoError(t, g.Allow(ctx, 2), "the retry is announced")
	for range 6 { // the others' failures spend the budget meanwhile
		other := newRun()
		require.Nil(t, other.first(ctx))
		other.Done(ctx, failed)
	}
	err := g.Admit(ctx, 2, g.deadline)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `retry budget for "k" spent by other runs during the wait (`)
}

// A state store that cannot be opened is named by where it came from, and
// the warning says what would be right (before: "state dir: mkdir
// /tmp/afile: not a directory", and nothing more).
func TestAStateStoreThatCannotBeOpenedIsNamedWithWhatWouldBeRight(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	r := runMain(t, nil, "--breaker", "k", "--state", filepath.Join(file, "state"), "--", "/bin/true")
	assert.Equal(t, 0, r.code, "the command still runs: %s", r.stderr)
	assert.Contains(t, r.stderr, `retry: warning: state store unavailable (--state: "`+filepath.Join(file, "state")+`": `)
	assert.Contains(t, r.stderr, "; point it at a directory retry may create and write")
	r = runMain(t, []string{"RETRY_STATE=" + filepath.Join(file, "state")}, "--timeout", "auto", "--", "/bin/true")
	assert.Contains(t, r.stderr, `(RETRY_STATE: "`+filepath.Join(file, "state")+`": `)
	assert.Contains(t, r.stderr, "; point it at a directory retry may create and write")
}
