package timing

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func recordOf(ds ...time.Duration) Record {
	var r Record
	for _, d := range ds {
		r.Histogram.Add(d)
	}
	return r
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
	l := r.Learn(recordOf(repeat(2*time.Second, 19)...))
	assert.False(t, l.Ready)
	assert.Zero(t, l.Limit)
	assert.Equal(t, int64(19), l.N)
	assert.Equal(t, Upper(Bucket(2*time.Second)), l.P99, "figures are shown before they are used")
	l = r.Learn(recordOf(repeat(2*time.Second, 20)...))
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
			l := r.Learn(recordOf(repeat(tc.d, 50)...))
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

// simulate runs a command that takes d (or whose first attempt hangs)
// under the learned limit, as cmd does: each attempt stopped at the limit
// doubles the next one's; a success is learned and clears the record's
// doublings, a run that never succeeded leaves one more per stop. It
// returns how long the run took and whether a normal attempt was stopped.
func simulate(r Rule, rec *Record, d time.Duration, hangFirst bool, attempts int) (took time.Duration, falseTimeout, ok bool) {
	limit := r.Learn(*rec).Limit
	stops := 0
	for n := 1; n <= attempts; n++ {
		hung := hangFirst && n == 1
		if limit > 0 && (hung || d > limit) {
			took += limit
			stops++
			if !hung {
				falseTimeout = true
			}
			limit = Escalate(limit)
			continue
		}
		if hung {
			return took + time.Hour, falseTimeout, false
		}
		rec.Histogram.Add(d)
		rec.Doublings = 0
		return took + d, falseTimeout, true
	}
	rec.Doublings = min(rec.Doublings+stops, MaxDoublings)
	return took, falseTimeout, false
}

func TestHangsAreCutNearTheFloorAndNormalRunsNeverTimeOut(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	rnd := rand.New(rand.NewPCG(5, 6))
	normal := func() time.Duration {
		return 100*time.Millisecond + time.Duration(rnd.Int64N(int64(200*time.Millisecond)))
	}
	var h Record
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
		var h Record
		for range 20 {
			h.Histogram.Add(base)
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
	var h Record
	for range 100 {
		h.Histogram.Add(2 * time.Second)
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

func TestWithOneAttemptARunThatGotSlowerFailsOnceThenGetsThrough(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	var h Record
	for range 100 {
		h.Histogram.Add(2 * time.Second)
	}
	// 3 × p99 is about 6.5s; the command now takes 20s and each run makes
	// one attempt: the runs fail at 6.5s, 13s, then one passes at 26s.
	var fails int
	for run := 1; ; run++ {
		require.LessOrEqual(t, run, 5, "never stopped forever")
		_, _, ok := simulate(r, &h, 20*time.Second, false, 1)
		if ok {
			break
		}
		fails++
	}
	assert.Equal(t, 2, fails)
	assert.Zero(t, h.Doublings, "a success clears the doublings")
	_, falseTimeout, ok := simulate(r, &h, 20*time.Second, false, 1)
	assert.True(t, ok, "learned: the next run passes at once")
	assert.False(t, falseTimeout)
}

func TestARunStoppedAtTheLimitDoublesTheNextRunsLimitUpToACap(t *testing.T) {
	t.Parallel()
	r := DefaultRule()
	rec := recordOf(repeat(2*time.Second, 30)...)
	base := r.Learn(rec).Limit
	rec.Doublings = 3
	assert.Equal(t, 8*base, r.Learn(rec).Limit)
	assert.Equal(t, 3, r.Learn(rec).Doublings)
	data, err := Encode(rec)
	require.NoError(t, err)
	data, err = Stopped(data, rec.Key, 100)
	require.NoError(t, err)
	got, err := Decode(data, rec.Key)
	require.NoError(t, err)
	assert.Equal(t, MaxDoublings, got.Doublings)
	assert.Equal(t, 256*base, r.Learn(got).Limit)
	data, err = Observe(data, rec.Key, 2*time.Second, time.Time{})
	require.NoError(t, err)
	got, err = Decode(data, rec.Key)
	require.NoError(t, err)
	assert.Zero(t, got.Doublings)
}
