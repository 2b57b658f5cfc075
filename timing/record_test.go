package timing

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordSurvivesARoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var data []byte
	var err error
	for _, d := range []time.Duration{time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond, 3 * time.Second} {
		data, err = Observe(data, "make-abc", d, now)
		require.NoError(t, err)
	}
	r, err := Decode(data, "make-abc")
	require.NoError(t, err)
	assert.Equal(t, int64(4), r.Histogram.N)
	assert.Equal(t, now, r.Updated)
	assert.Len(t, r.Histogram.Weights, 3)
	assert.InDelta(t, (0.99+1)*0.99, r.Histogram.Weights[Bucket(150*time.Millisecond)], 1e-9)
	again, err := Encode(r)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again))
}

func TestNoRecordIsAnEmptyHistogram(t *testing.T) {
	t.Parallel()
	r, err := Decode(nil, "k")
	require.NoError(t, err)
	assert.Zero(t, r.Histogram.N)
	assert.Equal(t, "k", r.Key)
}

func TestUnreadableRecordsStartOverWithAWarning(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"garbage":        "{not json",
		"empty":          "",
		"no version":     `{"key":"k","n":1,"buckets":[]}`,
		"another key":    `{"version":1,"key":"other","n":1,"buckets":[[3,1]]}`,
		"negative count": `{"version":1,"key":"k","n":-1,"buckets":[]}`,
		"index too high": `{"version":1,"key":"k","n":1,"buckets":[[9999,1]]}`,
		"fractional idx": `{"version":1,"key":"k","n":1,"buckets":[[2.5,1]]}`,
		"zero weight":    `{"version":1,"key":"k","n":1,"buckets":[[2,0]]}`,
		"weight above n": `{"version":1,"key":"k","n":1,"buckets":[[2,5]]}`,
		"bucket twice":   `{"version":1,"key":"k","n":2,"buckets":[[2,1],[2,1]]}`,
		"doublings < 0":  `{"version":1,"key":"k","n":1,"buckets":[],"doublings":-1}`,
		"doublings > 8":  `{"version":1,"key":"k","n":1,"buckets":[],"doublings":9}`,
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Decode([]byte(data), "k")
			var ce *CorruptError
			require.True(t, errors.As(err, &ce), "got %v", err)
			assert.Zero(t, r.Histogram.N)
			out, err := Observe([]byte(data), "k", time.Second, time.Time{})
			require.NoError(t, err, "the next success overwrites it")
			r, err = Decode(out, "k")
			require.NoError(t, err)
			assert.Equal(t, int64(1), r.Histogram.N)
		})
	}
}

func TestANewerFormatIsLeftAlone(t *testing.T) {
	t.Parallel()
	data := []byte(`{"version":2,"key":"k"}`)
	_, err := Decode(data, "k")
	var ve *VersionError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, 2, ve.Version)
	_, err = Observe(data, "k", time.Second, time.Time{})
	assert.ErrorAs(t, err, &ve)
}

// The key is the one earlier releases derived (SHA-256 of the fields, as
// crypto/sha256 computes it): durations learned by an older retry are
// found.
func TestCommandKeyStaysWhatEarlierReleasesDerived(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "curl-955e25fcb731f33247e58808", CommandKey([]string{"/usr/bin/curl", "-fsS", "https://x"}, "/src"))
}

func TestCommandKeyHidesArgvAndSeparatesCommands(t *testing.T) {
	t.Parallel()
	k := CommandKey([]string{"/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://x"}, "/src")
	assert.Regexp(t, `^curl-[0-9a-f]{24}$`, k)
	assert.NotContains(t, k, "s3cret")
	assert.Equal(t, k, CommandKey([]string{"/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://x"}, "/src"), "stable")
	seen := map[string]string{k: "base"}
	for name, other := range map[string]string{
		"another dir":   CommandKey([]string{"/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://x"}, "/other"),
		"another arg":   CommandKey([]string{"/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://y"}, "/src"),
		"words joined":  CommandKey([]string{"/usr/bin/curl", "-H Authorization: Bearer s3cret", "https://x"}, "/src"),
		"another path":  CommandKey([]string{"curl", "-H", "Authorization: Bearer s3cret", "https://x"}, "/src"),
		"a word moved":  CommandKey([]string{"/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://x", ""}, "/src"),
		"dir into argv": CommandKey([]string{"/src/usr/bin/curl", "-H", "Authorization: Bearer s3cret", "https://x"}, ""),
	} {
		_, dup := seen[other]
		assert.False(t, dup, "%s collides", name)
		seen[other] = name
	}
	assert.Regexp(t, `^command-`, CommandKey([]string{"/../.."}, "/"))
	assert.Regexp(t, `^command-`, CommandKey(nil, "/"))
	assert.Regexp(t, `^x_y-`, CommandKey([]string{"x y/../x_y"}, "/"))
}

func TestDecodeWithoutAKeyTakesTheRecordsOwn(t *testing.T) {
	t.Parallel()
	data, err := Observe(nil, "git-123", time.Second, time.Time{})
	require.NoError(t, err)
	r, err := Decode(data, "")
	require.NoError(t, err)
	assert.Equal(t, "git-123", r.Key)
}
