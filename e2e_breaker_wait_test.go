package main

// End-to-end tests of runs that wait out an open circuit (--when-open),
// against both stores.

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
