package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

func TestDefaultBoundsDoubleWithinEachPhaseAndStopAtTheCap(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	want := []struct {
		phase Phase
		bound time.Duration
	}{
		{Fast, 50 * time.Millisecond},  // after attempt 1
		{Fast, 100 * time.Millisecond}, // after attempt 2
		{Slow, 2 * time.Second},        // the slow phase starts again from its base
		{Slow, 4 * time.Second},
		{Slow, 8 * time.Second},
		{Slow, 16 * time.Second},
		{Slow, 30 * time.Second}, // capped
		{Slow, 30 * time.Second},
	}
	for i, w := range want {
		phase, bound := p.Bound(i + 1)
		assert.Equal(t, w.phase, phase, "phase after attempt %d", i+1)
		assert.Equal(t, w.bound, bound, "bound after attempt %d", i+1)
	}
}

func TestFastPhaseCapAppliesBeforeTheSlowPhase(t *testing.T) {
	t.Parallel()
	p := Policy{Fast: 5, FastDelay: 50 * time.Millisecond, FastMax: 200 * time.Millisecond}
	var bounds []time.Duration
	for a := 1; a <= 5; a++ {
		_, b := p.Bound(a)
		bounds = append(bounds, b)
	}
	assert.Equal(t, []time.Duration{50e6, 100e6, 200e6, 200e6, 200e6}, bounds)
}

func TestBoundNeverOverflowsAfterManyAttempts(t *testing.T) {
	t.Parallel()
	p := Policy{SlowDelay: time.Hour, SlowMax: time.Duration(math.MaxInt64)}
	for _, a := range []int{1, 30, 62, 63, 64, 1000, math.MaxInt32} {
		_, b := p.Bound(a)
		assert.Positive(t, b, "attempt %d", a)
	}
	p = Policy{SlowDelay: 3, SlowMax: time.Duration(math.MaxInt64)}
	_, b := p.Bound(100)
	assert.Equal(t, time.Duration(math.MaxInt64), b)
}

func TestMaxBelowDelayCapsTheFirstWait(t *testing.T) {
	t.Parallel()
	p := Policy{SlowDelay: time.Second, SlowMax: 100 * time.Millisecond}
	_, b := p.Bound(1)
	assert.Equal(t, 100*time.Millisecond, b)
}

func TestFullJitterStaysWithinZeroAndTheBound(t *testing.T) {
	t.Parallel()
	p := Default()
	r := seeded(1)
	var sawLow, sawHigh bool
	for i := 0; i < 10000; i++ {
		d := p.Next(Input{Attempt: 3}, r) // first slow retry: bound 2s
		require.True(t, d.Retry)
		require.GreaterOrEqual(t, d.Wait, time.Duration(0))
		require.LessOrEqual(t, d.Wait, 2*time.Second)
		sawLow = sawLow || d.Wait < 200*time.Millisecond
		sawHigh = sawHigh || d.Wait > 1800*time.Millisecond
	}
	assert.True(t, sawLow && sawHigh, "full jitter spreads over the whole range")
}

func TestEqualJitterStaysInTheUpperHalf(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Jitter = EqualJitter
	r := seeded(2)
	for i := 0; i < 10000; i++ {
		d := p.Next(Input{Attempt: 3}, r)
		require.GreaterOrEqual(t, d.Wait, time.Second)
		require.LessOrEqual(t, d.Wait, 2*time.Second)
	}
}

func TestNoJitterWaitsExactlyTheBound(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Jitter = NoJitter
	for a, want := range map[int]time.Duration{1: 50e6, 2: 100e6, 3: 2e9, 4: 4e9} {
		d := p.Next(Input{Attempt: a}, seeded(3))
		assert.Equal(t, want, d.Wait, "after attempt %d", a)
	}
}

func TestSameSeedGivesSameWaits(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	draw := func(seed uint64) []time.Duration {
		r := seeded(seed)
		var w []time.Duration
		for a := 1; a <= 8; a++ {
			w = append(w, p.Next(Input{Attempt: a}, r).Wait)
		}
		return w
	}
	assert.Equal(t, draw(42), draw(42))
	assert.NotEqual(t, draw(42), draw(43))
}

func TestNoWaitAfterTheLastAttempt(t *testing.T) {
	t.Parallel()
	p := Default()
	d := p.Next(Input{Attempt: 5}, seeded(1))
	assert.False(t, d.Retry)
	assert.Equal(t, Exhausted, d.Stop)
	assert.Zero(t, d.Wait)

	d = p.Next(Input{Attempt: 4}, seeded(1))
	assert.True(t, d.Retry, "attempt 4 of 5 is followed by a wait")
}

func TestZeroAttemptsMeansNoCountLimit(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	d := p.Next(Input{Attempt: 1_000_000}, seeded(1))
	assert.True(t, d.Retry)
	assert.Equal(t, 30*time.Second, d.Bound)
}

func TestWaitThatWouldEndAtOrPastTheDeadlineStops(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Jitter = NoJitter
	p.Deadline = 10 * time.Second
	for _, tc := range []struct {
		name    string
		elapsed time.Duration
		retry   bool
	}{
		{"wait ends before the deadline", 7999 * time.Millisecond, true},
		{"wait ends exactly at the deadline", 8 * time.Second, false},
		{"wait ends after the deadline", 9 * time.Second, false},
		{"deadline already passed", 11 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Next(Input{Attempt: 3, Elapsed: tc.elapsed}, seeded(1)) // wait 2s
			assert.Equal(t, tc.retry, d.Retry)
			if !tc.retry {
				assert.Equal(t, WaitPastDeadline, d.Stop)
				assert.Equal(t, 2*time.Second, d.Wait, "the refused wait is reported")
			}
		})
	}
}

func TestHintReplacesTheComputedWait(t *testing.T) {
	t.Parallel()
	p := Default()
	d := p.Next(Input{Attempt: 1, Hint: 7 * time.Second, HasHint: true}, seeded(1))
	assert.True(t, d.Retry)
	assert.Equal(t, Hint, d.Phase)
	assert.Equal(t, 7*time.Second, d.Wait, "a hint is not capped by the fast phase")
}

func TestHintThatCannotFitBeforeTheDeadlineGivesUp(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Deadline = 10 * time.Second
	d := p.Next(Input{Attempt: 1, Elapsed: 5 * time.Second, Hint: 6 * time.Second, HasHint: true}, seeded(1))
	assert.False(t, d.Retry)
	assert.Equal(t, HintPastDeadline, d.Stop)
}

func TestNegativeHintWaitsNothing(t *testing.T) {
	t.Parallel()
	d := Default().Next(Input{Attempt: 1, Hint: -time.Second, HasHint: true}, seeded(1))
	assert.True(t, d.Retry)
	assert.Zero(t, d.Wait)
}

func TestJitterNamesRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range JitterNames() {
		j, err := ParseJitter(name)
		require.NoError(t, err)
		assert.Equal(t, name, j.String())
	}
	_, err := ParseJitter("half")
	assert.Error(t, err)
}

func TestPhaseNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "fast", Fast.String())
	assert.Equal(t, "slow", Slow.String())
	assert.Equal(t, "retry-after", Hint.String())
}

func BenchmarkNext(b *testing.B) {
	p := Default()
	p.Attempts = 0
	r := seeded(1)
	for i := 0; b.Loop(); i++ {
		p.Next(Input{Attempt: i%10 + 1}, r)
	}
}

// runSchedule feeds Next a run of failures, each having run for ran[i],
// the way the runner does (Step carried from one decision to the next),
// and returns the bounds of the waits drawn.
func runSchedule(p Policy, ran []time.Duration) ([]Phase, []time.Duration, []bool) {
	var phases []Phase
	var bounds []time.Duration
	var resets []bool
	step := 0
	var elapsed time.Duration
	for i, r := range ran {
		elapsed += r
		d := p.Next(Input{Attempt: i + 1, Elapsed: elapsed, Ran: r, Step: step + 1}, seeded(1))
		if !d.Retry {
			break
		}
		step = d.Step
		elapsed += d.Wait
		phases, bounds, resets = append(phases, d.Phase), append(bounds, d.Bound), append(resets, d.Reset)
	}
	return phases, bounds, resets
}

func TestLongAttemptStartsTheScheduleOverAtTheFastPhase(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts, p.Reset = 0, 5*time.Minute
	short, long := time.Second, 2*time.Hour
	// A worker fails fast four times (backing off into the slow phase),
	// then runs two hours before crashing: its next wait is a blip's again.
	phases, bounds, resets := runSchedule(p, []time.Duration{short, short, short, short, long, short, short})
	assert.Equal(t, []Phase{Fast, Fast, Slow, Slow, Fast, Fast, Slow}, phases)
	assert.Equal(t, []time.Duration{50e6, 100e6, 2e9, 4e9, 50e6, 100e6, 2e9}, bounds)
	assert.Equal(t, []bool{false, false, false, false, true, false, false}, resets)
}

func TestResetIsReachedAtExactlyItsDuration(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts, p.Reset = 0, time.Minute
	_, bounds, _ := runSchedule(p, []time.Duration{0, 0, 0, time.Minute - 1, time.Minute})
	assert.Equal(t, []time.Duration{50e6, 100e6, 2e9, 4e9, 50e6}, bounds, "59.999…s does not reset, 1m does")
}

func TestResetDoesNotGiveAttemptsBack(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts, p.Reset = 3, time.Second
	long := time.Hour
	_, bounds, _ := runSchedule(p, []time.Duration{long, long, long, long})
	assert.Len(t, bounds, 2, "3 attempts are 2 waits, however long each ran")
	d := p.Next(Input{Attempt: 3, Ran: long, Step: 1}, seeded(1))
	assert.Equal(t, Exhausted, d.Stop)
}

func TestWithoutResetLongAttemptsKeepBackingOff(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	_, bounds, resets := runSchedule(p, []time.Duration{time.Hour, time.Hour, time.Hour, time.Hour})
	assert.Equal(t, []time.Duration{50e6, 100e6, 2e9, 4e9}, bounds)
	assert.Equal(t, []bool{false, false, false, false}, resets)
}

func TestForeverKeepsWaitingAtTheSlowCap(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts, p.Forever = 0, true
	ran := make([]time.Duration, 10_000)
	_, bounds, _ := runSchedule(p, ran)
	require.Len(t, bounds, len(ran), "no attempt ends it")
	assert.Equal(t, 30*time.Second, bounds[len(bounds)-1], "each wait stays bounded by the slow cap")
}

func TestStepZeroMeansTheAttemptNumber(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	d := p.Next(Input{Attempt: 3}, seeded(1))
	assert.Equal(t, 3, d.Step)
	assert.Equal(t, Slow, d.Phase)
}

func TestThrottledFailureSkipsTheFastPhaseAndGoesOnFromThere(t *testing.T) {
	t.Parallel()
	p := Default()
	d := p.Next(Input{Attempt: 1, Throttled: true}, seeded(1))
	assert.Equal(t, Slow, d.Phase, "a 429 retried at once would only be refused again")
	assert.Equal(t, 2*time.Second, d.Bound)
	d = p.Next(Input{Attempt: 2, Step: d.Step + 1}, seeded(1))
	assert.Equal(t, Slow, d.Phase, "the schedule goes on from the slow phase")
	assert.Equal(t, 4*time.Second, d.Bound)
}

func TestThrottledFailureInTheSlowPhaseKeepsItsStep(t *testing.T) {
	t.Parallel()
	p := Default()
	p.Attempts = 0
	plain := p.Next(Input{Attempt: 4}, seeded(1))
	throttled := p.Next(Input{Attempt: 4, Throttled: true}, seeded(1))
	assert.Equal(t, plain, throttled, "already slow: nothing changes")
}
