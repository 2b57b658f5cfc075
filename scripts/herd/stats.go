package main

import (
	"math"
	"slices"
	"sort"
	"time"
)

// bucketWidth is the time resolution of the CSV, the chart and the peaks.
const bucketWidth = 100 * time.Millisecond

// afterRecovery is the span after recovery whose peak the summary reports
// on its own: the moment a herd would hit.
const afterRecovery = 2 * time.Second

// windowPeak returns the largest number of times inside any window
// [t, t+width) that lies within [from, to). times must be sorted. Windows
// start anywhere, not on a grid, so a burst split by a bucket boundary is
// still seen whole.
func windowPeak(times []time.Duration, width, from, to time.Duration) int {
	lo := sort.Search(len(times), func(i int) bool { return times[i] >= from })
	hi := sort.Search(len(times), func(i int) bool { return times[i] >= to })
	in := times[lo:hi]
	// The best window can always be moved right until it starts at a time;
	// one that would cross to holds no more than the window ending at to,
	// which starts at or before its first time, so clipping at hi is exact.
	peak, j := 0, 0
	for i := range in {
		for j < len(in) && in[j] < in[i]+width {
			j++
		}
		peak = max(peak, j-i)
	}
	return peak
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted: the smallest value with at least p% of the values at or below it.
// It returns false for an empty slice.
func percentile(sorted []time.Duration, p float64) (time.Duration, bool) {
	if len(sorted) == 0 {
		return 0, false
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1], true
}

// bucket counts the requests that arrived in one bucketWidth of time.
type bucket struct {
	Requests, Successes, Unavailable int
}

// bucketize counts events into buckets of bucketWidth from 0, enough of
// them to cover end.
func bucketize(events []event, end time.Duration) []bucket {
	n := int((end + bucketWidth - 1) / bucketWidth)
	for _, e := range events {
		n = max(n, int(e.At/bucketWidth)+1)
	}
	out := make([]bucket, n)
	for _, e := range events {
		b := &out[e.At/bucketWidth]
		b.Requests++
		if e.Outcome == Served {
			b.Successes++
		} else {
			b.Unavailable++
		}
	}
	return out
}

// Summary is what one policy did to the server and for its clients.
type Summary struct {
	// Clients is the number of clients launched.
	Clients int
	// Requests is every request the server saw; ClientAttempts is the sum
	// of the attempts the clients themselves reported (one curl error line
	// per failed attempt, plus one for a success). They differ only when a
	// request never reached the server.
	Requests, ClientAttempts int
	// AttemptsMean and AttemptsMax are requests per client, over all clients.
	AttemptsMean float64
	AttemptsMax  int
	// OutageClients is how many clients were running while the server was
	// down: started before recovery, not done (exited or served) before
	// the outage began. A client a breaker stopped before any attempt
	// counts, with no request. OutageMean and OutageMax are requests per
	// such client that arrived during the down phase; OutageRequests is
	// their total.
	OutageClients             int
	OutageMean                float64
	OutageMax, OutageRequests int
	// PeakRPS is the most requests in any 100ms window, per second.
	PeakRPS float64
	// PeakAfterRPS is the same within afterRecovery of recovery, and
	// PeakLaterRPS from then to the end of the run.
	PeakAfterRPS, PeakLaterRPS float64
	// Peak1sAfterRPS is the most requests in any 1s window from recovery
	// to the end of the run: what a dependency just back must absorb.
	Peak1sAfterRPS float64
	// Recovered counts the clients running during the outage that
	// succeeded after it; RecoveryP50 and RecoveryP99 are their times from
	// recovery to success.
	Recovered                int
	RecoveryP50, RecoveryP99 time.Duration
	// GaveUp counts clients that exited non-zero or were killed; Killed
	// counts those the harness had to kill at their deadline, Lingered
	// those whose stderr outlived them (see clientResult).
	GaveUp, Killed, Lingered int
	// ExitCodes counts the clients' exit codes (-1 for killed by signal).
	ExitCodes map[int]int
	// Elapsed runs from the first launch slot to the last client's exit.
	Elapsed time.Duration
	// GapP50 is the median time between two consecutive requests of one
	// client. For the naive loop it is the cost of starting a process and
	// making a request on this machine, as loaded as it was.
	GapP50 time.Duration
	// CPU is the processor time all clients used, and CPUShare that time
	// over the CPU time the machine had while they ran (Elapsed × CPUs).
	// A share near 1 means the run was CPU-bound: processes queued for a
	// core, so launches came late and attempts slower than the policy asks.
	CPU      time.Duration
	CPUShare float64
	// LaunchLate is the longest delay between a client's slot and its
	// start: how far a loaded machine bent the launch schedule.
	LaunchLate time.Duration
	// HasOutage is set when the timeline has a down phase, so the outage
	// and recovery fields mean something.
	HasOutage bool

	// The raw values behind the percentiles, and the summed Elapsed of the
	// runs behind CPUShare, kept so that repeated runs can be pooled.
	recoveries, gaps []time.Duration
	wall             time.Duration
}

// summarize computes a policy's Summary from the server's events and the
// clients' results.
func summarize(tl Timeline, events []event, clients []clientResult, cpus int) Summary {
	s := Summary{Clients: len(clients), Requests: len(events), ExitCodes: map[int]int{}}
	perClient := make([]int, len(clients))
	inOutage := make([]int, len(clients))
	succeeded := make([]time.Duration, len(clients))
	for i := range succeeded {
		succeeded[i] = -1
	}
	start, end, hasOutage := tl.Outage()
	s.HasOutage = hasOutage
	times := make([]time.Duration, 0, len(events))
	last := make([]time.Duration, len(clients))
	var gaps []time.Duration
	for _, e := range events {
		times = append(times, e.At)
		if e.Client < 0 || e.Client >= len(clients) {
			continue
		}
		if perClient[e.Client] > 0 {
			gaps = append(gaps, e.At-last[e.Client])
		}
		perClient[e.Client]++
		last[e.Client] = e.At
		if hasOutage && e.At >= start && e.At < end {
			inOutage[e.Client]++
		}
		if e.Outcome == Served && succeeded[e.Client] < 0 {
			succeeded[e.Client] = e.At
		}
	}
	slices.Sort(times)

	for i, c := range clients {
		s.AttemptsMax = max(s.AttemptsMax, perClient[i])
		s.ClientAttempts += c.Attempts
		s.ExitCodes[c.ExitCode]++
		if c.ExitCode != 0 {
			s.GaveUp++
		}
		if c.Killed {
			s.Killed++
		}
		if c.Lingered {
			s.Lingered++
		}
		s.Elapsed = max(s.Elapsed, c.Exited)
		s.LaunchLate = max(s.LaunchLate, c.Launched-c.Slot)
		s.CPU += c.CPU
		ranInOutage := hasOutage && c.Launched < end && c.Exited > start &&
			(succeeded[i] < 0 || succeeded[i] >= start)
		if ranInOutage {
			s.OutageClients++
			s.OutageRequests += inOutage[i]
			s.OutageMax = max(s.OutageMax, inOutage[i])
			if succeeded[i] >= end {
				s.recoveries = append(s.recoveries, succeeded[i]-end)
			}
		}
	}
	perSecond := float64(time.Second / bucketWidth)
	forever := time.Duration(math.MaxInt64)
	s.PeakRPS = float64(windowPeak(times, bucketWidth, 0, forever)) * perSecond
	if hasOutage {
		s.PeakAfterRPS = float64(windowPeak(times, bucketWidth, end, end+afterRecovery)) * perSecond
		s.PeakLaterRPS = float64(windowPeak(times, bucketWidth, end+afterRecovery, forever)) * perSecond
		s.Peak1sAfterRPS = float64(windowPeak(times, time.Second, end, forever))
	}
	s.gaps = gaps
	s.wall = s.Elapsed
	s.derive(cpus)
	return s
}

// derive computes the means, shares and percentiles from the counts and
// the raw values.
func (s *Summary) derive(cpus int) {
	s.AttemptsMean, s.OutageMean, s.CPUShare = 0, 0, 0
	if s.Clients > 0 {
		s.AttemptsMean = float64(s.Requests) / float64(s.Clients)
	}
	if s.OutageClients > 0 {
		s.OutageMean = float64(s.OutageRequests) / float64(s.OutageClients)
	}
	if s.wall > 0 && cpus > 0 {
		s.CPUShare = s.CPU.Seconds() / (s.wall.Seconds() * float64(cpus))
	}
	slices.Sort(s.gaps)
	s.GapP50, _ = percentile(s.gaps, 50)
	slices.Sort(s.recoveries)
	s.Recovered = len(s.recoveries)
	s.RecoveryP50, _ = percentile(s.recoveries, 50)
	s.RecoveryP99, _ = percentile(s.recoveries, 99)
}

// pool merges the summaries of repeated runs of one policy into one, as if
// their clients had been one larger herd for counts, means and
// percentiles, while peaks, maxima and Elapsed are the largest of any run
// (a peak is a property of one run's timeline, not of the sum).
func pool(runs []Summary, cpus int) Summary {
	p := Summary{ExitCodes: map[int]int{}}
	for _, s := range runs {
		p.HasOutage = p.HasOutage || s.HasOutage
		p.Clients += s.Clients
		p.Requests += s.Requests
		p.ClientAttempts += s.ClientAttempts
		p.AttemptsMax = max(p.AttemptsMax, s.AttemptsMax)
		p.OutageClients += s.OutageClients
		p.OutageRequests += s.OutageRequests
		p.OutageMax = max(p.OutageMax, s.OutageMax)
		p.PeakRPS = max(p.PeakRPS, s.PeakRPS)
		p.PeakAfterRPS = max(p.PeakAfterRPS, s.PeakAfterRPS)
		p.PeakLaterRPS = max(p.PeakLaterRPS, s.PeakLaterRPS)
		p.Peak1sAfterRPS = max(p.Peak1sAfterRPS, s.Peak1sAfterRPS)
		p.GaveUp += s.GaveUp
		p.Killed += s.Killed
		p.Lingered += s.Lingered
		for code, n := range s.ExitCodes {
			p.ExitCodes[code] += n
		}
		p.Elapsed = max(p.Elapsed, s.Elapsed)
		p.LaunchLate = max(p.LaunchLate, s.LaunchLate)
		p.CPU += s.CPU
		p.wall += s.wall
		p.recoveries = append(p.recoveries, s.recoveries...)
		p.gaps = append(p.gaps, s.gaps...)
	}
	p.derive(cpus)
	return p
}
