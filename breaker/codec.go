package breaker

// This file is the stored format, shared by the file and Redis stores. Each
// record is one JSON object with a "version" field. A reader accepts every
// version it knows and refuses newer ones without overwriting them, so a
// fleet running two releases side by side never loses state to the older
// one. When the format changes, add the new version here and keep decoding
// the previous one.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// formatVersion is the version this package writes.
const formatVersion = 1

// maxProbes bounds the failed probes a record counts: past a few dozen
// doublings every cooldown is the longest anyway.
const maxProbes = 1 << 20

// maxBuckets bounds the buckets a stored circuit may hold; more means the
// record was not written by this package.
const maxBuckets = 4 * bucketsPerWindow

// CorruptError reports stored state that could not be read: garbage, a
// truncated file, or fields out of range. It is a warning: the breaker
// carries on from empty state and overwrites the record on its next update.
type CorruptError struct {
	// Key is the circuit key or run id whose state was unreadable; for
	// List it is where the record was found.
	Key string
	// Err says what was wrong.
	Err error
}

// Error reads `state of "KEY" is unreadable, starting from empty state: ERR`.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("state of %q is unreadable, starting from empty state: %v", e.Key, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// VersionError reports a record written in a newer format than this
// package reads. It is an error, not a warning: the record is left alone.
type VersionError struct {
	// Key is the circuit key or run id of the record.
	Key string
	// Version is the version found.
	Version int
}

// Error reads `state of "KEY" has format version N, newer than this retry reads`.
func (e *VersionError) Error() string {
	return fmt.Sprintf("state of %q has format version %d, newer than this retry reads (%d)", e.Key, e.Version, formatVersion)
}

// circuitV1 is version 1 of a stored circuit.
type circuitV1 struct {
	Version  int        `json:"version"`
	Key      string     `json:"key"`
	Gen      uint64     `json:"gen"`
	Open     bool       `json:"open"`
	OpenedAt time.Time  `json:"opened_at,omitzero"`
	ProbeAt  time.Time  `json:"probe_at,omitzero"`
	Buckets  []bucketV1 `json:"buckets"`
	Spent    float64    `json:"spent"`
	// Fields added within version 1: a record without them (written
	// before they were) reads as their zero value, and a release that
	// does not know them ignores them.
	Probes   int       `json:"probes,omitempty"`
	SpentAt  time.Time `json:"spent_at,omitzero"`
	ClosedAt time.Time `json:"closed_at,omitzero"`
	Admitted int       `json:"admitted,omitempty"`
	Waiters  []int64   `json:"waiters,omitempty"`
}

// bucketV1 is one bucket of a version 1 circuit.
type bucketV1 struct {
	Start int64 `json:"t"`
	OK    int   `json:"ok"`
	Fail  int   `json:"fail"`
}

// runV1 is version 1 of a stored run budget.
type runV1 struct {
	Version int    `json:"version"`
	Run     string `json:"run"`
	Used    int    `json:"used"`
}

// claimV1 is version 1 of a probe claim in the file store.
type claimV1 struct {
	Version int       `json:"version"`
	Gen     uint64    `json:"gen"`
	Until   time.Time `json:"until"`
}

// versionOf reads only the version field; garbage has none.
func versionOf(data []byte) (int, error) {
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return 0, err
	}
	if v.Version < 1 {
		return 0, errors.New("no format version")
	}
	return v.Version, nil
}

// decodeCircuit reads the circuit stored for key. No data is a fresh
// circuit. Unreadable data is a fresh circuit and a *CorruptError; a newer
// format is a *VersionError and no circuit.
func decodeCircuit(data []byte, key string) (circuit, *CorruptError, error) {
	fresh := circuit{Key: key}
	if data == nil {
		return fresh, nil, nil
	}
	version, err := versionOf(data)
	if err != nil {
		return fresh, &CorruptError{Key: key, Err: err}, nil
	}
	if version > formatVersion {
		return circuit{}, nil, &VersionError{Key: key, Version: version}
	}
	var v circuitV1
	if err := json.Unmarshal(data, &v); err != nil {
		return fresh, &CorruptError{Key: key, Err: err}, nil
	}
	c, err := v.circuit(key)
	if err != nil {
		return fresh, &CorruptError{Key: key, Err: err}, nil
	}
	return c, nil, nil
}

// circuit checks v and converts it.
func (v circuitV1) circuit(key string) (circuit, error) {
	switch {
	case v.Key != storedText(key):
		return circuit{}, fmt.Errorf("record is for key %q", v.Key)
	case len(v.Buckets) > maxBuckets:
		return circuit{}, fmt.Errorf("%d buckets, more than %d", len(v.Buckets), maxBuckets)
	case math.IsNaN(v.Spent) || math.IsInf(v.Spent, 0) || v.Spent < 0:
		return circuit{}, fmt.Errorf("spent tokens %v out of range", v.Spent)
	case v.Open && v.ProbeAt.IsZero():
		return circuit{}, errors.New("open without a probe time")
	case v.Probes < 0 || v.Probes > maxProbes:
		return circuit{}, fmt.Errorf("failed probes %d out of range", v.Probes)
	case v.Admitted < 0:
		return circuit{}, fmt.Errorf("admitted %d out of range", v.Admitted)
	case len(v.Waiters) > maxWaiters:
		return circuit{}, fmt.Errorf("%d waiters, more than %d", len(v.Waiters), maxWaiters)
	}
	c := circuit{Key: v.Key, Gen: v.Gen, Open: v.Open, OpenedAt: v.OpenedAt, ProbeAt: v.ProbeAt, Spent: v.Spent, SpentAt: v.SpentAt, Probes: v.Probes,
		ClosedAt: v.ClosedAt, Admitted: v.Admitted, Waiters: v.Waiters}
	for i, b := range v.Buckets {
		if b.OK < 0 || b.Fail < 0 {
			return circuit{}, fmt.Errorf("bucket %d has negative counts", i)
		}
		if i > 0 && b.Start <= v.Buckets[i-1].Start {
			return circuit{}, fmt.Errorf("bucket %d out of order", i)
		}
		c.Buckets = append(c.Buckets, bucket(b))
	}
	return c, nil
}

// storedText returns s as a JSON string field holds it after a round trip:
// encoding/json writes each byte that is not valid UTF-8 as U+FFFD. A key
// or run id read from a record is compared in this form; the file name or
// Redis key, made from the exact bytes, already tells keys apart.
func storedText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// encodeCircuit writes c in the current format.
func encodeCircuit(c circuit) ([]byte, error) {
	v := circuitV1{
		Version: formatVersion, Key: c.Key, Gen: c.Gen, Open: c.Open,
		OpenedAt: c.OpenedAt.UTC(), ProbeAt: c.ProbeAt.UTC(), Spent: c.Spent, SpentAt: c.SpentAt.UTC(), Probes: min(c.Probes, maxProbes),
		ClosedAt: c.ClosedAt.UTC(), Admitted: c.Admitted, Waiters: c.Waiters,
		Buckets: make([]bucketV1, 0, len(c.Buckets)),
	}
	for _, b := range c.Buckets {
		v.Buckets = append(v.Buckets, bucketV1(b))
	}
	return json.Marshal(v)
}

// decodeRun reads the run budget stored for id, like decodeCircuit.
func decodeRun(data []byte, id string) (run, *CorruptError, error) {
	fresh := run{ID: id}
	if data == nil {
		return fresh, nil, nil
	}
	version, err := versionOf(data)
	if err != nil {
		return fresh, &CorruptError{Key: id, Err: err}, nil
	}
	if version > formatVersion {
		return run{}, nil, &VersionError{Key: id, Version: version}
	}
	var v runV1
	if err := json.Unmarshal(data, &v); err != nil {
		return fresh, &CorruptError{Key: id, Err: err}, nil
	}
	switch {
	case v.Run != storedText(id):
		return fresh, &CorruptError{Key: id, Err: fmt.Errorf("record is for run %q", v.Run)}, nil
	case v.Used < 0:
		return fresh, &CorruptError{Key: id, Err: fmt.Errorf("used %d out of range", v.Used)}, nil
	}
	return run{ID: v.Run, Used: v.Used}, nil, nil
}

// encodeRun writes r in the current format.
func encodeRun(r run) ([]byte, error) {
	return json.Marshal(runV1{Version: formatVersion, Run: r.ID, Used: r.Used})
}

// decodeClaim reads a file store probe claim. Anything unreadable is no
// claim: the worst case is one extra probe.
func decodeClaim(data []byte) claim {
	var v claimV1
	if data == nil || json.Unmarshal(data, &v) != nil || v.Version != formatVersion {
		return claim{}
	}
	return claim{Gen: v.Gen, Until: v.Until}
}

// encodeClaim writes cl in the current format.
func encodeClaim(cl claim) ([]byte, error) {
	return json.Marshal(claimV1{Version: formatVersion, Gen: cl.Gen, Until: cl.Until.UTC()})
}
