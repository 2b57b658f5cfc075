package main

// End-to-end tests of retrying forever, starting the schedule over after a
// long attempt, and the pointers retry gives for other tools' habits:
// their flags, day durations, mistyped subcommands, -c variables.

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// phases returns the phase named by each "retrying in" line of stderr.
func phases(t *testing.T, r result) []string {
	t.Helper()
	var out []string
	re := regexp.MustCompile(`retrying in [^ ]+ \(([a-z-]+) phase\)`)
	for _, l := range r.lines(t) {
		if m := re.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

func TestForeverRetriesPastAnyCountUntilSuccess(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "--forever", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms", "--",
		"sh", "-c", `echo "$RETRY_MAX_ATTEMPTS"; [ "$RETRY_ATTEMPT" -ge 12 ]`)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, strings.Repeat("0\n", 12), r.stdout, "12 attempts, no limit announced")
	assert.Contains(t, r.stderr, "attempt 11 failed: exit 1 (transient); retrying in", "no /N when there is no limit")
	assert.Contains(t, r.stderr, "sh succeeded on attempt 12")
}

func TestForeverStillStopsAtATerminalFailure(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "--forever", "--stop-on-exit", "3", "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stderr, "after 1 attempt")
}

func TestResetStartsTheScheduleOverAfterALongAttempt(t *testing.T) {
	t.Parallel()
	// Attempts 1-3 fail at once and back off into the slow phase; attempt
	// 4 runs 2s before failing, longer than --reset, so its wait is a
	// fast one again; attempt 6 succeeds.
	script := `case "$RETRY_ATTEMPT" in 4) sleep 2; exit 1 ;; 6) exit 0 ;; *) exit 1 ;; esac`
	schedule := []string{"-n", "6", "--jitter", "none", "--fast", "1", "--fast-delay", "10ms", "--fast-max", "10ms", "--slow-delay", "100ms", "--slow-max", "100ms"}
	for _, tc := range []struct {
		name  string
		reset []string
		want  []string
	}{
		{"with --reset", []string{"--reset", "1500ms"}, []string{"fast", "slow", "slow", "fast", "slow"}},
		{"without", nil, []string{"fast", "slow", "slow", "slow", "slow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append(append(append([]string{}, schedule...), tc.reset...), "--", "sh", "-c", script)
			r := retry(t, nil, args...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, tc.want, phases(t, r))
			assert.Contains(t, r.stderr, "sh succeeded on attempt 6", "the attempt count goes on")
		})
	}
}

func TestResetDoesNotGiveAttemptsBack(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "2", "--reset", "1ms", "--fast-delay", "1ms", "--", "sh", "-c", "sleep 0.1; exit 1")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "giving up on sh after 2 attempts")
}

func TestPlanSaysForeverAndReset(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "plan", "--forever", "--reset", "5m")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attempts: forever (--forever); deadline: none")
	assert.Contains(t, r.stdout, "reset: an attempt that ran 5m0s or longer before failing starts the schedule over at the fast phase")
	assert.Contains(t, r.stdout, "... and so on at most every 30s, forever")

	r = retry(t, nil, "-n", "0", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "no attempt limit and no deadline would retry without end")
	assert.Contains(t, r.stderr, "or say --forever if you mean it")
}

func TestOtherToolsFlagsPointToOursWithExit125(t *testing.T) {
	t.Parallel()
	for flag, says := range map[string]string{
		"--retries":  "use --attempts N (-n N)",
		"--times":    "use --attempts N (-n N)",
		"--until":    "--stop-on-exit LIST",
		"--while":    "--retry-on-exit LIST",
		"--sleep":    "--slow-delay D",
		"--max-time": "--deadline D",
		"--deadlin":  "did you mean --deadline?",
	} {
		r := retry(t, nil, flag, "3", "--", "sh", "-c", "echo ran")
		assert.Equal(t, 125, r.code, flag)
		assert.Empty(t, r.stdout, "the command never runs")
		assert.Contains(t, r.stderr, "retry: "+flag+": unknown flag; ", flag)
		assert.Contains(t, r.stderr, says, flag)
	}
	r := retry(t, []string{"RETRY_OPTS=--max-retries 3"}, "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "use --attempts N")
}

func TestDurationsTakeADaySuffix(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "plan", "--deadline", "1d12h", "--slow-max", "1d")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "deadline: 36h0m0s")
	assert.Contains(t, r.stdout, "at most 24h0m0s")
	r = retry(t, nil, "--deadline", "1d", "--", "true")
	assert.Equal(t, 0, r.code, r.stderr)
}

func TestMistypedSubcommandIsNotFoundWithAPointer(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "presest")
	assert.Equal(t, 127, r.code)
	assert.Contains(t, r.stderr, `"presest": executable file not found in $PATH; did you mean retry presets? (exit 127, terminal)`)
}

func TestDelayAboveTheCapRaisesTheCap(t *testing.T) {
	t.Parallel()
	// RETRY_OPTS shortening the cap used to cut a command line's
	// --slow-delay 60s to 50ms without a word.
	r := retry(t, []string{"RETRY_OPTS=--slow-max 50ms"}, "plan", "--slow-delay", "60s", "--seed", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "slow phase: 1m0s doubling to at most 1m0s")
	assert.Contains(t, r.stdout, "note: --slow-max raised from 50ms (RETRY_OPTS) to 1m0s, the --slow-delay")
	assert.Contains(t, r.stdout, "0s to 1m0s")

	r = retry(t, nil, "--slow-delay", "60s", "--slow-max", "30s", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "retry: --slow-delay: 1m0s is above --slow-max 30s, both from the command line")
}

func TestCommandStringExpandsVariablesAndRefusesSubstitution(t *testing.T) {
	t.Parallel()
	r := retry(t, []string{"HOME=/home/someone", "GREETING=hello world"}, "-c", `printf '[%s]' $GREETING "$GREETING" '$HOME' ~/x`)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "[hello][world][hello world][$HOME][/home/someone/x]", r.stdout)

	r = retry(t, nil, "-c", `echo $(id -u)`)
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, `"$(" is shell syntax that only a shell expands; add --shell`)
}

func TestMessagesNameTheTimeoutAndSubMillisecondTimes(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "1", "--deadline", "500us", "--", "sleep", "1")
	assert.Equal(t, 124, r.code)
	assert.Contains(t, r.stderr, "the 500µs deadline")

	r = retry(t, nil, "-n", "2", "-t", "200ms", "--fast-delay", "1ms", "--", "sleep", "5")
	assert.Equal(t, 124, r.code)
	assert.Contains(t, r.stderr, "attempt 1/2 failed: timed out after 200ms (transient)")
	assert.Less(t, r.elapsed, 30*time.Second)
}
