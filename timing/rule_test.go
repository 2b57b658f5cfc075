package timing

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func histogramOf(ds ...time.Duration) Histogram {
	var h Histogram
	for _, d := range ds {
		h.Add(d)
	}
	return h
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func TestNoLearnedLimitBeforeMinSamples(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	l := r.Learn(histogramOf(repeat(2*time.Second, 19)...))
	assert.False(t, l.Ready)
	assert.Zero(t, l.Limit)
	assert.Equal(t, int64(19), l.N)
	assert.Equal(t, Upper(Bucket(2*time.Second)), l.P99, "figures are shown before they are used")
	l = r.Learn(histogramOf(repeat(2*time.Second, 20)...))
	assert.True(t, l.Ready)
	assert.Equal(t, 3*Upper(Bucket(2*time.Second)), l.Limit)
}

func TestLearnedLimitIsThreeTimesP99AtLeastASecond(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	for _, tc := range []struct {
		name string
		d    time.Duration
		want time.Duration
	}{
		{"a 20ms command gets the floor", 20 * time.Millisecond, time.Second},
		{"a 300ms command gets the floor", 300 * time.Millisecond, time.Second},
		{"a 1.4s command gets 3 × p99", 1400 * time.Millisecond, 3 * Upper(Bucket(1400*time.Millisecond))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := r.Learn(histogramOf(repeat(tc.d, 50)...))
			assert.Equal(t, tc.want, l.Limit)
		})
	}
}

func TestEscalateDoublesAndSaturates(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 2*time.Second, Escalate(time.Second))
	assert.Equal(t, maxDuration, Escalate(maxDuration/2+1))
	assert.Equal(t, maxDuration, Escalate(maxDuration))
}

// attempt simulates one run of a command that takes d (or hangs) under the
// learned limit: it returns how long the run took and whether the limit
// stopped a normal (not hung) attempt. Attempts escalate as runs do.
func simulate(r Rule, h *Histogram, d time.Duration, hangFirst bool, attempts int) (took time.Duration, falseTimeout, ok bool) {
	limit := r.Learn(*h).Limit
	for n := 1; n <= attempts; n++ {
		hung := hangFirst && n == 1
		if limit > 0 && (hung || d > limit) {
			took += limit
			if !hung {
				falseTimeout = true
			}
			limit = Escalate(limit)
			continue
		}
		if hung {
			return took + time.Hour, falseTimeout, false
		}
		h.Add(d)
		return took + d, falseTimeout, true
	}
	return took, falseTimeout, false
}

func TestHangsAreCutNearTheFloorAndNormalRunsNeverTimeOut(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	rnd := rand.New(rand.NewPCG(5, 6))
	normal := func() time.Duration {
		return 100*time.Millisecond + time.Duration(rnd.Int64N(int64(200*time.Millisecond)))
	}
	var h Histogram
	for range 30 {
		_, falseTimeout, ok := simulate(r, &h, normal(), false, 5)
		require.True(t, ok)
		require.False(t, falseTimeout)
	}
	hangs := 0
	for i := range 100 {
		hang := rnd.IntN(20) == 0
		took, falseTimeout, ok := simulate(r, &h, normal(), hang, 5)
		require.True(t, ok, "run %d", i)
		assert.False(t, falseTimeout, "run %d", i)
		assert.Less(t, took, 1500*time.Millisecond, "run %d: a hung first attempt costs the 1s floor", i)
		if hang {
			hangs++
		}
	}
	assert.Positive(t, hangs)
}

func TestACommandThatDoublesOverFiftyRunsIsNeverStopped(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	for _, base := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond, 10 * time.Second, time.Hour} {
		var h Histogram
		for range 20 {
			h.Add(base)
		}
		for i := range 50 {
			d := time.Duration(float64(base) * float64(i+1) / 50 * 2)
			d = max(d, base) // doubles, linearly, over 50 runs
			_, falseTimeout, ok := simulate(r, &h, d, false, 1)
			require.True(t, ok, "base %v run %d (%v)", base, i, d)
			require.False(t, falseTimeout)
		}
	}
}

func TestACommandThatGotFiveTimesSlowerGetsThroughAndIsLearned(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	var h Histogram
	for range 100 {
		h.Add(2 * time.Second)
	}
	// 3 × p99 is about 6.5s; the command now takes 10s: the first attempt
	// is stopped, the second (13s) gets through.
	_, falseTimeout, ok := simulate(r, &h, 10*time.Second, false, 2)
	assert.True(t, ok)
	assert.True(t, falseTimeout)
	// One 10s success among ~100 weights is over 1%: p99 has moved, and
	// the next run passes on its first attempt.
	_, falseTimeout, ok = simulate(r, &h, 10*time.Second, false, 1)
	assert.True(t, ok)
	assert.False(t, falseTimeout)
}
