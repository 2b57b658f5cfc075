// Package timing learns how long a command takes when it succeeds, and
// turns that into a per-attempt time limit (--timeout auto). It is pure: it
// holds no clock, touches no files and starts nothing. The caller gives it
// durations and times, stores its records (encoded here) in the state
// store, and enforces the limits it computes.
package timing

import (
	"math"
	"slices"
	"time"
)

// The histogram's buckets are log-spaced: PerOctave buckets for each
// doubling of the duration, bucket i holding the durations in
// (Base·2^((i-1)/PerOctave), Base·2^(i/PerOctave)]. Bucket 0 holds
// everything up to Base and the last bucket everything past a day, so a
// histogram never has more than Buckets entries, whatever it is fed.
const (
	Base      = time.Millisecond
	PerOctave = 8
	// Buckets is the number of buckets: enough to reach past a day
	// (2^27 ms is 37 hours).
	Buckets = 27*PerOctave + 1
)

// Decay is the weight every sample already held keeps when a new one is
// added: a sample counts 0.99^k after k newer ones, so its weight halves
// in about 69 runs and the histogram follows a command that gets slower
// (or faster) over a hundred runs or so, while holding enough of them for
// a 99th percentile.
const Decay = 0.99

// minWeight is the weight below which a bucket is dropped: its samples
// are hundreds of runs old and too light to move any quantile we use.
const minWeight = 1e-3

// Histogram is the durations of one key's successful attempts, as decayed
// weights in log-spaced buckets. Its zero value is empty and ready to use.
type Histogram struct {
	// N counts every sample ever added, decay aside: "from 87 runs".
	N int64
	// Weights maps a bucket's index to its weight; only buckets with a
	// weight are present.
	Weights map[int]float64
}

// Bucket returns the index of the bucket holding d.
func Bucket(d time.Duration) int {
	if d <= Base {
		return 0
	}
	i := int(math.Ceil(PerOctave * math.Log2(float64(d)/float64(Base))))
	// Log2 may land a hair above an exact bound: d belongs to the bucket
	// whose upper bound is the first at or above it.
	if i > 0 && Upper(i-1) >= d {
		i--
	}
	return min(max(i, 0), Buckets-1)
}

// Upper returns the upper bound of bucket i: the longest duration it holds
// (the last bucket holds longer ones too).
func Upper(i int) time.Duration {
	return time.Duration(math.Round(float64(Base) * math.Exp2(float64(i)/PerOctave)))
}

// Add records one sample of duration d: every weight decays, then d's
// bucket gains 1.
func (h *Histogram) Add(d time.Duration) {
	if h.Weights == nil {
		h.Weights = make(map[int]float64)
	}
	for i, w := range h.Weights {
		if w *= Decay; w < minWeight {
			delete(h.Weights, i)
		} else {
			h.Weights[i] = w
		}
	}
	h.Weights[Bucket(d)]++
	h.N++
}

// Quantile returns the upper bound of the bucket that holds the q-th
// quantile (0 < q ≤ 1) of the weighted samples: at most 1/PerOctave of a
// doubling (9%) above the true value, never below it. An empty histogram
// has no quantile: ok is false.
func (h Histogram) Quantile(q float64) (d time.Duration, ok bool) {
	var total float64
	idx := make([]int, 0, len(h.Weights))
	for i, w := range h.Weights {
		total += w
		idx = append(idx, i)
	}
	if total <= 0 {
		return 0, false
	}
	slices.Sort(idx)
	want := q * total
	var sum float64
	for _, i := range idx {
		sum += h.Weights[i]
		// The small tolerance keeps rounding in the sum from pushing a
		// quantile that falls exactly on a bucket's edge into the next.
		if sum >= want*(1-1e-9) {
			return Upper(i), true
		}
	}
	return Upper(idx[len(idx)-1]), true
}
