package main

import (
	"fmt"
	"strings"
	"time"
)

// Phase is one stretch of the server's scripted health.
type Phase struct {
	// Name labels the phase in output: "healthy", "blip" or "outage".
	Name string
	// Start and End bound the phase in time since the run began; the
	// phase holds for Start <= t < End. The last phase of a Timeline has
	// End 0, meaning it never ends.
	Start, End time.Duration
	// Down makes the server answer every request with 503.
	Down bool
}

// Timeline is the server's health over a run: contiguous phases from 0.
type Timeline struct {
	Phases []Phase
}

// downTimeline returns a timeline that is healthy until at, down (in a phase
// called name) for length, and healthy again after. A zero length gives a
// timeline that is always healthy.
func downTimeline(name string, at, length time.Duration) Timeline {
	if length <= 0 {
		return Timeline{Phases: []Phase{{Name: "healthy"}}}
	}
	return Timeline{Phases: []Phase{
		{Name: "healthy", Start: 0, End: at},
		{Name: name, Start: at, End: at + length, Down: true},
		{Name: "healthy", Start: at + length},
	}}
}

// Down reports whether the server is down at t.
func (tl Timeline) Down(t time.Duration) bool {
	for _, p := range tl.Phases {
		if t >= p.Start && (p.End == 0 || t < p.End) {
			return p.Down
		}
	}
	return false
}

// Outage returns the bounds of the first down phase; ok is false when the
// server is never down. End is the moment of recovery.
func (tl Timeline) Outage() (start, end time.Duration, ok bool) {
	for _, p := range tl.Phases {
		if p.Down {
			return p.Start, p.End, true
		}
	}
	return 0, 0, false
}

// String describes the timeline in one line, as in
// "healthy 0–200ms, outage 200ms–10.2s, healthy from 10.2s".
func (tl Timeline) String() string {
	parts := make([]string, 0, len(tl.Phases))
	for _, p := range tl.Phases {
		if p.End == 0 {
			parts = append(parts, fmt.Sprintf("%s from %v", p.Name, p.Start))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %v–%v", p.Name, p.Start, p.End))
	}
	return strings.Join(parts, ", ")
}

// Scenario is a named timeline the herd runs every policy against.
type Scenario struct {
	// Name selects the scenario on the command line and names its files.
	Name string
	// Quick marks the shortened variant used by -quick and the tests.
	Quick    bool
	Timeline Timeline
	// Tag tells apart runs of one scenario with other settings.
	Tag string
}

// FileStem is the base name of the scenario's CSV and SVG files, such as
// "herd-outage10s", "herd-outage10s-quick" or, tagged, "herd-blip-n20".
func (s Scenario) FileStem() string {
	stem := "herd-" + s.Name
	if s.Quick {
		stem += "-quick"
	}
	if s.Tag != "" {
		stem += "-" + s.Tag
	}
	return stem
}

// scenarioNames lists the scenarios in the order -scenario all runs them.
func scenarioNames() []string {
	return []string{"healthy", "blip", "outage10s", "outage60s"}
}

// scenario returns the named scenario. The trouble starts at lead, inside
// the clients' launch window, so some clients find the server healthy and
// the rest are caught. The quick variants keep the 300ms blip and shorten
// the outages to 2s and 4s so that every policy ends within seconds.
func scenario(name string, quick bool, lead time.Duration) (Scenario, error) {
	outage := map[string]time.Duration{"outage10s": 10 * time.Second, "outage60s": 60 * time.Second}
	if quick {
		outage = map[string]time.Duration{"outage10s": 2 * time.Second, "outage60s": 4 * time.Second}
	}
	s := Scenario{Name: name, Quick: quick}
	switch name {
	case "healthy":
		s.Timeline = downTimeline("", 0, 0)
	case "blip":
		s.Timeline = downTimeline("blip", lead, 300*time.Millisecond)
	case "outage10s", "outage60s":
		s.Timeline = downTimeline("outage", lead, outage[name])
	default:
		return Scenario{}, fmt.Errorf("unknown scenario %q; want one of %s or all", name, strings.Join(scenarioNames(), ", "))
	}
	return s, nil
}
