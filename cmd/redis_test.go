package cmd

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/breaker"
	"retry/runner"
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

// A run catches signals from the start, unless it may
// be handed to retry-redis: an exec then would lose a signal caught
// before it, so such a run (and anything not a run) catches them only
// when it needs them, after the hand-off.
func TestOnlyARunThatCannotBeHandedOffCatchesSignalsFromTheStart(t *testing.T) {
	t.Parallel()
	plain := Deps{HandOff: func() error { return nil }} // the build without a Redis client
	for _, tc := range []struct {
		name  string
		deps  Deps
		env   []string
		args  []string
		early bool
	}{
		{"a run", plain, nil, []string{"-n", "3", "--", "curl", "redis.example"}, true},
		{"a run of a program named like redis", plain, nil, []string{"--", "redis-cli", "ping"}, true},
		{"a run with a directory store", plain, []string{"RETRY_STATE=/var/lib/retry"}, []string{"--breaker", "k", "--", "true"}, true},
		{"redis state on the command line", plain, nil, []string{"--state", "redis://db:6379/0", "--breaker", "k", "--", "true"}, false},
		{"redis state in one word", plain, nil, []string{"--state=rediss://db:6379/0", "--", "true"}, false},
		{"redis state before a program word", plain, nil, []string{"--state", "redis://db/0", "redis-cli"}, false},
		{"redis state from RETRY_STATE", plain, []string{"RETRY_STATE=redis://db:6379/0"}, []string{"--", "true"}, false},
		{"redis state from RETRY_OPTS", plain, []string{"RETRY_OPTS=--state redis://db/0"}, []string{"--", "true"}, false},
		{"a policy, whose file may name redis", plain, nil, []string{"-p", "ci", "--", "true"}, false},
		{"a policy from RETRY_OPTS", plain, []string{"RETRY_OPTS=-p ci"}, []string{"--", "true"}, false},
		{"redis state in the build with the client", Deps{}, nil, []string{"--state", "redis://db/0", "--", "true"}, true},
		{"a subcommand", plain, nil, []string{"breaker", "status", "k"}, false},
		{"help", plain, nil, []string{"--help"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := tc.deps
			d.Env = tc.env
			assert.Equal(t, tc.early, catchEarly(tc.args, d))
		})
	}
}

// signalOnStart sends sig to this process as it starts each attempt, as
// an attempt that signals retry the moment it runs would.
type signalOnStart struct {
	next runner.Starter
	sig  syscall.Signal
}

func (s signalOnStart) Start(ctx context.Context, c runner.Command) (runner.Process, error) {
	p, err := s.next.Start(ctx, c)
	_ = syscall.Kill(os.Getpid(), s.sig)
	return p, err
}

// A run catches its signals before it reads its command line
// (catchEarly): a signal at the attempt's start is caught and ends the run
// with its code. (Had it not been caught, SIGUSR1, which the runtime drops
// when nobody catches it, would have been lost and the attempt run its
// 10 s.)
func TestASignalAtTheFirstAttemptsStartFindsItCaught(t *testing.T) {
	t.Parallel()
	for range 20 {
		r := runFakedWith(t, nil, nil, func(d *Deps) {
			d.Starter = signalOnStart{next: fake(fakeAttempt{takes: 10 * time.Second}), sig: syscall.SIGUSR1}
			d.Signals = []os.Signal{syscall.SIGUSR1}
		}, "--", "prog")
		require.Equal(t, 128+int(syscall.SIGUSR1), r.code, r.stderr)
		require.Contains(t, r.stderr, "received SIGUSR1")
	}
}
