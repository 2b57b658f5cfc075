package timing

import "time"

// Rule turns a histogram into a per-attempt time limit:
//
//	limit = max(Multiple × p99, Floor), once the key has MinSamples samples
//
// and no learned limit before that. An attempt stopped at a learned limit
// doubles the next attempt's limit (see Escalate).
type Rule struct {
	// Multiple is how far past the learned 99th percentile an attempt may
	// run before it is taken for hung.
	Multiple float64
	// Floor is the shortest learned limit: a command that takes 20 ms
	// is not stopped at 60 ms because a busy machine stalled it.
	Floor time.Duration
	// MinSamples is how many successful runs a key needs before its
	// figures are trusted.
	MinSamples int64
}

// DefaultRule is --timeout auto's rule: max(3 × p99, 1s), from 20 runs.
func DefaultRule() Rule {
	return Rule{Multiple: 3, Floor: time.Second, MinSamples: 20}
}

// Learned is what a histogram says, with the limit the rule draws from it.
type Learned struct {
	// N is the number of samples (successful runs) recorded.
	N int64
	// P50 and P99 are the median and the 99th percentile, as bucket
	// upper bounds (see Histogram.Quantile); zero when N is 0.
	P50, P99 time.Duration
	// Limit is the learned limit, doubled Doublings times; zero when
	// Ready is false.
	Limit time.Duration
	// Doublings is the record's: how many runs in a row were stopped at
	// the learned limit without succeeding.
	Doublings int
	// Ready is set when N has reached the rule's MinSamples.
	Ready bool
}

// Learn reads the record's figures and the limit the rule gives.
func (r Rule) Learn(rec Record) Learned {
	h := rec.Histogram
	l := Learned{N: h.N, Doublings: rec.Doublings}
	l.P50, _ = h.Quantile(0.5)
	p99, ok := h.Quantile(0.99)
	l.P99 = p99
	if !ok || h.N < r.MinSamples {
		return l
	}
	l.Ready = true
	l.Limit = max(scale(p99, r.Multiple), r.Floor)
	for range min(rec.Doublings, MaxDoublings) {
		l.Limit = Escalate(l.Limit)
	}
	return l
}

// Escalate returns the limit of the attempt after one that was stopped at
// limit: twice as long, so a command that has become slower than anything
// learned is never stopped at the same point twice and, given attempts,
// gets through; its success then teaches the histogram the new duration.
// The deadline still cuts every attempt.
func Escalate(limit time.Duration) time.Duration {
	if limit > maxDuration/2 {
		return maxDuration
	}
	return 2 * limit
}

const maxDuration = time.Duration(1<<63 - 1)

// scale multiplies d by f, saturating instead of overflowing.
func scale(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if v >= float64(maxDuration) {
		return maxDuration
	}
	return time.Duration(v)
}
