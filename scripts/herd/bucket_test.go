package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTokenBucketAdmitsItsBurstThenRefusesUntilItRefills(t *testing.T) {
	t.Parallel()
	b := newTokenBucket(10, 3) // 10 req/s: one token every 100ms
	at := 5 * time.Second
	for i := range 3 {
		assert.True(t, b.take(at), "request %d of the burst", i+1)
	}
	assert.False(t, b.take(at), "the fourth at the same instant")
	assert.False(t, b.take(at+50*time.Millisecond), "half a token is not a token")
	assert.True(t, b.take(at+100*time.Millisecond), "one token after 100ms")
	assert.False(t, b.take(at+100*time.Millisecond))
}

func TestTokenBucketNeverHoldsMoreThanItsBurst(t *testing.T) {
	t.Parallel()
	b := newTokenBucket(100, 2)
	assert.True(t, b.take(0))
	// An hour idle refills to the burst, not to 360000 tokens.
	later := time.Hour
	assert.True(t, b.take(later))
	assert.True(t, b.take(later))
	assert.False(t, b.take(later))
}

func TestTokenBucketSustainsItsRate(t *testing.T) {
	t.Parallel()
	b := newTokenBucket(50, 5)
	admitted := 0
	// 1000 req/s offered for 10s: the bucket lets through its burst plus
	// 50 a second.
	for ms := range 10000 {
		if b.take(time.Duration(ms) * time.Millisecond) {
			admitted++
		}
	}
	assert.InDelta(t, 5+50*10, admitted, 1)
}

func TestTokenBucketIgnoresTimeGoingBackwards(t *testing.T) {
	t.Parallel()
	b := newTokenBucket(10, 1)
	assert.True(t, b.take(time.Second))
	assert.False(t, b.take(0), "an earlier time refills nothing")
	assert.True(t, b.take(time.Second+100*time.Millisecond))
}
