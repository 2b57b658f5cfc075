package breaker

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCircuitSurvivesEncodeAndDecode(t *testing.T) {
	t.Parallel()
	cfg := Default()
	c := tripped(t, cfg)
	c.Key = "registry.example.com/\x00weird key"
	c = cfg.observe(c, c.OpenedAt.Add(time.Second), Success, false, 0, false, edgeRand{})

	data, err := encodeCircuit(c)
	require.NoError(t, err)
	got, warn, err := decodeCircuit(data, c.Key)
	require.NoError(t, err)
	require.Nil(t, warn)
	assert.True(t, got.OpenedAt.Equal(c.OpenedAt))
	assert.True(t, got.ProbeAt.Equal(c.ProbeAt))
	got.OpenedAt, got.ProbeAt, c.OpenedAt, c.ProbeAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	assert.Equal(t, c, got)
}

func TestEncodedCircuitIsVersionOne(t *testing.T) {
	t.Parallel()
	data, err := encodeCircuit(circuit{Key: "k", Buckets: []bucket{{Start: 1000, OK: 1, Fail: 2}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"key":"k","gen":0,"open":false,"buckets":[{"t":1000,"ok":1,"fail":2}],"spent":0}`, string(data))
}

func TestMissingRecordIsAFreshCircuit(t *testing.T) {
	t.Parallel()
	c, warn, err := decodeCircuit(nil, "k")
	require.NoError(t, err)
	assert.Nil(t, warn)
	assert.Equal(t, circuit{Key: "k"}, c)
}

func TestUnreadableRecordIsAFreshCircuitWithAWarning(t *testing.T) {
	t.Parallel()
	good, err := encodeCircuit(circuit{Key: "k", Buckets: []bucket{{Start: 1000, OK: 1}}})
	require.NoError(t, err)
	tests := []struct {
		name string
		data string
	}{
		{"empty file", ""},
		{"garbage", "\x00\xff\x13 not json"},
		{"truncated", string(good[:len(good)/2])},
		{"trailing garbage", string(good) + "}"},
		{"no version", `{"key":"k"}`},
		{"json but not an object", `[1,2,3]`},
		{"another key's record", `{"version":1,"key":"other"}`},
		{"negative counts", `{"version":1,"key":"k","buckets":[{"t":1,"ok":-1,"fail":0}]}`},
		{"buckets out of order", `{"version":1,"key":"k","buckets":[{"t":2,"ok":1},{"t":1,"ok":1}]}`},
		{"negative spent tokens", `{"version":1,"key":"k","spent":-3}`},
		{"open without a probe time", `{"version":1,"key":"k","open":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, warn, err := decodeCircuit([]byte(tt.data), "k")
			require.NoError(t, err)
			require.NotNil(t, warn)
			assert.Equal(t, "k", warn.Key)
			assert.Contains(t, warn.Error(), `state of "k" is unreadable, starting from empty state`)
			assert.Equal(t, circuit{Key: "k"}, c)
		})
	}
}

func TestTooManyBucketsIsUnreadable(t *testing.T) {
	t.Parallel()
	v := circuitV1{Version: 1, Key: "k"}
	for i := range maxBuckets + 1 {
		v.Buckets = append(v.Buckets, bucketV1{Start: int64(i), OK: 1})
	}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	_, warn, err := decodeCircuit(data, "k")
	require.NoError(t, err)
	assert.NotNil(t, warn)
}

func TestNewerFormatIsAnErrorNotAWarning(t *testing.T) {
	t.Parallel()
	_, warn, err := decodeCircuit([]byte(`{"version":2,"key":"k","whatever":true}`), "k")
	assert.Nil(t, warn)
	var verr *VersionError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, 2, verr.Version)

	_, warn, err = decodeRun([]byte(`{"version":3,"run":"r"}`), "r")
	assert.Nil(t, warn)
	require.ErrorAs(t, err, &verr)
}

func TestUnknownFieldsOfTheCurrentVersionAreIgnored(t *testing.T) {
	t.Parallel()
	c, warn, err := decodeCircuit([]byte(`{"version":1,"key":"k","gen":4,"added_later":[1]}`), "k")
	require.NoError(t, err)
	assert.Nil(t, warn)
	assert.Equal(t, uint64(4), c.Gen)
}

func TestRunRecordSurvivesEncodeAndDecode(t *testing.T) {
	t.Parallel()
	data, err := encodeRun(run{ID: "github:o/r:1:build:1", Used: 4})
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"run":"github:o/r:1:build:1","used":4}`, string(data))
	r, warn, err := decodeRun(data, "github:o/r:1:build:1")
	require.NoError(t, err)
	assert.Nil(t, warn)
	assert.Equal(t, 4, r.Used)

	r, warn, err = decodeRun([]byte(`{"version":1,"run":"x","used":-1}`), "x")
	require.NoError(t, err)
	assert.NotNil(t, warn)
	assert.Equal(t, run{ID: "x"}, r)
}

func TestUnreadableClaimIsNoClaim(t *testing.T) {
	t.Parallel()
	assert.Equal(t, claim{}, decodeClaim([]byte("garbage")))
	data, err := encodeClaim(claim{Gen: 3, Until: t0})
	require.NoError(t, err)
	got := decodeClaim(data)
	assert.Equal(t, uint64(3), got.Gen)
	assert.True(t, got.Until.Equal(t0))
}

func TestARecordFromBeforeTheWaitingFieldsReadsAsTheirZeroValues(t *testing.T) {
	t.Parallel()
	// Written by the release before cooldowns grew, the budget refilled
	// with time, the ramp and the lease count: still version 1.
	old := `{"version":1,"key":"k","gen":3,"open":true,"opened_at":"2030-01-02T03:04:05Z","probe_at":"2030-01-02T03:04:33Z","buckets":[{"t":1893553445000,"ok":2,"fail":7}],"spent":6.8}`
	c, warn, err := decodeCircuit([]byte(old), "k")
	require.NoError(t, err)
	require.Nil(t, warn)
	assert.True(t, c.Open)
	assert.Zero(t, c.Probes, "its next cooldown starts the schedule")
	assert.True(t, c.SpentAt.IsZero(), "it refills from its next update")
	assert.True(t, c.ClosedAt.IsZero())
	assert.Empty(t, c.Waiters)

	cfg := Default()
	now := c.ProbeAt
	next := cfg.observe(c, now, Failure, false, 0, false, edgeRand{})
	data, err := encodeCircuit(next)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v))
	assert.EqualValues(t, 1, v["version"], "no new version: a release that does not know the fields ignores them")
	assert.Contains(t, v, "spent_at")

	c.Probes, c.SpentAt, c.ClosedAt, c.Admitted, c.Waiters = 3, now, now, 7, []int64{now.UnixMilli()}
	data, err = encodeCircuit(c)
	require.NoError(t, err)
	got, warn, err := decodeCircuit(data, "k")
	require.NoError(t, err)
	require.Nil(t, warn)
	assert.Equal(t, [3]int{3, 7, 1}, [3]int{got.Probes, got.Admitted, len(got.Waiters)})
	assert.True(t, got.SpentAt.Equal(now) && got.ClosedAt.Equal(now))
}
