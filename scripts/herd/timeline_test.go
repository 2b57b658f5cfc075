package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimelineIsDownExactlyDuringItsDownPhase(t *testing.T) {
	t.Parallel()
	tl := downTimeline("outage", 200*time.Millisecond, 10*time.Second)
	for _, tc := range []struct {
		at   time.Duration
		down bool
	}{
		{0, false},
		{199 * time.Millisecond, false},
		{200 * time.Millisecond, true},
		{5 * time.Second, true},
		{10200*time.Millisecond - 1, true},
		{10200 * time.Millisecond, false},
		{time.Hour, false},
	} {
		assert.Equal(t, tc.down, tl.Down(tc.at), "at %v", tc.at)
	}
	start, end, ok := tl.Outage()
	require.True(t, ok)
	assert.Equal(t, 200*time.Millisecond, start)
	assert.Equal(t, 10200*time.Millisecond, end)
	assert.Equal(t, "healthy 0s–200ms, outage 200ms–10.2s, healthy from 10.2s", tl.String())
}

func TestHealthyTimelineIsNeverDownAndHasNoOutage(t *testing.T) {
	t.Parallel()
	tl := downTimeline("", 0, 0)
	assert.False(t, tl.Down(0))
	assert.False(t, tl.Down(time.Hour))
	_, _, ok := tl.Outage()
	assert.False(t, ok)
}

func TestScenariosHaveTheDocumentedLengths(t *testing.T) {
	t.Parallel()
	lead := 200 * time.Millisecond
	for _, tc := range []struct {
		name   string
		quick  bool
		length time.Duration
		stem   string
	}{
		{"blip", false, 300 * time.Millisecond, "herd-blip"},
		{"blip", true, 300 * time.Millisecond, "herd-blip-quick"},
		{"outage10s", false, 10 * time.Second, "herd-outage10s"},
		{"outage10s", true, 2 * time.Second, "herd-outage10s-quick"},
		{"outage60s", false, 60 * time.Second, "herd-outage60s"},
		{"outage60s", true, 4 * time.Second, "herd-outage60s-quick"},
	} {
		t.Run(tc.stem, func(t *testing.T) {
			sc, err := scenario(tc.name, tc.quick, lead)
			require.NoError(t, err)
			start, end, ok := sc.Timeline.Outage()
			require.True(t, ok)
			assert.Equal(t, lead, start)
			assert.Equal(t, tc.length, end-start)
			assert.Equal(t, tc.stem, sc.FileStem())
		})
	}
	tagged, err := scenario("blip", true, lead)
	require.NoError(t, err)
	tagged.Tag = "n20"
	assert.Equal(t, "herd-blip-quick-n20", tagged.FileStem())

	_, err = scenario("outage5s", false, lead)
	assert.ErrorContains(t, err, `unknown scenario "outage5s"`)
}
