package main

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuickChangesOnlyDefaultsNotExplicitFlags(t *testing.T) {
	t.Parallel()
	o, err := parseOptions([]string{"-retry", "/r", "-quick"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 20, o.Clients)
	assert.Equal(t, 500*time.Millisecond, o.Spread)
	assert.Equal(t, 100*time.Millisecond, o.Lead)
	assert.Equal(t, 40.0, o.Capacity, "capacity defaults to clients per second of spread")
	assert.Equal(t, 4.0, o.Burst)
	assert.Equal(t, []string{"outage10s"}, o.Scenarios)

	o, err = parseOptions([]string{"-retry", "/r", "-quick", "-n", "50", "-capacity", "30", "-scenario", "all"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 50, o.Clients)
	assert.Equal(t, 30.0, o.Capacity)
	assert.Equal(t, 3.0, o.Burst)
	assert.Equal(t, scenarioNames(), o.Scenarios)
}

func TestBadFlagsAreRefusedWithTheReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-retry is required"},
		{[]string{"-retry", "/r", "-n", "201"}, "-n 201: want 1 to 200"},
		{[]string{"-retry", "/r", "-n", "0"}, "-n 0: want 1 to 200"},
		{[]string{"-retry", "/r", "-scenario", "outage5s"}, `unknown scenario "outage5s"`},
		{[]string{"-retry", "/r", "-policies", "naive,yolo"}, `unknown policy "yolo"`},
		{[]string{"-retry", "/r", "-spread", "0s"}, "-spread and -child-timeout must be positive"},
		{[]string{"-retry", "/r", "extra"}, `unexpected argument "extra"`},
		{[]string{"-retry", "/r", "-tag", "a/b"}, `-tag "a/b": want a word`},
		{[]string{"-retry", "/r", "-repeat", "0"}, "-repeat 0: want 1 to 20"},
	} {
		_, err := parseOptions(tc.args, io.Discard)
		assert.ErrorContains(t, err, tc.want, "%q", tc.args)
	}
}

func TestTheDefaultChildTimeoutOutlastsThePatientClientsDeadline(t *testing.T) {
	t.Parallel()
	o, err := parseOptions([]string{"-retry", "/r", "-scenario", "outage60s"}, io.Discard)
	require.NoError(t, err)
	assert.Greater(t, o.ChildTimeout, patientDeadline(time.Minute),
		"the harness must not kill a waiting client at the moment its own --deadline ends")

	o, err = parseOptions([]string{"-retry", "/r", "-scenario", "blip,outage60s"}, io.Discard)
	require.NoError(t, err)
	assert.Greater(t, o.ChildTimeout, patientDeadline(time.Minute), "the longest outage of the list decides")

	o, err = parseOptions([]string{"-retry", "/r"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Minute, o.ChildTimeout, "outage10s clients wait at most 40s: the default stands")

	o, err = parseOptions([]string{"-retry", "/r", "-scenario", "outage60s", "-child-timeout", "90s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, o.ChildTimeout, "an explicit -child-timeout is kept")
}
