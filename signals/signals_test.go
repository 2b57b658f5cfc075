package signals

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu  sync.Mutex
	got []syscall.Signal
}

func (r *recorder) Signal(sig syscall.Signal) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, sig)
	return nil
}

func (r *recorder) signals() []syscall.Signal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]syscall.Signal(nil), r.got...)
}

func TestFirstSignalCancelsAndIsForwarded(t *testing.T) {
	ctx, relay := Listen(context.Background(), nil)
	defer relay.Stop()
	target := &recorder{}
	detach := relay.Attach(target)
	defer detach()

	relay.Deliver(syscall.SIGTERM)
	assert.Error(t, ctx.Err(), "the run's context is cancelled")
	assert.Equal(t, syscall.SIGTERM, relay.Received())
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM}, target.signals())
}

func TestSecondInterruptKillsTheGroup(t *testing.T) {
	for _, second := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		_, relay := Listen(context.Background(), nil)
		target := &recorder{}
		relay.Attach(target)
		relay.Deliver(syscall.SIGINT)
		relay.Deliver(second)
		assert.Equal(t, []syscall.Signal{syscall.SIGINT, syscall.SIGKILL}, target.signals())
		assert.Equal(t, syscall.SIGINT, relay.Received(), "the first signal decides the exit code")
		relay.Stop()
	}
}

func TestRepeatedHangupIsForwardedAgainNotEscalated(t *testing.T) {
	_, relay := Listen(context.Background(), nil)
	defer relay.Stop()
	target := &recorder{}
	relay.Attach(target)
	relay.Deliver(syscall.SIGHUP)
	relay.Deliver(syscall.SIGQUIT)
	assert.Equal(t, []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT}, target.signals())
}

func TestSignalBeforeAttachReachesTheAttemptWhenItStarts(t *testing.T) {
	_, relay := Listen(context.Background(), nil)
	defer relay.Stop()
	relay.Deliver(syscall.SIGTERM)
	relay.Deliver(syscall.SIGTERM)
	target := &recorder{}
	relay.Attach(target)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, target.signals())
}

func TestDetachedTargetGetsNothing(t *testing.T) {
	_, relay := Listen(context.Background(), nil)
	defer relay.Stop()
	target := &recorder{}
	detach := relay.Attach(target)
	detach()
	relay.Deliver(syscall.SIGINT)
	assert.Empty(t, target.signals())
}

// A real signal to the process is caught and forwarded: after Listen,
// and after Start once Ready has returned (Start returns before the
// signals are caught).
func TestRealSignalToTheProcessIsCaught(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listen func() (context.Context, *Relay)
		sig    syscall.Signal
	}{
		{"Listen", func() (context.Context, *Relay) { return Listen(context.Background(), nil) }, syscall.SIGHUP},
		{"Start, then Ready", func() (context.Context, *Relay) {
			ctx, r := Start(context.Background(), nil)
			r.Ready()
			return ctx, r
		}, syscall.SIGTERM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, relay := tc.listen()
			defer relay.Stop()
			target := &recorder{}
			relay.Attach(target)

			require.NoError(t, syscall.Kill(os.Getpid(), tc.sig))
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v did not cancel the context", tc.sig)
			}
			assert.Equal(t, tc.sig, relay.Received())
			assert.Equal(t, []syscall.Signal{tc.sig}, target.signals())
		})
	}
}

// Stopping a relay whose catching is still under way waits for it: a
// background Notify that came after the Stop would register the channel
// Stop closed, and the next signal would panic the process (it did,
// before Stop waited).
func TestStopRightAfterStartLeavesNothingCaught(t *testing.T) {
	for range 20 {
		_, relay := Start(context.Background(), []os.Signal{syscall.SIGHUP})
		relay.Stop()
	}
	own := make(chan os.Signal, 1)
	signal.Notify(own, syscall.SIGHUP)
	defer signal.Stop(own)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	select {
	case <-own:
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP was not delivered")
	}
}
