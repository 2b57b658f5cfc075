package main

// End-to-end tests of classification: exit-code rules, output patterns,
// presets and Retry-After hints, with real processes.

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

func TestExitCodeRulesDecideWhatIsRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		attempts string
		rule     string
	}{
		{"listed code is retried", []string{"--retry-on-exit", "3,10-12", "--", "sh", "-c", "exit 11"}, "after 3 attempts", "(transient: --retry-on-exit 10-12)"},
		{"unlisted code stops (allow-list)", []string{"--retry-on-exit", "3", "--", "sh", "-c", "exit 4"}, "after 1 attempt", "exit 4 (terminal"},
		{"stop rule stops", []string{"--stop-on-exit", "1", "--", "sh", "-c", "exit 1"}, "after 1 attempt", "exit 1 (terminal: --stop-on-exit 1)"},
		{"stop beats retry", []string{"--retry-on-exit", "1", "--stop-on-exit", "1", "--", "sh", "-c", "exit 1"}, "after 1 attempt", "--stop-on-exit 1"},
		{"signal by name", []string{"--stop-on-exit", "SIGTERM", "--", "sh", "-c", "kill -TERM $$"}, "after 1 attempt", "killed by SIGTERM (terminal: --stop-on-exit SIGTERM)"},
		{"timeout can be stopped", []string{"-t", "100ms", "--stop-on-exit", "timeout", "--", "sleep", "10"}, "after 1 attempt", "timed out after 100ms (terminal: --stop-on-exit timeout)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := retry(t, nil, append([]string{"-n", "3", "--fast-delay", "1ms"}, tc.args...)...)
			assert.Contains(t, r.stderr, tc.attempts)
			assert.Contains(t, r.stderr, tc.rule)
		})
	}
}

func TestOutputPatternsClassifyAndShowTheLinesThatDecided(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "3", "--fast-delay", "1ms", "--retry-if", "connection reset", "--",
		"sh", "-c", `echo "fetching"; echo "error: connection reset by peer" >&2; exit 1`)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `attempt 1/3 failed: exit 1 (transient: --retry-if "connection reset"`)
	assert.Contains(t, r.stderr, `after 3 attempts`)
	assert.Contains(t, r.stderr, `; output: "error: connection reset by peer"`)
	assert.Equal(t, "fetching\nfetching\nfetching\n", r.stdout, "stdout is not touched")

	r = retry(t, nil, "-n", "3", "--retry-if", "connection reset", "--", "sh", "-c", `echo "permission denied" >&2; exit 1`)
	assert.Contains(t, r.stderr, "after 1 attempt", "allow-list: an unmatched failure is terminal")

	r = retry(t, nil, "-n", "3", "--stop-if", "(?i)denied", "--", "sh", "-c", `echo "Permission DENIED" >&2; exit 1`)
	assert.Contains(t, r.stderr, `after 1 attempt`)
	assert.Contains(t, r.stderr, `(terminal: --stop-if "(?i)denied"`)

	r = retry(t, nil, "-n", "2", "--fast-delay", "1ms", "--stop-if", "fatal", "--", "sh", "-c", `echo fatal; exit 1`)
	assert.Contains(t, r.stderr, "after 2 attempts", "stdout is not scanned by default")
	r = retry(t, nil, "-n", "2", "--stop-if", "fatal", "--match-stdout", "--", "sh", "-c", `echo fatal; exit 1`)
	assert.Contains(t, r.stderr, "after 1 attempt", "--match-stdout scans stdout too")
	assert.Equal(t, "fatal\n", r.stdout)
}

func TestRetryAfterHintSetsTheWait(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "2", "--retry-after", `Retry-After: (\S+)`, "--",
		"sh", "-c", `echo "Retry-After: 0.3" >&2; exit 1`)
	assert.Contains(t, r.stderr, "retrying in 300ms (retry-after phase)")
	assert.GreaterOrEqual(t, r.elapsed, 300*time.Millisecond)

	r = retry(t, nil, "-n", "2", "-d", "2s", "--retry-after", `Retry-After: (\S+)`, "--",
		"sh", "-c", `echo "Retry-After: 120" >&2; exit 1`)
	assert.Less(t, r.elapsed, 20*time.Second)
	assert.Contains(t, r.stderr, "the wait asked for (2m0s) would pass the 2s deadline")

	r = retry(t, nil, "-n", "2", "--retry-after-max", "1m", "--retry-after", `Retry-After: (\S+)`, "--",
		"sh", "-c", `echo "Retry-After: 3600" >&2; exit 1`)
	assert.Contains(t, r.stderr, "the wait asked for (1h0m0s) is longer than --retry-after-max")
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

func TestPresetIsChosenFromTheProgramName(t *testing.T) {
	t.Parallel()
	env := fakeTool(t, "curl", `echo "curl: (22) The requested URL returned error: $CODE" >&2; exit 22`)
	r := retry(t, append(env, "CODE=503"), "-n", "2", "--fast-delay", "1ms", "--", "curl", "-fsS", "http://example.invalid/")
	assert.Equal(t, 22, r.code)
	assert.Contains(t, r.stderr, `attempt 1/2 failed: exit 22 (transient: curl preset, "returned error: 503")`)

	r = retry(t, append(env, "CODE=404"), "-n", "2", "--", "curl", "-fsS", "http://example.invalid/")
	assert.Contains(t, r.stderr, "after 1 attempt", "a 404 never heals")
	assert.Contains(t, r.stderr, "(terminal: curl preset")

	r = retry(t, append(env, "CODE=404"), "-n", "2", "--fast-delay", "1ms", "--preset", "none", "--", "curl", "-fsS", "http://example.invalid/")
	assert.Contains(t, r.stderr, "after 2 attempts", "--preset none leaves the defaults")

	r = retry(t, append(env, "CODE=404"), "-n", "2", "--", "env", "A=1", "nice", "curl", "-fsS", "http://example.invalid/")
	assert.Contains(t, r.stderr, "(terminal: curl preset", "found through env and nice")
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

func TestStderrIsOurOwnFileOnlyWithPresetNone(t *testing.T) {
	t.Parallel()
	errFile := filepath.Join(t.TempDir(), "stderr")
	f, err := os.Create(errFile)
	require.NoError(t, err)
	defer f.Close()
	readlink := func(args ...string) string {
		t.Helper()
		c := exec.Command(retryBin, append(args, "--", "sh", "-c", "readlink /proc/self/fd/2")...)
		c.Env = cleanEnv()
		var out strings.Builder
		c.Stdout, c.Stderr = &out, f
		require.NoError(t, c.Run())
		return out.String()
	}
	// The signatures read every program's stderr, so by default it goes
	// through a pipe; --preset none turns them off, and nothing else
	// needs the bytes.
	assert.True(t, strings.HasPrefix(readlink(), "pipe:"), "signatures read stderr by default")
	assert.Equal(t, errFile+"\n", readlink("--preset", "none"), "the child's stderr is our own file")
	assert.Equal(t, errFile+"\n", readlink("--preset=none", "--retry-on-exit", "1"), "exit rules need no output")
	assert.True(t, strings.HasPrefix(readlink("--preset", "none", "--retry-if", "x"), "pipe:"), "an output rule needs a pipe")
}

func TestSignaturesJudgeAProgramWithoutAPreset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script, attempts, rule string
	}{
		{"a 404 from gh is never retried", `echo 'HTTP 404: Not Found (https://api.github.com/repos/o/r/releases/tags/v9)' >&2; exit 1`,
			"after 1 attempt", `(terminal: signature "HTTP 404")`},
		{"a refused password is never retried", `echo 'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "app"' >&2; exit 2`,
			"after 1 attempt", `(terminal: signature "password authentication failed")`},
		{"a refused connection is retried", `echo 'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: Connection refused' >&2; exit 2`,
			"after 2 attempts", `(transient: signature "Connection refused")`},
		{"a rate-limit 403 is retried", `echo 'HTTP 403: API rate limit exceeded for 203.0.113.7.' >&2; exit 1`,
			"after 2 attempts", `(transient: signature "rate limit")`},
		{"a traceback is judged by its last error", `printf 'WARNING: connection reset, retrying\nTraceback (most recent call last):\n  File "x.py", line 3, in <module>\nurllib.error.HTTPError: HTTP Error 401: Unauthorized\n' >&2; exit 1`,
			"after 1 attempt", `(terminal: signature "HTTP Error 401")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeTool(t, "tool", tc.script)
			r := retry(t, env, "-n", "2", "--fast-delay", "1ms", "--", "tool")
			assert.Contains(t, r.stderr, tc.attempts)
			assert.Contains(t, r.stderr, tc.rule)

			r = retry(t, env, "-n", "2", "--fast-delay", "1ms", "--preset", "none", "--", "tool")
			assert.Contains(t, r.stderr, "after 2 attempts", "--preset none turns the signatures off")
		})
	}
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

func TestPresetsListsTheSignaturesAndTakesAProgramName(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "presets")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^signatures\s+\*\s+every program`, r.stdout)
	assert.Regexp(t, `(?m)^gh\s+gh\s`, r.stdout)

	helm := retry(t, nil, "presets", "helm")
	require.Equal(t, 0, helm.code, helm.stderr)
	kubectl := retry(t, nil, "presets", "kubectl")
	assert.Equal(t, kubectl.stdout, helm.stdout, "helm is covered by the kubectl preset")

	sigs := retry(t, nil, "presets", "signatures")
	require.Equal(t, 0, sigs.code, sigs.stderr)
	assert.Contains(t, sigs.stdout, "last-error")
	assert.Contains(t, sigs.stdout, "sure: certificate not trusted")

	bad := retry(t, nil, "presets", "nope")
	assert.Equal(t, 125, bad.code)
	assert.Equal(t, 1, len(bad.lines(t)), bad.stderr)
	assert.Contains(t, bad.stderr, `a program a preset covers such as helm, or signatures`)
}

func TestPlanSaysWhenTheSignaturesApply(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "plan", "--", "mytool")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "  signatures: ")
	r = retry(t, nil, "plan", "--preset", "none", "--", "mytool")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "signatures")
}
