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

// stepClock makes relay's clock advance by step at each reading, so that
// signals delivered one after another count as sent apart, not as one
// delivered twice.
func stepClock(relay *Relay, step time.Duration) {
	at := time.Unix(1e9, 0)
	relay.mu.Lock()
	defer relay.mu.Unlock()
	relay.now = func() time.Time {
		at = at.Add(step)
		return at
	}
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
		stepClock(relay, time.Second)
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
	stepClock(relay, time.Second)
	relay.Deliver(syscall.SIGTERM)
	relay.Deliver(syscall.SIGTERM)
	target := &recorder{}
	relay.Attach(target)
	assert.Equal(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL}, target.signals())
}

// timeout(1) sends its signal to its child and to its own process group:
// retry under it gets the one SIGTERM twice, microseconds apart, which
// must not read as a second one. Before, it killed the attempt's group at
// once, skipping --kill-after, in 8 runs of 20 (a new user's session).
func TestTheSameSignalTwiceInOneInstantIsOneSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		_, relay := Listen(context.Background(), nil)
		stepClock(relay, time.Millisecond)
		target := &recorder{}
		relay.Attach(target)
		relay.Deliver(sig)
		relay.Deliver(sig)
		assert.Equal(t, []syscall.Signal{sig}, target.signals(), "forwarded once, no SIGKILL")
		stepClock(relay, time.Second)
		relay.Deliver(sig)
		assert.Equal(t, []syscall.Signal{sig, syscall.SIGKILL}, target.signals(), "sent again later: a second one")
		relay.Stop()
	}
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

// A real signal to the process is caught and forwarded as soon as Listen
// has returned.
func TestRealSignalToTheProcessIsCaught(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, relay := Listen(context.Background(), nil)
			defer relay.Stop()
			target := &recorder{}
			relay.Attach(target)

			require.NoError(t, syscall.Kill(os.Getpid(), sig))
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v did not cancel the context", sig)
			}
			assert.Equal(t, sig, relay.Received())
			assert.Equal(t, []syscall.Signal{sig}, target.signals())
		})
	}
}

// Stopping a relay right after Listen gives the signals their default
// actions back and leaves no channel of the relay's registered: the next
// signal neither panics the process on a closed channel nor is lost.
func TestStopRightAfterListenLeavesNothingCaught(t *testing.T) {
	for range 20 {
		_, relay := Listen(context.Background(), []os.Signal{syscall.SIGHUP})
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

// SIGUSR1 and SIGUSR2 go to the attached target from the first Attach on,
// and neither cancel the run nor count as received.
func TestUserSignalsArePassedOnOnceAnAttemptIsAttached(t *testing.T) {
	ctx, relay := Listen(context.Background(), nil)
	defer relay.Stop()
	relay.PassOn(PassedOn())
	target := &recorder{}
	detach := relay.Attach(target)
	defer detach()
	require.Eventually(t, func() bool {
		_ = syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		return len(target.signals()) > 0
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, syscall.SIGUSR1, target.signals()[0])
	assert.NoError(t, ctx.Err(), "the run goes on")
	assert.Equal(t, syscall.Signal(0), relay.Received())
}
