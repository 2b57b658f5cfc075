package cmd

// User stories of the run and of retry plan, in-process: what was an
// end-to-end test of the binary where only a real process's behaviour
// (output, exit status, timing) was borrowed, now with a fakeStarter and
// virtual time. Tests that use inBubble do not run in parallel (see
// bubbleReady).

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// phasesOf returns the phase of each wait the lines announce.
func phasesOf(r faked) []string {
	var out []string
	re := regexp.MustCompile(`retrying in [^ ]+ \(([a-z-]+) phase\)`)
	for _, l := range r.lines() {
		if m := re.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// The default classification, with no rule given: what may pass is
// retried (one more attempt here), what cannot is not.
func TestDefaultClassificationRetriesOnlyWhatMayPass(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempt  fakeAttempt
		code     int
		attempts int
	}{
		{"usage error EX_USAGE is terminal", exits(64), 64, 1},
		{"EX_CONFIG is terminal", exits(78), 78, 1},
		{"EX_TEMPFAIL is transient", exits(75), 75, 2},
		{"plain failure is transient", exits(1), 1, 2},
		{"exit 126 from the command itself is terminal", exits(126), 126, 1},
		{"SIGSEGV is a crash, terminal", fakeAttempt{signal: syscall.SIGSEGV}, 139, 1},
		{"SIGABRT is a crash, terminal", fakeAttempt{signal: syscall.SIGABRT}, 134, 1},
		{"SIGINT is an interrupt, terminal", fakeAttempt{signal: syscall.SIGINT}, 130, 1},
		{"SIGQUIT is an interrupt, terminal", fakeAttempt{signal: syscall.SIGQUIT}, 131, 1},
		{"SIGTERM is transient", fakeAttempt{signal: syscall.SIGTERM}, 143, 2},
		{"SIGKILL is transient", fakeAttempt{signal: syscall.SIGKILL}, 137, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := fake(tc.attempt)
				r := runFaked(t, f, nil, "-n", "2", "--", "prog")
				assert.Equal(t, tc.code, r.code, r.stderr)
				assert.Len(t, f.commands(), tc.attempts, r.stderr)
				want := "after 1 attempt in"
				if tc.attempts == 2 {
					want = "after 2 attempts in"
				}
				assert.Contains(t, r.stderr, want)
			})
		})
	}
}

// --forever makes attempts past any count, announcing no limit, until
// one succeeds or fails for good.
func TestForeverRetriesPastAnyCountUntilSuccessOrATerminalFailure(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		script := make([]fakeAttempt, 11)
		for i := range script {
			script[i] = exits(1)
		}
		f := fake(append(script, exits(0))...)
		r := runFaked(t, f, nil, "--forever", "--", "prog")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Len(t, f.commands(), 12)
		for i := range f.commands() {
			assert.Equal(t, "0", f.envOf(t, i, "RETRY_MAX_ATTEMPTS"), "no limit announced")
		}
		assert.Contains(t, r.stderr, "attempt 11 failed: exit 1 (transient); retrying in", "no /N when there is no limit")
		assert.Contains(t, r.stderr, "prog succeeded on attempt 12")
		for _, l := range r.lines()[:11] {
			assert.LessOrEqual(t, waitOf(t, l), 30*time.Second, "each wait at most --slow-max: %s", l)
		}

		f = fake(exits(3))
		r = runFaked(t, f, nil, "--forever", "--stop-on-exit", "3", "--", "prog")
		assert.Equal(t, 3, r.code)
		assert.Contains(t, r.stderr, "after 1 attempt")
	})
}

// --reset: an attempt that ran at least that long before failing starts
// the schedule over at the fast phase; the attempt count goes on.
func TestResetStartsTheScheduleOverAfterALongAttempt(t *testing.T) {
	schedule := []string{"-n", "6", "--jitter", "none", "--fast", "1", "--fast-delay", "10ms", "--fast-max", "10ms", "--slow-delay", "100ms", "--slow-max", "100ms"}
	script := []fakeAttempt{exits(1), exits(1), exits(1), {code: 1, takes: 2 * time.Second}, exits(1), exits(0)}
	for _, tc := range []struct {
		name  string
		reset []string
		want  []string
	}{
		{"with --reset", []string{"--reset", "1500ms"}, []string{"fast", "slow", "slow", "fast", "slow"}},
		{"without", nil, []string{"fast", "slow", "slow", "slow", "slow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := fake(script...)
				r := runFaked(t, f, nil, append(append(append([]string{}, schedule...), tc.reset...), "--", "prog")...)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Equal(t, tc.want, phasesOf(r))
				assert.Contains(t, r.stderr, "prog succeeded on attempt 6", "the attempt count goes on")
			})
		})
	}

	inBubble(t, func(t *testing.T) {
		r := runFaked(t, fake(fakeAttempt{code: 1, takes: 100 * time.Millisecond}), nil, "-n", "2", "--reset", "1ms", "--", "prog")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "giving up on prog after 2 attempts", "a reset gives no attempts back")
	})
}

// Times are named as they were given, sub-millisecond ones too, and a
// timed-out attempt says its limit.
func TestMessagesNameTheTimeoutAndSubMillisecondTimes(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		r := runFaked(t, fake(fakeAttempt{takes: time.Second}), nil, "-n", "1", "--deadline", "500us", "--", "prog")
		assert.Equal(t, 124, r.code)
		assert.Contains(t, r.stderr, "the 500µs deadline")

		r = runFaked(t, fake(fakeAttempt{takes: 5 * time.Second}), nil, "-n", "2", "-t", "200ms", "--", "prog")
		assert.Equal(t, 124, r.code)
		assert.Contains(t, r.stderr, "attempt 1/2 failed: timed out after 200ms (transient)")
	})
}

// retry plan shows the exact waits a run with the same seed takes.
func TestPlanShowsTheWaitsARunWithTheSameSeedTakes(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		plan := runFaked(t, fake(exits(0)), nil, "plan", "--seed", "7", "-d", "5s", "--", "curl", "-fsS", "http://x")
		require.Equal(t, 0, plan.code, plan.stderr)
		assert.Contains(t, plan.stdout, "attempts: 5; deadline: 5s;")
		assert.Regexp(t, `(?m)^2\s+fast phase\s+0s to 50ms\s+\S+\s+50ms\s+25ms`, plan.stdout)
		assert.Regexp(t, `(?m)^5\s+slow phase\s+0s to 4s\s+\S+\s+6\.15s\s+3\.08s\s+deadline may cut here`, plan.stdout)
		assert.Contains(t, plan.stdout, "presets curl")
		assert.Contains(t, plan.stdout, "timeline (worst case):")

		run := runFaked(t, fake(exits(1)), nil, "--seed", "7", "-n", "3", "--", "prog")
		for _, l := range run.lines()[:2] {
			wait := strings.TrimPrefix(l[strings.Index(l, "retrying in "):], "retrying in ")
			wait = wait[:strings.Index(wait, " ")]
			assert.Contains(t, plan.stdout, " "+wait+" ", "plan shows the wait %s", wait)
		}
	})
}

// retry plan says what the layers and profiles add up to.
func TestPlanSaysWhatPoliciesProfilesAndDaysAddUpTo(t *testing.T) {
	t.Chdir(project(t, "[policies.flaky]\nattempts = 2\nfast-delay = \"1ms\"\n"))
	user := userConfig(t, "[policies.mine]\nattempts = 7\n")
	for _, tc := range []struct {
		env  []string
		args []string
		says []string
	}{
		{[]string{user}, []string{"-p", "mine"}, []string{"attempts: 7;"}},
		{nil, []string{"-p", "interactive"}, []string{"attempts: 3; deadline: 2s;"}},
		{nil, []string{"-p", "patient"}, []string{"attempts: 8; deadline: 30m0s;", "at most 5m0s"}},
		{nil, []string{"--forever", "--reset", "5m"}, []string{
			"attempts: forever (--forever); deadline: none",
			"reset: an attempt that ran 5m0s or longer before failing starts the schedule over at the fast phase",
			"... and so on at most every 30s, forever",
		}},
		{nil, []string{"--deadline", "1d12h", "--slow-max", "1d"}, []string{"deadline: 36h0m0s", "at most 24h0m0s"}},
		{[]string{"RETRY_OPTS=--slow-max 50ms"}, []string{"--slow-delay", "60s", "--seed", "1"}, []string{
			"slow phase: 1m0s doubling to at most 1m0s",
			"note: --slow-max raised from 50ms (RETRY_OPTS) to 1m0s, the --slow-delay",
			"0s to 1m0s",
		}},
	} {
		r := runFaked(t, fake(exits(0)), tc.env, append([]string{"plan"}, tc.args...)...)
		require.Equal(t, 0, r.code, "%q: %s", tc.args, r.stderr)
		for _, s := range tc.says {
			assert.Contains(t, r.stdout, s, "%q", tc.args)
		}
	}
	r := runFaked(t, fake(exits(0)), nil, "plan", "-v", "-p", "flaky", "-n", "4")
	assert.Regexp(t, `--attempts\s+4\s+from command line`, r.stdout)
	assert.Regexp(t, `--fast-delay\s+1ms\s+from policy flaky \(.*\.retry\.toml\)`, r.stdout)
}

// A subcommand's name is a subcommand unless -- comes first; --version
// prints the version and runs nothing, whatever follows.
func TestSubcommandShadowsAProgramUnlessDashDashComesFirst(t *testing.T) {
	t.Parallel()
	f := fake(exits(0))
	r := runFaked(t, f, nil, "version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "retry "), r.stdout)
	assert.Empty(t, f.commands())

	r = runFaked(t, f, nil, "--version", "--", "prog")
	assert.Equal(t, 0, r.code, "--version prints and runs nothing")
	assert.Regexp(t, `^retry \S+ \(commit \S+, built \S+\)\n$`, r.stdout)
	assert.Empty(t, f.commands())

	r = runFaked(t, f, nil, "--", "version")
	assert.Equal(t, 0, r.code, r.stderr)
	require.Len(t, f.commands(), 1, "after --, version is a program to run")
	assert.Equal(t, []string{"version"}, f.commands()[0].Args)
}

// A program that cannot be run, as the real Starter finds it (no process
// starts), makes one attempt: 127 not found, 126 not executable.
func TestProgramThatCannotRunMakesOneAttempt(t *testing.T) {
	t.Parallel()
	notExec := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\nexit 0\n"), 0o644))
	for _, tc := range []struct {
		program string
		code    int
		says    string
	}{
		{"no-such-program-retry-test", 127, `"no-such-program-retry-test": executable file not found in $PATH (exit 127, terminal)`},
		{notExec, 126, "permission denied (exit 126, terminal)"},
	} {
		r := runMain(t, nil, "--", tc.program)
		assert.Equal(t, tc.code, r.code, r.stderr)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		require.Len(t, lines, 1, "one attempt, one give-up line")
		assert.Contains(t, lines[0], "after 1 attempt in")
		assert.Contains(t, lines[0], tc.says)
	}
}
