package timing

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// FormatVersion is the version of the stored record this package writes.
// A reader accepts every version it knows and refuses newer ones without
// overwriting them, as the breaker's records do.
const FormatVersion = 1

// Record is one key's stored state.
type Record struct {
	Key       string
	Histogram Histogram
	// Updated is when the last sample was added.
	Updated time.Time
	// Doublings is how many times the next run's first limit is doubled:
	// a run that was stopped at the learned limit and never succeeded
	// leaves it one higher per stop, a success sets it back to 0. So a
	// command that got slower gets through even with one attempt a run.
	Doublings int
}

// MaxDoublings bounds Record.Doublings: a run starts at most 256 times
// past the learned limit, however many runs in a row were stopped.
const MaxDoublings = 8

// recordV1 is version 1 of the stored record: buckets as [index, weight]
// pairs in index order.
type recordV1 struct {
	Version int          `json:"version"`
	Key     string       `json:"key"`
	N       int64        `json:"n"`
	Updated time.Time    `json:"updated,omitzero"`
	Buckets [][2]float64 `json:"buckets"`
	// Doublings is omitted when 0, so that records without it read alike.
	Doublings int `json:"doublings,omitzero"`
}

// Encode renders r in the current format.
func Encode(r Record) ([]byte, error) {
	v := recordV1{Version: FormatVersion, Key: r.Key, N: r.Histogram.N, Updated: r.Updated.UTC(), Buckets: [][2]float64{}, Doublings: r.Doublings}
	for i := range Buckets {
		if w, ok := r.Histogram.Weights[i]; ok {
			v.Buckets = append(v.Buckets, [2]float64{float64(i), w})
		}
	}
	return json.Marshal(v)
}

// CorruptError reports a stored record that could not be read: garbage, a
// truncated file, or fields out of range. It is a warning: learning starts
// over from an empty histogram, which the next success overwrites.
type CorruptError struct {
	Key string
	Err error
}

// Error reads `timing of "KEY" is unreadable, starting over: ERR`.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("timing of %q is unreadable, starting over: %v", e.Key, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// VersionError reports a record written in a newer format than this
// package reads; it is left alone.
type VersionError struct {
	Key     string
	Version int
}

// Error reads `timing of "KEY" has format version N, newer than this retry reads`.
func (e *VersionError) Error() string {
	return fmt.Sprintf("timing of %q has format version %d, newer than this retry reads (%d)", e.Key, e.Version, FormatVersion)
}

// Decode reads the record stored for key, or for the key it holds when key
// is empty (listing a store). No data is an empty record.
// Unreadable data is an empty record and a *CorruptError; a newer format
// is a *VersionError.
func Decode(data []byte, key string) (Record, error) {
	fresh := Record{Key: key}
	if data == nil {
		return fresh, nil
	}
	var v recordV1
	if err := json.Unmarshal(data, &v); err != nil {
		return fresh, &CorruptError{Key: key, Err: err}
	}
	switch {
	case v.Version > FormatVersion:
		return Record{}, &VersionError{Key: key, Version: v.Version}
	case v.Version < 1:
		return fresh, &CorruptError{Key: key, Err: errors.New("no format version")}
	case key != "" && v.Key != key:
		return fresh, &CorruptError{Key: key, Err: fmt.Errorf("holds key %q", v.Key)}
	case v.N < 0:
		return fresh, &CorruptError{Key: key, Err: fmt.Errorf("sample count %d", v.N)}
	case v.Doublings < 0 || v.Doublings > MaxDoublings:
		return fresh, &CorruptError{Key: key, Err: fmt.Errorf("doublings %d out of range", v.Doublings)}
	case len(v.Buckets) > Buckets:
		return fresh, &CorruptError{Key: key, Err: fmt.Errorf("%d buckets, at most %d expected", len(v.Buckets), Buckets)}
	}
	h := Histogram{N: v.N, Weights: make(map[int]float64, len(v.Buckets))}
	for _, b := range v.Buckets {
		i, w := b[0], b[1]
		if i != math.Trunc(i) || i < 0 || i >= Buckets {
			return fresh, &CorruptError{Key: key, Err: fmt.Errorf("bucket index %v out of range", i)}
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 || w > float64(max(v.N, 1)) {
			return fresh, &CorruptError{Key: key, Err: fmt.Errorf("bucket weight %v out of range", w)}
		}
		if _, dup := h.Weights[int(i)]; dup {
			return fresh, &CorruptError{Key: key, Err: fmt.Errorf("bucket %v twice", i)}
		}
		h.Weights[int(i)] = w
	}
	return Record{Key: v.Key, Histogram: h, Updated: v.Updated, Doublings: v.Doublings}, nil
}

// Observe returns the stored record data with one more sample of d taken
// at now: the Store.Update function of a successful attempt. A corrupt
// record is replaced; a newer format is refused and left alone.
func Observe(data []byte, key string, d time.Duration, now time.Time) ([]byte, error) {
	r, err := Decode(data, key)
	var ve *VersionError
	if errors.As(err, &ve) {
		return nil, err
	}
	r.Histogram.Add(d)
	r.Updated = now
	r.Doublings = 0
	return Encode(r)
}

// Stopped returns the stored record data after a run that never succeeded
// and was stopped at the learned limit stops times: the next run starts
// that many doublings further (at most MaxDoublings). A corrupt record is
// left for the next success to replace; a newer format is refused.
func Stopped(data []byte, key string, stops int) ([]byte, error) {
	r, err := Decode(data, key)
	if err != nil {
		return nil, err
	}
	r.Doublings = min(r.Doublings+stops, MaxDoublings)
	return Encode(r)
}
