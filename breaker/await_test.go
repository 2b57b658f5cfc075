package breaker

// Await in virtual time (testing/synctest): a file store, the breaker on
// the bubble's clock, no real sleeping.

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bubble is a breaker in a synctest bubble, on the bubble's clock.
type bubble struct {
	b   *Breaker
	key string
	ctx context.Context
}

func newBubble(t *testing.T, cfg Config) *bubble {
	t.Helper()
	s, _ := openTestFiles(t, time.Second)
	b, err := New(s, cfg, nil, edgeRand{})
	require.NoError(t, err)
	return &bubble{b: b, key: "k", ctx: context.Background()}
}

// record runs one attempt, as a run would: Check, then Record.
func (e *bubble) record(t *testing.T, o Sample) Permit {
	t.Helper()
	p, err := e.b.Check(e.ctx, e.key, 1)
	require.NoError(t, err)
	if p.Verdict == Allow || p.Verdict == Probe {
		_, err = e.b.Record(e.ctx, p, o)
		require.NoError(t, err)
	}
	return p
}

// trip opens the circuit with failures over MinSpan, as an outage does,
// and returns when it opened.
func (e *bubble) trip(t *testing.T) time.Time {
	t.Helper()
	for i := range e.b.cfg.Min {
		if i > 0 {
			time.Sleep(e.b.cfg.MinSpan / time.Duration(e.b.cfg.Min-1))
		}
		e.record(t, Failure)
	}
	st, err := e.b.Status(e.ctx, e.key)
	require.NoError(t, err)
	require.Equal(t, Open, st.State)
	return st.OpenedAt
}

func TestAwaitWaitsOutTheCooldownAndReturnsTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		opened := e.trip(t)
		var told []Wait
		p, err := e.b.Await(e.ctx, e.key, 1, time.Now().Add(time.Minute), func(w Wait) { told = append(told, w) })
		require.NoError(t, err)
		assert.Equal(t, Probe, p.Verdict, "the first run to look after the cooldown probes")
		assert.WithinDuration(t, opened.Add(24*time.Second), time.Now(), 0, "it looked as the cooldown (30s-20%) ended, not later")
		require.Len(t, told, 1, "one line for the whole wait")
		assert.Equal(t, Open, told[0].Status.State)
		assert.WithinDuration(t, opened.Add(24*time.Second), told[0].Next, 0)
	})
}

func TestAwaitGivesUpAtOnceWhenTheDeadlineComesBeforeTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		e.trip(t)
		start := time.Now()
		p, err := e.b.Await(e.ctx, e.key, 1, start.Add(10*time.Second), func(Wait) { t.Error("no wait to tell of") })
		require.NoError(t, err)
		assert.Equal(t, Reject, p.Verdict)
		assert.WithinDuration(t, start, time.Now(), 0, "no time spent waiting for a probe past the deadline")
	})
}

func TestAwaitPollsWhileAnotherRunProbesAndGoesOnWhenItCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		e.trip(t)
		time.Sleep(24 * time.Second)
		prober, err := e.b.Check(e.ctx, e.key, 1)
		require.NoError(t, err)
		require.Equal(t, Probe, prober.Verdict)

		done := make(chan Permit)
		var told []Wait
		go func() {
			p, err := e.b.Await(e.ctx, e.key, 1, time.Time{}, func(w Wait) { told = append(told, w) })
			assert.NoError(t, err)
			done <- p
		}()
		time.Sleep(3 * time.Second) // the probe takes 3s
		synctest.Wait()
		_, err = e.b.Record(e.ctx, prober, Success)
		require.NoError(t, err)
		closed := time.Now()
		p := <-done
		assert.Equal(t, Allow, p.Verdict)
		assert.Less(t, time.Since(closed), PollInterval, "it saw the close within one poll")
		require.Len(t, told, 1, "one line, not one per poll")
		assert.True(t, told[0].Status.Probing)
	})
}

func TestAwaitEndsAtOnceWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		e.trip(t)
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error)
		go func() {
			_, err := e.b.Await(ctx, e.key, 1, time.Time{}, nil)
			done <- err
		}()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		cancel()
		start := time.Now()
		assert.ErrorIs(t, <-done, context.Canceled)
		assert.WithinDuration(t, start, time.Now(), 0)
	})
}

func TestAwaitTellsItIsStillWaitingAtLeastOnceAMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := fixedCooldown()
		cfg.FirstCooldown, cfg.Cooldown = 5*time.Minute, 5*time.Minute
		e := newBubble(t, cfg)
		e.trip(t)
		var at []time.Time
		_, err := e.b.Await(e.ctx, e.key, 1, time.Time{}, func(Wait) { at = append(at, time.Now()) })
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(at), 4, "a 4-minute wait")
		for i := 1; i < len(at); i++ {
			assert.LessOrEqual(t, at[i].Sub(at[i-1]), NotifyInterval)
		}
	})
}

func TestAwaitWaitsForTheRetryBudgetToRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := fixedCooldown()
		cfg.Min = 1000 // the circuit stays closed: this is about the budget
		e := newBubble(t, cfg)
		for range 10 {
			e.record(t, Failure)
		}
		start := time.Now()
		var told []Wait
		p, err := e.b.Await(e.ctx, e.key, 2, start.Add(time.Minute), func(w Wait) { told = append(told, w) })
		require.NoError(t, err)
		assert.Equal(t, Allow, p.Verdict)
		waited := time.Since(start)
		assert.GreaterOrEqual(t, waited, 5*time.Second, "10 tokens refill over 10s: half of them take 5s")
		assert.Less(t, waited, 5*time.Second+3*PollInterval)
		require.Len(t, told, 1)
		assert.True(t, told[0].Budget)

		for range 10 {
			e.record(t, Failure)
		}
		start = time.Now()
		p, err = e.b.Await(e.ctx, e.key, 2, start.Add(3*time.Second), nil)
		require.NoError(t, err)
		assert.Equal(t, NoBudget, p.Verdict, "the budget refills after the deadline: give up at once")
		assert.WithinDuration(t, start, time.Now(), 0)

		p, err = e.b.Await(e.ctx, e.key, 1, start.Add(3*time.Second), nil)
		require.NoError(t, err)
		assert.Equal(t, Allow, p.Verdict, "first attempts are never refused for budget")
	})
}

func TestRunsThatWaitedResumeSpreadOutWhenTheProbeClosesTheCircuit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		e.trip(t)
		time.Sleep(24 * time.Second)
		prober, err := e.b.Check(e.ctx, e.key, 1)
		require.NoError(t, err)
		require.Equal(t, Probe, prober.Verdict)

		const runs = 40
		resumed := make(chan time.Time, runs)
		for range runs {
			go func() {
				p, err := e.b.Await(e.ctx, e.key, 1, time.Time{}, nil)
				assert.NoError(t, err)
				assert.Equal(t, Allow, p.Verdict)
				resumed <- time.Now()
			}()
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Empty(t, resumed, "nobody goes while the probe is out")
		_, err = e.b.Record(e.ctx, prober, Success)
		require.NoError(t, err)
		closed := time.Now()

		var offsets []time.Duration
		for range runs {
			offsets = append(offsets, (<-resumed).Sub(closed))
		}
		// Each run sees the close at its next look (within 0.75s), then
		// goes at its slot: rampOffset(k) after the close, or at once
		// when that has passed.
		for _, d := range offsets {
			assert.GreaterOrEqual(t, d, time.Duration(0))
		}
		assert.LessOrEqual(t, slices.Max(offsets), rampOffset(runs-1)+time.Millisecond, "the last slot, and no later")
		inFirstSecond := 0
		for _, d := range offsets {
			if d < time.Second {
				inFirstSecond++
			}
		}
		assert.LessOrEqual(t, inFirstSecond, 12, "8 a second at first (and the ramp's first slot)")
		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.Equal(t, Closed, st.State)
	})
}

func TestStatusCountsTheRunsWaitingAndForgetsThemWhenTheyStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newBubble(t, fixedCooldown())
		e.trip(t)
		ctx, cancel := context.WithCancel(e.ctx)
		const runs = 5
		done := make(chan struct{}, runs)
		for range runs {
			go func() {
				_, _ = e.b.Await(ctx, e.key, 1, time.Time{}, nil)
				done <- struct{}{}
			}()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.Equal(t, runs, st.Waiting)

		cancel() // a signal: each run drops its lease as it stops
		for range runs {
			<-done
		}
		st, err = e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.Zero(t, st.Waiting)
	})
}

func TestALeaseLeftByARunThatDiedLapsesByItself(t *testing.T) {
	t.Parallel()
	c := lease(circuit{Key: "k"}, t0, time.Time{}, t0.Add(2*time.Minute))
	c = lease(c, t0, time.Time{}, t0.Add(time.Minute))
	assert.Equal(t, 2, waiting(c, t0))
	assert.Equal(t, 1, waiting(c, t0.Add(90*time.Second)))
	c = lease(c, t0.Add(90*time.Second), t0.Add(2*time.Minute), t0.Add(4*time.Minute))
	assert.Equal(t, []int64{t0.Add(4 * time.Minute).UnixMilli()}, c.Waiters, "renewed, and the lapsed lease dropped")
	assert.Zero(t, waiting(c, t0.Add(time.Hour)))
}
