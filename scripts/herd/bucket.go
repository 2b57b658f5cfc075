package main

import "time"

// tokenBucket is the server's capacity limit: it admits rate requests per
// second on average and bursts of up to burst requests. It reads no clock:
// the caller passes the time of each request, so tests need not sleep. It
// is not safe for concurrent use.
type tokenBucket struct {
	rate, burst float64
	tokens      float64
	last        time.Duration
}

// newTokenBucket returns a full bucket.
func newTokenBucket(rate, burst float64) *tokenBucket {
	return &tokenBucket{rate: rate, burst: burst, tokens: burst}
}

// take admits one request arriving at now (time since the run began) and
// reports whether it fits in the capacity. Times must not go backwards; a
// time earlier than the last one refills nothing.
func (b *tokenBucket) take(now time.Duration) bool {
	if now > b.last {
		b.tokens = min(b.burst, b.tokens+b.rate*(now-b.last).Seconds())
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
