package main

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Outcome is how the server answered one request.
type Outcome int

const (
	// Served is a 200: the server was up and had capacity.
	Served Outcome = iota + 1
	// Down is a 503 during a down phase of the timeline.
	Down
	// Throttled is a 503 because the token bucket was empty.
	Throttled
)

// event is one request as the server saw it.
type event struct {
	// At is the arrival time since the run began.
	At time.Duration
	// Client is the client number from the URL's c parameter, -1 if absent.
	Client  int
	Outcome Outcome
}

// server is the herd's HTTP endpoint: it follows a Timeline, limits load
// with a token bucket and records every request it receives.
type server struct {
	epoch    time.Time
	timeline Timeline
	// retryAfter, when positive, is sent as a Retry-After header (whole
	// seconds, rounded up) on 503s for lack of capacity.
	retryAfter time.Duration

	mu     sync.Mutex
	bucket *tokenBucket
	events []event
}

// newServer returns a server whose time starts at epoch. The epoch must be
// set before the server is first served, never after.
func newServer(epoch time.Time, tl Timeline, capacity, burst float64, retryAfter time.Duration) *server {
	return &server{
		epoch:      epoch,
		timeline:   tl,
		retryAfter: retryAfter,
		bucket:     newTokenBucket(capacity, burst),
	}
}

// ServeHTTP answers a request according to the timeline and the capacity,
// and records it. The time is read under the lock, so events are in order.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	client, err := strconv.Atoi(r.URL.Query().Get("c"))
	if err != nil {
		client = -1
	}
	s.mu.Lock()
	at := time.Since(s.epoch)
	out := Served
	switch {
	case s.timeline.Down(at):
		out = Down
	case !s.bucket.take(at):
		out = Throttled
	}
	s.events = append(s.events, event{At: at, Client: client, Outcome: out})
	s.mu.Unlock()

	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	switch out {
	case Served:
		fmt.Fprintln(w, "ok")
	case Down:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "down")
	case Throttled:
		if s.retryAfter > 0 {
			secs := int64((s.retryAfter + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "over capacity")
	}
}

// Events returns a copy of the requests recorded so far, in arrival order.
func (s *server) Events() []event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]event(nil), s.events...)
}
