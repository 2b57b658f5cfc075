package main

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestWindowPeakFindsTheBusiestWindowAnywhere(t *testing.T) {
	t.Parallel()
	forever := time.Duration(math.MaxInt64)
	w := 100 * time.Millisecond
	for _, tc := range []struct {
		name     string
		times    []time.Duration
		from, to time.Duration
		want     int
	}{
		{"no requests", nil, 0, forever, 0},
		{"one request", ms(500), 0, forever, 1},
		{"a burst split by a 100ms grid line counts whole", ms(95, 96, 97, 101, 102, 103), 0, forever, 6},
		{"the window is half-open", ms(0, 100, 200), 0, forever, 1},
		{"just inside the width", ms(0, 99, 198), 0, forever, 2},
		{"the busiest of two bursts", ms(0, 10, 1000, 1010, 1020), 0, forever, 3},
		{"only times in [from, to) count", ms(0, 10, 20, 1000, 1010), 500 * time.Millisecond, forever, 2},
		{"to cuts the window", ms(1000, 1010, 1020, 1090), 0, 1050 * time.Millisecond, 3},
		{"from is inclusive, to exclusive", ms(500, 600), 500 * time.Millisecond, 600 * time.Millisecond, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, windowPeak(tc.times, w, tc.from, tc.to))
		})
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	t.Parallel()
	_, ok := percentile(nil, 50)
	assert.False(t, ok)

	one := ms(7)
	for _, p := range []float64{1, 50, 99, 100} {
		got, ok := percentile(one, p)
		assert.True(t, ok)
		assert.Equal(t, 7*time.Millisecond, got, "p%v of one value", p)
	}

	ten := ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	for _, tc := range []struct {
		p    float64
		want int
	}{{10, 1}, {50, 5}, {51, 6}, {90, 9}, {99, 10}, {100, 10}} {
		got, _ := percentile(ten, tc.p)
		assert.Equal(t, time.Duration(tc.want)*time.Millisecond, got, "p%v of 1..10", tc.p)
	}

	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	p99, _ := percentile(hundred, 99)
	assert.Equal(t, 99*time.Millisecond, p99, "p99 of 100 values is the 99th, not the largest")
}

func TestBucketizeCountsEachOutcomeInItsBucket(t *testing.T) {
	t.Parallel()
	events := []event{
		{At: 10 * time.Millisecond, Outcome: Served},
		{At: 99 * time.Millisecond, Outcome: Down},
		{At: 100 * time.Millisecond, Outcome: Throttled},
		{At: 350 * time.Millisecond, Outcome: Served},
	}
	got := bucketize(events, 500*time.Millisecond)
	assert.Equal(t, []bucket{
		{Requests: 2, Successes: 1, Unavailable: 1},
		{Requests: 1, Unavailable: 1},
		{},
		{Requests: 1, Successes: 1},
		{},
	}, got)
	assert.Len(t, bucketize(events, 0), 4, "the buckets cover every event even past end")
}

func TestSummarizeMeasuresAttemptsOutageAndRecovery(t *testing.T) {
	t.Parallel()
	// Down from 1s to 3s. Client 0 succeeds before the outage; client 1
	// fails twice in it and succeeds 500ms after recovery; client 2 fails
	// three times in it and gives up; client 3 fails once in it and
	// succeeds 1.5s after recovery; client 4 runs during it but makes no
	// request, as when a breaker is open.
	tl := downTimeline("outage", time.Second, 2*time.Second)
	events := []event{
		{At: 100 * time.Millisecond, Client: 0, Outcome: Served},
		{At: 1100 * time.Millisecond, Client: 1, Outcome: Down},
		{At: 1150 * time.Millisecond, Client: 2, Outcome: Down},
		{At: 1160 * time.Millisecond, Client: 2, Outcome: Down},
		{At: 1170 * time.Millisecond, Client: 2, Outcome: Down},
		{At: 1200 * time.Millisecond, Client: 3, Outcome: Down},
		{At: 2000 * time.Millisecond, Client: 1, Outcome: Down},
		{At: 3500 * time.Millisecond, Client: 1, Outcome: Served},
		{At: 4400 * time.Millisecond, Client: 3, Outcome: Throttled},
		{At: 4500 * time.Millisecond, Client: 3, Outcome: Served},
		{At: 5500 * time.Millisecond, Client: -1, Outcome: Served},
	}
	clients := []clientResult{
		{Slot: 0, Launched: 50 * time.Millisecond, Exited: 200 * time.Millisecond, Attempts: 1, CPU: 3 * time.Second},
		{Slot: time.Second, Launched: time.Second, Exited: 3600 * time.Millisecond, Attempts: 3},
		{Slot: time.Second, Launched: 1100 * time.Millisecond, Exited: 1200 * time.Millisecond, ExitCode: 22, Attempts: 3},
		{Slot: time.Second, Launched: 1150 * time.Millisecond, Exited: 6 * time.Second, Attempts: 3, Lingered: true},
		{Slot: 1500 * time.Millisecond, Launched: 1500 * time.Millisecond, Exited: 1600 * time.Millisecond, ExitCode: 75},
	}
	s := summarize(tl, events, clients, 2)
	assert.Equal(t, 5, s.Clients)
	assert.Equal(t, 11, s.Requests, "every request, the one without a client too")
	assert.Equal(t, 10, s.ClientAttempts)
	assert.InDelta(t, 11.0/5, s.AttemptsMean, 1e-9)
	assert.Equal(t, 3, s.AttemptsMax)
	assert.True(t, s.HasOutage)
	assert.Equal(t, 4, s.OutageClients, "the client that made no request ran in the outage too")
	assert.Equal(t, 6, s.OutageRequests)
	assert.InDelta(t, 1.5, s.OutageMean, 1e-9)
	assert.Equal(t, 3, s.OutageMax)
	assert.Equal(t, 40.0, s.PeakRPS, "four requests within 100ms, from 1.1s")
	assert.Equal(t, 10.0, s.PeakAfterRPS, "3s–5s after: one request per 100ms window at most")
	assert.Equal(t, 10.0, s.PeakLaterRPS)
	assert.Equal(t, 2, s.Recovered)
	assert.Equal(t, 500*time.Millisecond, s.RecoveryP50)
	assert.Equal(t, 1500*time.Millisecond, s.RecoveryP99)
	assert.Equal(t, 2, s.GaveUp)
	assert.Equal(t, 1, s.Lingered)
	assert.Equal(t, 0, s.Killed)
	assert.Equal(t, map[int]int{0: 3, 22: 1, 75: 1}, s.ExitCodes)
	assert.Equal(t, 6*time.Second, s.Elapsed)
	assert.Equal(t, 150*time.Millisecond, s.LaunchLate)
	assert.Equal(t, 3*time.Second, s.CPU)
	assert.InDelta(t, 0.25, s.CPUShare, 1e-9, "3 CPU-s of the 12 that 2 CPUs have in 6s")
	// Gaps: client 1 900ms, 1500ms; client 2 10ms, 10ms; client 3 3200ms, 100ms.
	assert.Equal(t, 100*time.Millisecond, s.GapP50)
}

func TestPoolAddsCountsAndTakesPercentilesOverEveryClient(t *testing.T) {
	t.Parallel()
	tl := downTimeline("outage", time.Second, time.Second)
	// Run a: one client caught, recovers 100ms after; run b: two caught,
	// one recovers after 300ms, one gives up.
	a := summarize(tl, []event{
		{At: 1100 * time.Millisecond, Client: 0, Outcome: Down},
		{At: 2100 * time.Millisecond, Client: 0, Outcome: Served},
	}, []clientResult{{Exited: 3 * time.Second, Attempts: 2, CPU: time.Second}}, 2)
	b := summarize(tl, []event{
		{At: 1100 * time.Millisecond, Client: 0, Outcome: Down},
		{At: 1150 * time.Millisecond, Client: 1, Outcome: Down},
		{At: 1300 * time.Millisecond, Client: 1, Outcome: Down},
		{At: 1400 * time.Millisecond, Client: 1, Outcome: Down},
		{At: 2300 * time.Millisecond, Client: 0, Outcome: Served},
	}, []clientResult{
		{Exited: 2400 * time.Millisecond, Attempts: 2, CPU: time.Second},
		{Exited: 1500 * time.Millisecond, Attempts: 3, ExitCode: 22, CPU: time.Second},
	}, 2)
	p := pool([]Summary{a, b}, 2)
	assert.Equal(t, 3, p.Clients)
	assert.Equal(t, 7, p.Requests)
	assert.InDelta(t, 7.0/3, p.AttemptsMean, 1e-9)
	assert.Equal(t, 3, p.AttemptsMax)
	assert.Equal(t, 3, p.OutageClients)
	assert.InDelta(t, 5.0/3, p.OutageMean, 1e-9)
	assert.Equal(t, 2, p.Recovered)
	assert.Equal(t, 100*time.Millisecond, p.RecoveryP50)
	assert.Equal(t, 300*time.Millisecond, p.RecoveryP99)
	assert.Equal(t, 1, p.GaveUp)
	assert.Equal(t, map[int]int{0: 2, 22: 1}, p.ExitCodes)
	assert.Equal(t, 3*time.Second, p.Elapsed, "the longest run")
	assert.Equal(t, 20.0, p.PeakRPS, "the busiest 100ms of any one run, not of the runs laid over each other")
	assert.InDelta(t, 3.0/(5.4*2), p.CPUShare, 1e-9, "3 CPU-s over the 5.4s both runs took, on 2 CPUs")
	assert.Equal(t, a, pool([]Summary{a}, 2), "one run pools to itself")
}
