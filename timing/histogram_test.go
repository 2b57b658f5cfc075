package timing

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryBucketHoldsItsBoundsAndNothingPastThem(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 0, Bucket(0))
	assert.Equal(t, 0, Bucket(Base))
	for i := 1; i < Buckets; i++ {
		up := Upper(i)
		require.Greater(t, up, Upper(i-1), "bounds rise")
		assert.Equal(t, i, Bucket(up), "the upper bound of bucket %d is in it", i)
		assert.Equal(t, i, Bucket(Upper(i-1)+1), "just past bucket %d's bound is bucket %d", i-1, i)
	}
	assert.Equal(t, Buckets-1, Bucket(48*time.Hour), "past a day: the last bucket")
	assert.Equal(t, Buckets-1, Bucket(time.Duration(1<<62)))
}

func TestBucketsAreAtMostNinePercentWide(t *testing.T) {
	t.Parallel()
	for i := 1; i < Buckets; i++ {
		ratio := float64(Upper(i)) / float64(Upper(i-1))
		assert.InDelta(t, 1.0905, ratio, 0.001, "bucket %d", i)
	}
}

func TestQuantileIsNeverBelowTheTrueValueNorMoreThanABucketAbove(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		var h Histogram
		var samples []time.Duration
		n := 1 + r.IntN(60) // few enough that decay (0.99^60) barely reorders weights
		for range n {
			d := time.Duration(r.Int64N(int64(10*time.Second))) + time.Millisecond
			samples = append(samples, d)
			h.Add(d)
		}
		slices.Sort(samples)
		got, ok := h.Quantile(1)
		require.True(t, ok)
		top := samples[len(samples)-1]
		assert.GreaterOrEqual(t, got, top, "p100 of %v", samples)
		assert.LessOrEqual(t, float64(got), float64(top)*1.0906+1, "p100 of %v", samples)
		got, _ = h.Quantile(0.5)
		assert.GreaterOrEqual(t, got, samples[0])
		assert.LessOrEqual(t, float64(got), float64(top)*1.0906+1)
	}
}

func TestQuantileOfEqualWeightsFindsTheRank(t *testing.T) {
	t.Parallel()
	// 100 buckets of weight 1 (no decay applied: built directly).
	h := Histogram{N: 100, Weights: map[int]float64{}}
	for i := range 100 {
		h.Weights[i+50] = 1
	}
	p50, _ := h.Quantile(0.5)
	assert.Equal(t, Upper(99), p50, "the 50th of 100")
	p99, _ := h.Quantile(0.99)
	assert.Equal(t, Upper(148), p99, "the 99th of 100")
	p100, _ := h.Quantile(1)
	assert.Equal(t, Upper(149), p100)
}

func TestEmptyHistogramHasNoQuantile(t *testing.T) {
	t.Parallel()
	_, ok := Histogram{}.Quantile(0.99)
	assert.False(t, ok)
}

func TestOldSamplesDecayAndTheNewestDecide(t *testing.T) {
	t.Parallel()
	var h Histogram
	for range 200 {
		h.Add(5 * time.Second)
	}
	for range 200 {
		h.Add(100 * time.Millisecond)
	}
	// The 200 old samples weigh 0.99^200 ≈ 13% of 200 new ones' weight:
	// still above 1%, so p99 remembers them, but the median does not.
	p50, _ := h.Quantile(0.5)
	assert.Equal(t, Upper(Bucket(100*time.Millisecond)), p50)
	p99, _ := h.Quantile(0.99)
	assert.Equal(t, Upper(Bucket(5*time.Second)), p99)
	for range 300 {
		h.Add(100 * time.Millisecond)
	}
	p99, _ = h.Quantile(0.99)
	assert.Equal(t, Upper(Bucket(100*time.Millisecond)), p99, "500 runs later the slow ones are forgotten")
	assert.Equal(t, int64(700), h.N)
}

func TestHistogramStaysBoundedWhateverItIsFed(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var h Histogram
	for range 20000 {
		h.Add(time.Duration(r.Int64N(int64(100 * time.Hour))))
	}
	assert.LessOrEqual(t, len(h.Weights), Buckets)
	var total float64
	for _, w := range h.Weights {
		total += w
	}
	assert.InDelta(t, 100, total, 1, "decayed weights sum to about 1/(1-Decay)")
	data, err := Encode(Record{Key: "k", Histogram: h})
	require.NoError(t, err)
	assert.Less(t, len(data), 8<<10, "a record stays small")
}
