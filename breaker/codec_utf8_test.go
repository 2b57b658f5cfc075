package breaker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeysThatAreNotUTF8KeepTheirState(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"\xff\xfe", "host-\xe9t\xe9", "a\xc3(b", "\xed\xa0\x80"} {
		data, err := encodeCircuit(circuit{Key: key, Buckets: []bucket{{Start: 1000, Fail: 1}}})
		require.NoError(t, err)
		c, warn, err := decodeCircuit(data, key)
		require.NoError(t, err)
		assert.Nil(t, warn, "%q: its own record is not someone else's", key)
		assert.Equal(t, []bucket{{Start: 1000, Fail: 1}}, c.Buckets, "%q", key)

		data, err = encodeRun(run{ID: key, Used: 2})
		require.NoError(t, err)
		r, warn, err := decodeRun(data, key)
		require.NoError(t, err)
		assert.Nil(t, warn, "%q", key)
		assert.Equal(t, 2, r.Used, "%q", key)
	}
	// Another key's record is still refused.
	data, err := encodeCircuit(circuit{Key: "\xff"})
	require.NoError(t, err)
	_, warn, err := decodeCircuit(data, "other")
	require.NoError(t, err)
	assert.NotNil(t, warn)
}
