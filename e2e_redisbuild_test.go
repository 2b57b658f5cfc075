package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default build has no Redis client: a run that keeps its state in
// Redis is handed to the retry-redis beside it (cmd/retry-redis), which
// testbin builds beside retryBin as an install has it.

func TestDefaultBuildHandsRedisStateToRetryRedisBesideIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := loopbackPort(t)
	redisFor(t, dir, port)
	state := fmt.Sprintf("redis://127.0.0.1:%d/0", port)

	r := runRetry(t, "", strings.NewReader("input\n"), []string{"RETRY_ATTEMPT=7"},
		"--breaker", "k", "--state", state, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", `cat; echo "$RETRY_ATTEMPT" >&2; [ -z "$RETRY_HANDED_OFF" ] || echo "mark leaked" >&2; exit 3`)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Equal(t, "input\ninput\n", r.stdout, "stdin reached retry-redis whole, and was replayed")
	assert.NotContains(t, r.stderr, "warning: state store", "retry-redis opened the store")
	assert.NotContains(t, r.stderr, "mark leaked", "the hand-off's mark is not the attempt's")
	assert.Equal(t, 1, strings.Count(r.stderr, "running inside another retry"), "a line said before the hand-off would be said twice: %s", r.stderr)
	assert.Equal(t, 2, failures(circuitIn(t, fmt.Sprintf("127.0.0.1:%d", port), "k")), "both failures are in Redis")
}

func TestDefaultBuildAloneRunsWithoutTheBreakerAndNamesRetryRedis(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "retry")
	installRetry(t, alone)
	port := loopbackPort(t) // nobody listens: it must not matter

	for _, how := range [][]string{
		{"--state", fmt.Sprintf("redis://:secret@127.0.0.1:%d/0", port)},
		{"--state", fmt.Sprintf("rediss://127.0.0.1:%d/0", port)},
	} {
		t.Run(how[1][:6], func(t *testing.T) {
			args := append(append([]string{"--breaker", "k"}, how...), "--", "echo", "ran")
			c := commandIn(alone, args...)
			r := runCmd(t, c)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "ran\n", r.stdout)
			lines := r.lines(t)
			require.Len(t, lines, 1, r.stderr)
			assert.Contains(t, lines[0], "no Redis client")
			assert.Contains(t, lines[0], "install retry-redis beside "+alone)
			assert.Contains(t, lines[0], "running without the breaker this run")
			assert.NotContains(t, r.stderr, "secret", "the password is never shown")
		})
	}
	t.Run("RETRY_STATE", func(t *testing.T) {
		c := commandIn(alone, "--breaker", "k", "--", "true")
		c.Env = append(c.Env, fmt.Sprintf("RETRY_STATE=redis://127.0.0.1:%d/0", port))
		r := runCmd(t, c)
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stderr, "install retry-redis beside")
	})
	t.Run("subcommand", func(t *testing.T) {
		r := runCmd(t, commandIn(alone, "breaker", "status", "k", "--state", fmt.Sprintf("redis://:hunter2@127.0.0.1:%d/0", port)))
		assert.Equal(t, 125, r.code, r.stderr)
		assert.Contains(t, r.stderr, "--state")
		assert.Contains(t, r.stderr, "install retry-redis beside")
		assert.NotContains(t, r.stderr, "hunter2", "the password is never shown")
	})
}

func TestARetryRedisThatIsRetryItselfIsNotHandedToForEver(t *testing.T) {
	t.Parallel()
	port := loopbackPort(t)
	for name, install := range map[string]func(dir string){
		"a link to retry": func(dir string) { require.NoError(t, os.Symlink("retry", filepath.Join(dir, "retry-redis"))) },
		"a copy of retry": func(dir string) { installRetry(t, filepath.Join(dir, "retry-redis")) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			installRetry(t, filepath.Join(dir, "retry"))
			install(dir)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, filepath.Join(dir, "retry"), "--breaker", "k", "--state", fmt.Sprintf("redis://127.0.0.1:%d/0", port), "--", "sh", "-c", `echo ran; printenv RETRY_HANDED_OFF || true`)
			c.Env = cleanEnv()
			r := runCmd(t, c)
			require.NoError(t, ctx.Err(), "the hand-off looped")
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "ran\n", r.stdout, "the command ran once, and never saw the hand-off's mark")
			lines := r.lines(t)
			require.Len(t, lines, 1, r.stderr)
			assert.Contains(t, lines[0], "has no Redis client either")
			assert.Contains(t, lines[0], "running without the breaker this run")
		})
	}
}

// commandIn is a run of the retry binary at path, with our environment
// cleaned as for retryBin.
func commandIn(path string, args ...string) *exec.Cmd {
	c := exec.Command(path, args...)
	c.Env = cleanEnv()
	return c
}

// installRetry puts retryBin at path as a hard link: a copy written here
// could not be run while a process another test forks at that moment
// still holds it open for writing (ETXTBSY).
func installRetry(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.Link(retryBin, path), "retryBin and the test's directory share a file system (both under TMPDIR)")
}
