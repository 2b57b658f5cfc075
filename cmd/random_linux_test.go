package cmd

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Without getrandom and /dev/urandom, the bytes still differ between
// runs, by the moment and by the process: two runs must never share an
// idempotency key or a seed (they were all zero before).
func TestRandomBytesWithoutAnEntropySourceStillDifferFromRunToRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	a, b, c := make([]byte, 26), make([]byte, 26), make([]byte, 26)
	clockRandom(a, now, 100)
	clockRandom(b, now.Add(time.Nanosecond), 100)
	clockRandom(c, now, 101)
	assert.NotEqual(t, make([]byte, 26), a, "not all zero")
	assert.False(t, bytes.Equal(a, b), "a moment later")
	assert.False(t, bytes.Equal(a, c), "another process")
}
