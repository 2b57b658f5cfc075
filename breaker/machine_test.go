package breaker

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is a virtual time aligned to every bucket width the tests use.
var t0 = time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)

// edgeRand always draws the lowest (hi false) or highest value.
type edgeRand struct{ hi bool }

func (r edgeRand) Int64N(n int64) int64 {
	if r.hi {
		return n - 1
	}
	return 0
}

// seeded returns a deterministic source.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// feed records outcomes one second apart from start and returns the
// circuit and the time of the last one.
// fixedCooldown is Default with every cooldown 30s (±20%), as before
// cooldowns grew: for tests about anything but the cooldown's growth.
func fixedCooldown() Config {
	cfg := Default()
	cfg.FirstCooldown, cfg.Cooldown = 30*time.Second, 30*time.Second
	return cfg
}

func feed(cfg Config, c circuit, start time.Time, outcomes ...Sample) (circuit, time.Time) {
	now := start
	for i, o := range outcomes {
		now = start.Add(time.Duration(i) * time.Second)
		c = cfg.observe(c, now, o, false, 0, false, edgeRand{})
	}
	return c, now
}

func repeat(o Sample, n int) []Sample {
	out := make([]Sample, n)
	for i := range out {
		out[i] = o
	}
	return out
}

func TestWindowCountsAnAttemptForExactlyOneWindow(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := cfg.observe(circuit{Key: "k"}, t0, Failure, false, 0, false, edgeRand{})

	f, a := cfg.counts(c, t0.Add(cfg.Window-time.Millisecond))
	assert.Equal(t, [2]int{1, 1}, [2]int{f, a}, "just inside the window")
	f, a = cfg.counts(c, t0.Add(cfg.Window))
	assert.Equal(t, [2]int{0, 0}, [2]int{f, a}, "one window later")
}

func TestWindowDropsExpiredBucketsOnUpdate(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c, _ := feed(cfg, circuit{Key: "k"}, t0, repeat(Success, 10)...)
	require.Len(t, c.Buckets, 10)

	c = cfg.observe(c, t0.Add(cfg.Window+5*time.Second), Success, false, 0, false, edgeRand{})
	assert.Len(t, c.Buckets, 5, "the buckets of seconds 6..9 remain, plus the new one")
	f, a := cfg.counts(c, t0.Add(cfg.Window+5*time.Second))
	assert.Equal(t, [2]int{0, 5}, [2]int{f, a})
}

func TestCircuitOpensAtRatioWithMinimumAttempts(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown() // ratio 0.5, min 5
	tests := []struct {
		name     string
		outcomes []Sample
		open     bool
	}{
		{"four failures are below the minimum", repeat(Failure, 4), false},
		{"five failures reach the minimum", repeat(Failure, 5), true},
		{"four of nine failed is below the ratio", append(repeat(Success, 5), repeat(Failure, 4)...), false},
		{"five of ten failed reaches the ratio", append(repeat(Success, 5), repeat(Failure, 5)...), true},
		{"successes alone never open", repeat(Success, 50), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, last := feed(cfg, circuit{Key: "k"}, t0, tt.outcomes...)
			assert.Equal(t, tt.open, c.Open)
			if tt.open {
				assert.Equal(t, Open, cfg.state(c, last))
				assert.Equal(t, last, c.OpenedAt)
			}
		})
	}
}

func TestFailuresThatLeftTheWindowDoNotOpenTheCircuit(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c, _ := feed(cfg, circuit{Key: "k"}, t0, repeat(Failure, 4)...)
	c, _ = feed(cfg, c, t0.Add(cfg.Window+10*time.Second), Failure, Success)
	assert.False(t, c.Open, "4 old failures expired; 1 of 2 recent is below the minimum")
}

func TestCooldownIsJitteredWithinTwentyPercent(t *testing.T) {
	t.Parallel()
	cfg := Default()
	assert.Equal(t, 800*time.Millisecond, cfg.cooldown(0, edgeRand{hi: false}))
	assert.Equal(t, 1200*time.Millisecond, cfg.cooldown(0, edgeRand{hi: true}))
	assert.Equal(t, 8*time.Second, cfg.cooldown(5, edgeRand{hi: false}))
	assert.Equal(t, 12*time.Second, cfg.cooldown(5, edgeRand{hi: true}))

	r := seeded(1)
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := cfg.cooldown(4, r)
		require.GreaterOrEqual(t, d, 8*time.Second)
		require.LessOrEqual(t, d, 12*time.Second)
		seen[d] = true
	}
	assert.Greater(t, len(seen), 900, "a fleet's cooldowns are spread out, not in step")

	cfg.Jitter = 0
	assert.Equal(t, cfg.Cooldown, cfg.cooldown(9, r), "no jitter means the exact cooldown")
}

func TestCooldownStartsShortAndDoublesWithEachFailedProbeUpToTheMaximum(t *testing.T) {
	t.Parallel()
	cfg := Default()
	var got []time.Duration
	for probes := range 7 {
		got = append(got, cfg.nominalCooldown(probes))
	}
	assert.Equal(t, []time.Duration{1e9, 2e9, 4e9, 8e9, 10e9, 10e9, 10e9}, got)
	assert.Equal(t, cfg.Cooldown, cfg.nominalCooldown(maxProbes), "no overflow")

	cfg.Cooldown = 500 * time.Millisecond
	assert.Equal(t, cfg.Cooldown, cfg.nominalCooldown(0), "a maximum below the first cooldown bounds it too")
}

func TestFailedProbesGrowTheCooldownAndASuccessfulOneResetsIt(t *testing.T) {
	t.Parallel()
	cfg := Default()
	cfg.Jitter = 0
	cfg.MinSpan = 0
	r := edgeRand{}
	c, _ := feed(cfg, circuit{Key: "k"}, t0, repeat(Failure, 5)...)
	require.True(t, c.Open)
	now := t0
	var cooldowns []time.Duration
	for range 5 {
		cooldowns = append(cooldowns, c.ProbeAt.Sub(c.OpenedAt))
		now = c.ProbeAt
		c = cfg.observe(c, now, Failure, true, c.Gen, false, r)
	}
	assert.Equal(t, []time.Duration{1e9, 2e9, 4e9, 8e9, 10e9}, cooldowns)

	c = cfg.observe(c, c.ProbeAt, Success, true, c.Gen, false, r)
	require.False(t, c.Open)
	c, _ = feed(cfg, c, now.Add(time.Hour), repeat(Failure, 5)...)
	require.True(t, c.Open)
	assert.Equal(t, time.Second, c.ProbeAt.Sub(c.OpenedAt), "the next outage starts short again")
}

func TestOpenedCircuitBecomesHalfOpenWhenTheCooldownEnds(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	cooldown := c.ProbeAt.Sub(c.OpenedAt)
	require.Equal(t, 24*time.Second, cooldown, "edgeRand draws the shortest cooldown")

	assert.Equal(t, Reject, cfg.decide(c, c.ProbeAt.Add(-time.Nanosecond), 1), "first attempts are refused while open")
	assert.Equal(t, HalfOpen, cfg.state(c, c.ProbeAt))
	assert.Equal(t, Probe, cfg.decide(c, c.ProbeAt, 1))
	assert.Equal(t, Probe, cfg.decide(c, c.ProbeAt.Add(time.Hour), 3), "a retry can be the probe too")
}

// tripped returns a circuit opened by five failures from t0.
func tripped(t *testing.T, cfg Config) circuit {
	t.Helper()
	c, _ := feed(cfg, circuit{Key: "k"}, t0, repeat(Failure, 5)...)
	require.True(t, c.Open)
	return c
}

func TestHalfOpenGrantsOneProbeClaimPerGeneration(t *testing.T) {
	t.Parallel()
	ttl := time.Minute
	var cl claim
	cl, granted, _ := claimProbe(cl, 7, t0, ttl)
	require.True(t, granted, "the first claim of generation 7")

	_, granted, wait := claimProbe(cl, 7, t0.Add(time.Second), ttl)
	assert.False(t, granted, "a second claim while the first is live")
	assert.Equal(t, 59*time.Second, wait)

	_, granted, _ = claimProbe(cl, 6, t0.Add(2*time.Hour), ttl)
	assert.False(t, granted, "a claim for a past generation, even after the lapse")

	next, granted, _ := claimProbe(cl, 7, t0.Add(ttl), ttl)
	assert.True(t, granted, "a dead prober's claim lapses after the probe timeout")
	assert.Equal(t, t0.Add(2*ttl), next.Until)

	_, granted, _ = claimProbe(cl, 8, t0.Add(time.Second), ttl)
	assert.True(t, granted, "the next half-open period has its own claim")
}

func TestProbeSuccessClosesTheCircuitAndClearsTheWindow(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	gen := c.Gen
	c = cfg.observe(c, c.ProbeAt, Success, true, gen, false, edgeRand{})

	assert.False(t, c.Open)
	assert.Equal(t, Closed, cfg.state(c, c.ProbeAt))
	assert.Empty(t, c.Buckets)
	assert.Equal(t, gen+1, c.Gen)
}

func TestProbeFailureReopensWithANewCooldown(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	gen, at := c.Gen, c.ProbeAt.Add(time.Second)
	c = cfg.observe(c, at, Failure, true, gen, false, edgeRand{hi: true})

	assert.True(t, c.Open)
	assert.Equal(t, gen+1, c.Gen, "a new half-open period, with its own claim")
	assert.Equal(t, at, c.OpenedAt)
	assert.Equal(t, at.Add(36*time.Second), c.ProbeAt)
	assert.Equal(t, Open, cfg.state(c, at))
}

func TestAStaleProbeCountsAsAnOrdinaryAttempt(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	at := c.ProbeAt
	c = cfg.observe(c, at, Failure, true, c.Gen, false, edgeRand{}) // reopened
	gen := c.Gen

	c = cfg.observe(c, at, Success, true, gen-1, false, edgeRand{})
	assert.True(t, c.Open, "the late result of the earlier probe does not close the circuit")
	assert.Equal(t, gen, c.Gen)
	f, a := cfg.counts(c, at)
	assert.Equal(t, [2]int{6, 7}, [2]int{f, a})
}

func TestResultsWhileOpenAreCountedWithoutReopening(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	opened, probeAt, gen := c.OpenedAt, c.ProbeAt, c.Gen
	c = cfg.observe(c, opened.Add(time.Second), Failure, false, 0, false, edgeRand{hi: true})
	assert.Equal(t, [3]any{opened, probeAt, gen}, [3]any{c.OpenedAt, c.ProbeAt, c.Gen})
}

// feedAt records outcomes on c, all at now.
func feedAt(cfg Config, c circuit, now time.Time, outcomes ...Sample) circuit {
	for _, o := range outcomes {
		c = cfg.observe(c, now, o, false, 0, false, edgeRand{})
	}
	return c
}

func TestTokenBucketDrainsOnFailuresAndRefillsOnSuccesses(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown() // 10 tokens, 0.1 per success
	cfg.Min = 1000         // keep the circuit closed: this is about the budget
	c := circuit{Key: "k"}
	now := t0 // one instant: no refilling with time

	c = feedAt(cfg, c, now, repeat(Failure, 4)...)
	assert.InDelta(t, 6, cfg.tokens(c, now), 1e-9)
	assert.Equal(t, Allow, cfg.decide(c, now, 2), "6 of 10 tokens left allow a retry")

	c = feedAt(cfg, c, now, Failure)
	assert.InDelta(t, 5, cfg.tokens(c, now), 1e-9)
	assert.Equal(t, NoBudget, cfg.decide(c, now, 2), "at half the tokens retries stop")
	assert.Equal(t, Allow, cfg.decide(c, now, 1), "first attempts are always allowed")

	c = feedAt(cfg, c, now, repeat(Failure, 20)...)
	assert.InDelta(t, 0, cfg.tokens(c, now), 1e-9, "the bucket does not go below empty")

	c = feedAt(cfg, c, now, Success)
	assert.InDelta(t, 5.1, cfg.tokens(c, now), 1e-9, "a success while retries are refused lifts the bucket just past half")
	assert.Equal(t, Allow, cfg.decide(c, now, 2), "one retry may follow the success")
	c = feedAt(cfg, c, now, Failure)
	assert.Equal(t, NoBudget, cfg.decide(c, now, 2), "and its failure takes that back")
	c = feedAt(cfg, c, now, repeat(Success, 10)...)
	assert.InDelta(t, 6.0, cfg.tokens(c, now), 1e-9, "above half, successes return 0.1 each")

	c = feedAt(cfg, c, now, repeat(Success, 200)...)
	assert.InDelta(t, 10, cfg.tokens(c, now), 1e-9, "capped at Tokens")
}

func TestTokenBucketRefillsWithTime(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown() // 10 tokens refilled over 10s: 1 a second
	cfg.Min = 1000
	c := feedAt(cfg, circuit{Key: "k"}, t0, repeat(Failure, 10)...)
	assert.InDelta(t, 0, cfg.tokens(c, t0), 1e-9)
	assert.InDelta(t, 5, cfg.tokens(c, t0.Add(5*time.Second)), 1e-9)
	assert.Equal(t, 5*time.Second+time.Millisecond, cfg.retryIn(c, t0), "until past half")
	assert.Equal(t, NoBudget, cfg.decide(c, t0.Add(5*time.Second), 2))
	assert.Equal(t, Allow, cfg.decide(c, t0.Add(5*time.Second+time.Millisecond), 2))
	assert.Zero(t, cfg.retryIn(c, t0.Add(6*time.Second)))
	assert.InDelta(t, 10, cfg.tokens(c, t0.Add(time.Hour)), 1e-9, "capped at Tokens")

	c = feedAt(cfg, c, t0.Add(2*time.Second), Failure)
	assert.InDelta(t, 1, cfg.tokens(c, t0.Add(2*time.Second)), 1e-9, "2 refilled, 1 taken")

	old := circuit{Key: "k", Spent: 8} // a record from before refilling
	assert.InDelta(t, 2, cfg.tokens(old, t0.Add(time.Hour)), 1e-9, "no time to refill from")
	old = feedAt(cfg, old, t0, Failure)
	assert.InDelta(t, 1+3, cfg.tokens(old, t0.Add(3*time.Second)), 1e-9, "refills from its first update on")
}

func TestASuccessfulProbeRestoresTheWholeBudget(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	cfg.MinSpan = 0
	c := feedAt(cfg, circuit{Key: "k"}, t0, repeat(Failure, 10)...)
	require.True(t, c.Open)
	c = cfg.observe(c, c.ProbeAt, Success, true, c.Gen, false, edgeRand{})
	require.False(t, c.Open)
	assert.InDelta(t, 10, cfg.tokens(c, c.SpentAt), 1e-9)
}

func TestRunBudgetAllowsExactlyTheLimit(t *testing.T) {
	t.Parallel()
	r := run{ID: "ci"}
	var taken int
	for range 5 {
		var ok bool
		if r, ok = takeRun(r, 3); ok {
			taken++
		}
	}
	assert.Equal(t, 3, taken)
	assert.Equal(t, 3, r.Used)

	_, ok := takeRun(run{ID: "ci"}, 0)
	assert.False(t, ok, "a limit of 0 allows no retries")
}

func TestResetClosesAndMovesToTheNextGeneration(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	c := tripped(t, cfg)
	r := cfg.reset(c)
	assert.Equal(t, circuit{Key: "k", Gen: c.Gen + 1}, r)
	assert.Equal(t, Allow, cfg.decide(r, t0, 2))
}

func TestConfigValidateNamesTheBadField(t *testing.T) {
	t.Parallel()
	require.NoError(t, Default().Validate())
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"zero window", func(c *Config) { c.Window = 0 }, "window"},
		{"ratio above one", func(c *Config) { c.Ratio = 1.5 }, "ratio"},
		{"zero ratio", func(c *Config) { c.Ratio = 0 }, "ratio"},
		{"min zero", func(c *Config) { c.Min = 0 }, "min"},
		{"negative cooldown", func(c *Config) { c.Cooldown = -time.Second }, "cooldown"},
		{"jitter of one", func(c *Config) { c.Jitter = 1 }, "jitter"},
		{"zero probe timeout", func(c *Config) { c.ProbeTimeout = 0 }, "probe timeout"},
		{"no tokens", func(c *Config) { c.Tokens = 0 }, "tokens"},
		{"negative token ratio", func(c *Config) { c.TokenRatio = -1 }, "token ratio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := fixedCooldown()
			tt.change(&cfg)
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestTheRampAdmitsWaitingRunsInASlowStart(t *testing.T) {
	t.Parallel()
	assert.Zero(t, rampOffset(0), "the first run that waited goes at once")
	count := func(from, to time.Duration) int {
		n := 0
		for k := range 1000 {
			if d := rampOffset(k); d >= from && d < to {
				n++
			}
		}
		return n
	}
	// 8 a second at first, doubling every second.
	assert.Equal(t, []int{12, 23, 46, 93}, []int{count(0, time.Second), count(time.Second, 2*time.Second), count(2*time.Second, 3*time.Second), count(3*time.Second, 4*time.Second)})
	for k := 1; k < 1000; k++ {
		require.Greater(t, rampOffset(k), rampOffset(k-1), "slot %d comes after slot %d", k, k-1)
	}
	// 60 runs are all admitted within 2.7s, at most 36 in any second.
	assert.Less(t, rampOffset(59), 2700*time.Millisecond)
	peak := 0
	for k := range 60 {
		n := 0
		for j := k; j < 60 && rampOffset(j) < rampOffset(k)+time.Second; j++ {
			n++
		}
		peak = max(peak, n)
	}
	assert.LessOrEqual(t, peak, 36)
}

func TestEachRunThatWaitedTakesTheNextSlotOfTheRamp(t *testing.T) {
	t.Parallel()
	cfg := fixedCooldown()
	cfg.MinSpan = 0
	c := feedAt(cfg, circuit{Key: "k"}, t0, repeat(Failure, 5)...)
	_, at := admit(c, t0)
	assert.Equal(t, t0, at, "an open circuit has no ramp")

	closed := c.ProbeAt
	c = cfg.observe(c, closed, Success, true, c.Gen, false, edgeRand{})
	require.False(t, c.Open)
	var ats []time.Time
	for range 3 {
		c, at = admit(c, closed.Add(time.Second))
		ats = append(ats, at)
	}
	assert.Equal(t, []time.Time{closed, closed.Add(rampOffset(1)), closed.Add(rampOffset(2))}, ats)
	assert.Equal(t, 3, c.Admitted)

	c = feedAt(cfg, c, closed.Add(time.Hour), repeat(Failure, 5)...)
	require.True(t, c.Open)
	c = cfg.observe(c, c.ProbeAt, Success, true, c.Gen, false, edgeRand{})
	assert.Zero(t, c.Admitted, "a new close starts a new ramp")
}
