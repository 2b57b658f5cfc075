package timing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzDecodeRecord feeds Decode what a state store may hold (a file or a
// Redis value anyone with access could have written): it never panics, a
// record it accepts encodes and decodes to itself, and what is learned
// from it is in range.
func FuzzDecodeRecord(f *testing.F) {
	good, err := Encode(Record{Key: "k", Histogram: histogramOf(200*time.Millisecond, 20), Updated: time.Unix(1700000000, 0), Doublings: 2})
	require.NoError(f, err)
	f.Add(good, "k")
	f.Add([]byte(`{"v":1,"key":"k","n":3,"buckets":[[80,1.5],[81,1.5]]}`), "k")
	f.Add([]byte(`{"v":1,"key":"k","n":1e308,"buckets":[[1e3,1]]}`), "k")
	f.Add([]byte(`{"v":2}`), "")
	f.Add([]byte(`null`), "k")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		r, err := Decode(data, key)
		if err != nil {
			return
		}
		again, err := Encode(r)
		require.NoError(t, err)
		back, err := Decode(again, r.Key)
		require.NoError(t, err)
		assert.Equal(t, r.Histogram.N, back.Histogram.N)
		assert.Equal(t, len(r.Histogram.Weights), len(back.Histogram.Weights))
		l := DefaultRule().Learn(r)
		assert.GreaterOrEqual(t, l.P99, l.P50, "p99 below p50")
		assert.GreaterOrEqual(t, l.P50, time.Duration(0))
		assert.GreaterOrEqual(t, l.Limit, time.Duration(0), "a negative limit")
	})
}

// histogramOf is a histogram of n samples of d.
func histogramOf(d time.Duration, n int) Histogram {
	var h Histogram
	for range n {
		h.Add(d)
	}
	return h
}
