package main

// End-to-end tests of classification: exit-code rules, output patterns,
// presets and Retry-After hints, with real processes.

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTool writes an executable script named name into a new directory and
// returns an environment whose PATH finds it first.
func fakeTool(t *testing.T, name, script string) []string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	return []string{"PATH=" + dir + ":" + os.Getenv("PATH")}
}

func TestARateLimitIsRetriedInTheSlowPhaseNotAtOnce(t *testing.T) {
	t.Parallel()
	// A 429 retried a millisecond later is refused again: the first retry
	// after a rate limit waits as the slow phase does.
	r := retry(t, nil, "-n", "2", "--slow-delay", "200ms", "--jitter", "none", "--",
		"sh", "-c", `echo "urllib.error.HTTPError: HTTP Error 429: Too Many Requests" >&2; exit 1`)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "retrying in 200ms (slow phase, as the server asked to slow down)")
	assert.GreaterOrEqual(t, r.elapsed, 200*time.Millisecond)

	r = retry(t, nil, "-n", "2", "--slow-delay", "200ms", "--jitter", "none", "--",
		"sh", "-c", `echo "urllib.error.HTTPError: HTTP Error 503: Service Unavailable" >&2; exit 1`)
	assert.Contains(t, r.stderr, "(fast phase)", "a 503 may be a blip: retried at once")
}

func TestScannedOutputPassesThroughAsItArrives(t *testing.T) {
	t.Parallel()
	// The child writes a progress update without a line end, then waits
	// for us: we must see it before the child goes on.
	c := exec.Command(retryBin, "-n", "1", "--retry-if", "never", "--", "sh", "-c", `printf 'progress 50%%\r' >&2; read x; printf 'done\n' >&2`)
	c.Env = cleanEnv()
	stdin, err := c.StdinPipe()
	require.NoError(t, err)
	stderr, err := c.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, c.Start())
	defer func() { _ = c.Process.Kill() }()
	got := make([]byte, len("progress 50%\r"))
	_, err = io.ReadFull(stderr, got)
	require.NoError(t, err)
	assert.Equal(t, "progress 50%\r", string(got), "byte for byte, before any line end")
	_, err = stdin.Write([]byte("go\n"))
	require.NoError(t, err)
	rest, err := io.ReadAll(bufio.NewReader(stderr))
	require.NoError(t, err)
	assert.Equal(t, "done\n", string(rest))
	require.NoError(t, c.Wait())
}

func TestScanningKeepsATerminalOnStderr(t *testing.T) {
	// With a pattern of one's own, and by default, where the signatures
	// read stderr.
	for _, args := range [][]string{{"--retry-if", "never"}, nil} {
		c, _, output, done := ptyRetry(t, append(args, "--", "sh", "-c", `[ -t 2 ] && echo "stderr is a terminal" >&2; exit 0`)...)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("retry did not exit")
		}
		assert.Equal(t, 0, c.ProcessState.ExitCode(), args)
		awaitOutput(t, output, "stderr is a terminal")
	}
}
