package main

// End-to-end tests of runs that wait out an open circuit (--when-open),
// against both stores.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitStores returns the --state of each store: a directory, and a
// throwaway Redis (skipped without redis-server unless RETRY_REQUIRE_REDIS
// is set).
func waitStores() []struct {
	name  string
	state func(t *testing.T) string
} {
	return []struct {
		name  string
		state func(t *testing.T) string
	}{
		{"file", func(t *testing.T) string { return t.TempDir() }},
		{"redis", func(t *testing.T) string {
			port := loopbackPort(t)
			redisFor(t, t.TempDir(), port)
			return fmt.Sprintf("redis://127.0.0.1:%d/0", port)
		}},
	}
}

// openCircuit opens circuit key in state with five quick failures; flags
// are added to every run (such as the cooldown).
func openCircuit(t *testing.T, state, key string, flags ...string) {
	t.Helper()
	args := append([]string{"--breaker", key, "--state", state, "--state-timeout", "10s", "--breaker-min-span", "0",
		"-n", "5", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms"}, flags...)
	r := retry(t, nil, append(args, "--", "sh", "-c", "exit 7")...)
	require.Equal(t, 7, r.code, r.stderr)
	st := breakerStatus(t, state, key)
	require.Equal(t, "open", st["state"], "five failures opened the circuit")
}

func TestARunWithADeadlineWaitsForTheProbeAndSucceeds(t *testing.T) {
	t.Parallel()
	for _, store := range waitStores() {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			state := store.state(t)
			openCircuit(t, state, "db", "--breaker-cooldown", "2s")
			reportFile := filepath.Join(t.TempDir(), "report.json")
			r := retry(t, nil, "--breaker", "db", "--state", state, "--state-timeout", "10s", "--breaker-cooldown", "2s",
				"--deadline", "30s", "--report", reportFile, "--", "sh", "-c", "echo ran")
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "ran\n", r.stdout, "the run probed once the cooldown was over")
			assert.Regexp(t, `^retry: circuit "db" is open \(5 of 5 attempts failed in the last 1m0s\); waiting for its next probe at \d\d:\d\d:\d\d \(in \ds\), sending nothing\n$`, r.stderr)
			assert.Less(t, r.elapsed, 15*time.Second)
			assert.Equal(t, "closed", breakerStatus(t, state, "db")["state"], "the probe closed it")

			data, err := os.ReadFile(reportFile)
			require.NoError(t, err)
			var rep struct {
				Breaker struct {
					Key      string `json:"key"`
					WhenOpen string `json:"when_open"`
					WaitedMS int64  `json:"waited_ms"`
				} `json:"breaker"`
			}
			require.NoError(t, json.Unmarshal(data, &rep))
			assert.Equal(t, "db", rep.Breaker.Key)
			assert.Equal(t, "wait", rep.Breaker.WhenOpen)
			assert.Positive(t, rep.Breaker.WaitedMS)
		})
	}
}

func TestADeadlineShorterThanTheCooldownExits75AtOnce(t *testing.T) {
	t.Parallel()
	for _, store := range waitStores() {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			state := store.state(t)
			openCircuit(t, state, "db", "--breaker-first-cooldown", "1m", "--breaker-cooldown", "1m")
			marker := filepath.Join(t.TempDir(), "ran")
			r := retry(t, nil, "--breaker", "db", "--state", state, "--state-timeout", "10s", "--deadline", "5s", "--", "touch", marker)
			assert.Equal(t, 75, r.code, r.stderr)
			assert.Regexp(t, `^retry: circuit "db" is open \(5 of 5 attempts failed in the last 1m0s\); next probe in [0-9ms]+, past the deadline\n$`, r.stderr)
			assert.Less(t, r.elapsed, 3*time.Second, "no waiting when the probe comes after the deadline")
			assert.NoFileExists(t, marker)

			r = retry(t, nil, "--breaker", "db", "--state", state, "--state-timeout", "10s", "--", "touch", marker)
			assert.Equal(t, 75, r.code, "without a deadline: fail fast, as before")
			assert.Less(t, r.elapsed, time.Second)

			r = retry(t, nil, "--breaker", "db", "--state", state, "--state-timeout", "10s", "--deadline", "5s", "--fallback", "echo cached", "--", "touch", marker)
			assert.Equal(t, 0, r.code, "the fallback runs as it does today")
			assert.Equal(t, "cached\n", r.stdout)
		})
	}
}

func TestASignalDuringTheCircuitWaitEndsItWith128PlusN(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			state := t.TempDir()
			openCircuit(t, state, "db", "--breaker-first-cooldown", "1m", "--breaker-cooldown", "1m")
			marker := filepath.Join(t.TempDir(), "ran")
			run := startToFiles(t, nil, "--breaker", "db", "--state", state, "--deadline", "5m", "--fallback", "touch "+marker, "--", "touch", marker)
			require.Eventually(t, func() bool {
				return strings.Contains(run.read(t, run.errf), "waiting for its next probe")
			}, eventLimit, 10*time.Millisecond, "retry says it waits")
			require.Eventually(t, func() bool {
				return breakerStatus(t, state, "db")["waiting"] == float64(1)
			}, eventLimit, 50*time.Millisecond, "status counts the waiting run")
			sent := time.Now()
			require.NoError(t, run.cmd.Process.Signal(sig))
			r := run.wait(t)
			assert.Equal(t, 128+int(sig), r.code, r.stderr)
			assert.Less(t, time.Since(sent), 2*time.Second, "the wait ends at once")
			assert.NoFileExists(t, marker, "neither the command nor the fallback runs after a signal")
			assert.EqualValues(t, 0, breakerStatus(t, state, "db")["waiting"], "a run that stops waiting is no longer counted")
		})
	}
}

func TestPlanSaysWhatARunDoesWhenTheCircuitIsOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, `breaker: "db"; when the circuit is open: exit 75 at once (or run --fallback) (--when-open auto: no deadline)`},
		{[]string{"--deadline", "40s"}, `breaker: "db"; when the circuit is open: wait for it, sending nothing, while the deadline reaches past its next probe (--when-open auto: a deadline is set)`},
		{[]string{"-n", "0", "--stop-on-exit", "3"}, `breaker: "db"; when the circuit is open: wait for it, sending nothing (--when-open auto: attempts are unlimited)`},
		{[]string{"--deadline", "40s", "--when-open", "fail"}, `breaker: "db"; when the circuit is open: exit 75 at once (or run --fallback)`},
	} {
		r := retry(t, nil, append([]string{"plan", "--breaker", "db"}, tc.flags...)...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, tc.want+"\n", "%v", tc.flags)
	}
	r := retry(t, nil, "--when-open", "sometimes", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Equal(t, "retry: --when-open: \"sometimes\": want auto, wait or fail\n", r.stderr)
}

func TestARetryRefusedByTheBudgetWaitsForItWithinTheDeadline(t *testing.T) {
	t.Parallel()
	for _, store := range waitStores() {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			state := store.state(t)
			// A 6s window refills the 10-token budget over 6s; the
			// circuit never opens (this is about the budget).
			flags := []string{"--breaker", "k", "--state", state, "--state-timeout", "10s", "--breaker-window", "6s", "--breaker-min", "1000",
				"--fast-delay", "1ms", "--fast-max", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms"}
			r := retry(t, nil, append(flags, "-n", "10", "--", "sh", "-c", "exit 7")...)
			require.Equal(t, 7, r.code)
			require.Contains(t, r.stderr, "retry budget exhausted for k", "no deadline: the budget stops the retries, as before")

			count := filepath.Join(t.TempDir(), "count")
			script := `echo x >> "$0"; [ "$(wc -l < "$0")" -ge 2 ]`
			r = retry(t, nil, append(flags, "--deadline", "30s", "--", "sh", "-c", script, count)...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stderr, `retry: retry budget of "k" is spent`)
			assert.Contains(t, r.stderr, "waiting for it to refill")
			data, err := os.ReadFile(count)
			require.NoError(t, err)
			assert.Equal(t, "x\nx\n", string(data), "the refused retry ran once the budget allowed it")
		})
	}
}

func TestARunThatGivesUpOnTheCircuitAfterAnAttemptExitsWithThatAttemptsCode(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	// The run's own failure opens the circuit for a minute; its 5s
	// deadline ends before the probe: it gives up at once, with exit 7.
	r := retry(t, nil, "--breaker", "db", "--state", state, "--breaker-min", "1", "--breaker-min-span", "0",
		"--breaker-first-cooldown", "1m", "--breaker-cooldown", "1m", "--deadline", "5s", "--", "sh", "-c", "exit 7")
	assert.Equal(t, 7, r.code, r.stderr)
	assert.Less(t, r.elapsed, 3*time.Second)
	assert.Regexp(t, `^retry: giving up on sh after 1 attempt in \S+: circuit "db" is open \(1 of 1 attempts failed in the last 1m0s\); next probe in [0-9ms]+, past the deadline; last error: exit 7 \(transient\)\n$`, r.stderr)
}

func TestCircuitWaitCountsDownOnATerminal(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	openCircuit(t, state, "db", "--breaker-first-cooldown", "3s", "--breaker-cooldown", "3s")
	c, _, output, done := ptyRetry(t, "--breaker", "db", "--state", state, "--deadline", "30s", "--", "sh", "-c", "exit 0")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retry did not exit")
	}
	assert.Equal(t, 0, c.ProcessState.ExitCode())
	out := output()
	line := strings.Index(out, `retry: circuit "db" is open`)
	countdown := strings.Index(out, `retry: waiting for circuit "db": its next probe in `)
	require.True(t, line >= 0 && countdown >= 0, "%q", out)
	assert.Less(t, line, countdown, "the countdown starts below the line")
	assert.Contains(t, out, `its next probe in 1s — Ctrl-C to stop`, "it counts down")
}
