package cmd

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/breaker"
)

// handOffs records the hand-offs a run asked for, and what it had
// printed by the first one.
type handOffs struct {
	calls       int
	printedThen int64
}

// deps makes adjust for runFakedWith: a build without a Redis client whose
// hand-off fails, as it does with no retry-redis beside retry.
func (h *handOffs) deps(d *Deps) {
	stderr := d.Stderr
	d.HandOff = func() error {
		if h.calls == 0 {
			st, err := stderr.Stat()
			if err == nil {
				h.printedThen = st.Size()
			}
		}
		h.calls++
		return errors.New("install retry-redis beside retry")
	}
}

func TestRedisStateIsHandedOffBeforeAnythingIsSaid(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"breaker":    {"--breaker", "k", "--state", "redis://127.0.0.1:1/0"},
		"run budget": {"--run-budget", "3", "--run-id", "r1", "--state", "rediss://127.0.0.1:1/0"},
		"timeout":    {"--timeout", "auto,1m", "--state", "redis://127.0.0.1:1/0"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var h handOffs
			// RETRY_ATTEMPT makes the run warn that it runs inside another
			// retry: a line that must not come before the hand-off.
			r := runFakedWith(t, fake(exits(0)), []string{"RETRY_ATTEMPT=2"}, h.deps, append(args, "--", "prog")...)
			assert.Equal(t, 0, r.code, r.stderr)
			require.GreaterOrEqual(t, h.calls, 1, "the run was handed off")
			assert.Zero(t, h.printedThen, "nothing was printed before the hand-off")
			assert.Contains(t, r.stderr, "install retry-redis beside retry", "a failed hand-off says what to install")
		})
	}
}

func TestRedisStateFromTheEnvironmentIsHandedOffToo(t *testing.T) {
	t.Parallel()
	var h handOffs
	r := runFakedWith(t, fake(exits(0)), []string{"RETRY_STATE=redis://127.0.0.1:1/0"}, h.deps, "--breaker", "k", "--", "prog")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.GreaterOrEqual(t, h.calls, 1)
}

func TestFileStateAndRunsWithoutStateAreNeverHandedOff(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"file state":    {"--breaker", "k", "--state", "DIR"},
		"no state used": {"--state", "redis://127.0.0.1:1/0"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var h handOffs
			dir := t.TempDir()
			for i, a := range args {
				if a == "DIR" {
					args[i] = dir
				}
			}
			r := runFakedWith(t, fake(exits(0)), nil, h.deps, append(args, "--", "prog")...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Zero(t, h.calls, "handed off")
			assert.NotContains(t, r.stderr, "warning")
		})
	}
}

func TestTheRedisBuildOpensRedisItselfAndNeverHandsOff(t *testing.T) {
	t.Parallel()
	var h handOffs
	dialed := ""
	r := runFakedWith(t, fake(exits(0)), nil, func(d *Deps) {
		h.deps(d)
		d.HandOff = nil // as retry-redis has it
		d.Redis = func(url string, timeout time.Duration) (breaker.RedisClient, error) {
			dialed = url
			return nil, errors.New("dial refused")
		}
	}, "--breaker", "k", "--state", "redis://127.0.0.1:1/0", "--", "prog")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "redis://127.0.0.1:1/0", dialed)
	assert.Zero(t, h.calls)
	assert.Contains(t, r.stderr, "dial refused")
	assert.NotContains(t, r.stderr, "no Redis client")
}

func TestSubcommandsHandRedisStateOffAndSayWhatToInstall(t *testing.T) {
	t.Parallel()
	var h handOffs
	r := runFakedWith(t, fake(exits(0)), nil, h.deps, "breaker", "status", "k", "--state", "redis://127.0.0.1:1/0")
	assert.Equal(t, 125, r.code, r.stderr)
	assert.Equal(t, 1, h.calls)
	assert.Contains(t, r.stderr, "--state")
	assert.Contains(t, r.stderr, "install retry-redis beside retry")
}

func TestCompletionNeverHandsOff(t *testing.T) {
	t.Parallel()
	var h handOffs
	d := Deps{Env: []string{"RETRY_STATE=redis://127.0.0.1:1/0"}, Stderr: os.Stderr}
	h.deps(&d)
	assert.Empty(t, breakerKeys(d))
	assert.Zero(t, h.calls)
}

func TestTheHandOffIsTriedOnceAndNotAfterASignalWasCaught(t *testing.T) {
	t.Parallel()
	calls := 0
	handOff := func() error { calls++; return errors.New("no retry-redis") }
	caught := syscall.Signal(0)
	once := handOffOnce(handOff, func() syscall.Signal { return caught })
	require.EqualError(t, once(), "no retry-redis")
	require.EqualError(t, once(), "no retry-redis", "a later call says the same")
	assert.Equal(t, 1, calls, "the exec is tried once")

	calls, caught = 0, syscall.SIGTERM
	err := handOffOnce(handOff, func() syscall.Signal { return caught })()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "interrupted by SIGTERM")
	assert.Zero(t, calls, "an exec would lose the signal")
	assert.Nil(t, handOffOnce(nil, nil), "no hand-off stays none")
}

func TestARunWithBreakerAndLearnedTimeoutInRedisTriesTheHandOffOnce(t *testing.T) {
	t.Parallel()
	var h handOffs
	r := runFakedWith(t, fake(exits(0)), nil, h.deps, "--breaker", "k", "--timeout", "auto,1m", "--state", "redis://127.0.0.1:1/0", "--", "prog")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, h.calls)
}

func TestSubcommandErrorsHideTheRedisPassword(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"breaker", "status", "k", "--state", "redis://:hunter2@127.0.0.1:1/0"},
		{"timing", "list", "--state", "redis://:hunter2@127.0.0.1:1/0"},
	} {
		var h handOffs
		r := runFakedWith(t, fake(exits(0)), nil, h.deps, args...)
		assert.Equal(t, 125, r.code, r.stderr)
		assert.NotContains(t, r.stderr, "hunter2", args[0])
		assert.Contains(t, r.stderr, "redis://:xxxxx@127.0.0.1:1/0", args[0])
	}
}
