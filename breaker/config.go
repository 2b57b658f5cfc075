package breaker

import (
	"errors"
	"fmt"
	"time"
)

// Config holds the tunables of the circuit breaker and the retry budget.
// Default returns the documented defaults; a caller changes fields from
// there and checks the result with Validate.
type Config struct {
	// Window is how far back the breaker looks when it counts attempts.
	// Counts are kept in buckets of Window/60, so an attempt leaves the
	// window between Window-Window/60 and Window after it was recorded.
	Window time.Duration
	// Ratio is the share of failed attempts in the window, in (0, 1], at
	// which the circuit opens.
	Ratio float64
	// Min is the number of attempts the window must hold before the
	// circuit can open.
	Min int
	// MinSpan is how long the failures in the window must span before the
	// circuit can open: a blip fails every caller at once, for a moment,
	// and must not stop the traffic for a whole cooldown; an outage goes
	// on failing. 0 lets failures of a single moment open it.
	MinSpan time.Duration
	// FirstCooldown is how long a circuit that has just opened stays open
	// before one probe may run. Each failed probe doubles the next
	// cooldown, up to Cooldown; a successful probe (or a reset) starts
	// again from FirstCooldown. Each cooldown is then jittered by
	// ±Jitter of itself. FirstCooldown above Cooldown counts as Cooldown.
	FirstCooldown time.Duration
	// Cooldown is the longest cooldown: the bound of the doubling.
	Cooldown time.Duration
	// Jitter is the fraction, in [0, 1), by which a cooldown varies so
	// that a fleet does not probe in step.
	Jitter float64
	// ProbeTimeout is how long a probe claim lasts. A prober that dies
	// or hangs loses its claim after this time and another run probes.
	ProbeTimeout time.Duration
	// Tokens is the size of the retry budget. Each failed attempt takes a
	// token; retries are refused while at most Tokens/2 are left.
	Tokens float64
	// TokenRatio is the number of tokens each successful attempt returns.
	TokenRatio float64
	// Refill is how long the budget takes to refill from empty with time
	// alone: in an outage it lets through one retry every Refill/Tokens,
	// each of which tells whether the outage is over (and keeps its
	// failures spanning long enough to open the circuit).
	Refill time.Duration
}

// Default returns the built-in tunables: a 60s window, opening at a 0.5
// failure ratio with at least 5 attempts, cooldowns of 1s doubling with
// each failed probe up to 10s, jittered by ±20%, a 60s probe claim, and a
// budget of 10 tokens refilled at 0.1 per success and, with time, over 10s.
//
// The cooldown bounds how late the first run learns that an outage is
// over: after the dependency recovers, the next probe comes within one
// cooldown (and its jitter). 10s keeps that under 12s for an outage of any
// length, while one probe every 10s is no load on anything; starting at
// 1s finds the end of a short outage within about its own length.
func Default() Config {
	return Config{
		Window:        60 * time.Second,
		Ratio:         0.5,
		Min:           5,
		MinSpan:       3 * time.Second,
		FirstCooldown: time.Second,
		Cooldown:      10 * time.Second,
		Jitter:        0.2,
		ProbeTimeout:  60 * time.Second,
		Tokens:        10,
		TokenRatio:    0.1,
		Refill:        10 * time.Second,
	}
}

// Validate reports the first field that is out of range, naming it.
func (c Config) Validate() error {
	switch {
	case c.Window < time.Millisecond:
		return fmt.Errorf("window %v: must be at least 1ms", c.Window)
	case !(c.Ratio > 0 && c.Ratio <= 1):
		return fmt.Errorf("ratio %v: must be in (0, 1]", c.Ratio)
	case c.Min < 1:
		return fmt.Errorf("min %d: must be at least 1", c.Min)
	case c.MinSpan < 0 || c.MinSpan >= c.Window:
		return fmt.Errorf("min span %v: must be at least 0 and shorter than the window %v", c.MinSpan, c.Window)
	case c.Cooldown <= 0:
		return fmt.Errorf("cooldown %v: must be positive", c.Cooldown)
	case c.FirstCooldown <= 0:
		return fmt.Errorf("first cooldown %v: must be positive", c.FirstCooldown)
	case !(c.Jitter >= 0 && c.Jitter < 1):
		return fmt.Errorf("jitter %v: must be in [0, 1)", c.Jitter)
	case c.ProbeTimeout < time.Millisecond:
		return fmt.Errorf("probe timeout %v: must be at least 1ms", c.ProbeTimeout)
	case !(c.Tokens > 0):
		return fmt.Errorf("tokens %v: must be positive", c.Tokens)
	case !(c.TokenRatio >= 0):
		return fmt.Errorf("token ratio %v: must not be negative", c.TokenRatio)
	case c.Refill < time.Millisecond:
		return fmt.Errorf("refill %v: must be at least 1ms", c.Refill)
	}
	return nil
}

// errEmptyKey is returned for an empty circuit key or run id.
var errEmptyKey = errors.New("empty key")

// bucketWidth is the granularity of the sliding window, in milliseconds.
func (c Config) bucketWidth() int64 {
	return max(c.Window.Milliseconds()/bucketsPerWindow, 1)
}

// ttl is how long a store keeps a circuit nobody updates: a few windows,
// and always longer than an open circuit can last without an update.
func (c Config) ttl() time.Duration {
	return 3*c.Window + 2*c.Cooldown + c.ProbeTimeout
}

// runTTL is how long a store keeps a run budget nobody takes from. CI jobs
// rarely last longer; a longer one only starts a fresh budget.
const runTTL = 24 * time.Hour

// bucketsPerWindow is how many buckets the window is cut into.
const bucketsPerWindow = 60
