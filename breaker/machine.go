package breaker

// This file is the breaker's state machine. Every function here is pure: it
// takes the stored state, the current time and, where it draws a cooldown, a
// random source, and returns the new state and a decision. Stores only
// persist what these functions return.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// State is where a circuit is in its cycle.
type State int

const (
	// Closed lets every attempt run.
	Closed State = iota
	// Open refuses attempts until the cooldown ends.
	Open
	// HalfOpen lets exactly one run probe; the others act as if open.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// MarshalText writes the state as String does, for JSON.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Verdict is the answer to "may this attempt run?".
type Verdict int

const (
	// Allow means run the attempt and record its outcome.
	Allow Verdict = iota + 1
	// Probe means run exactly one attempt as the half-open probe and
	// record its outcome: success closes the circuit, failure reopens it.
	Probe
	// Reject means the circuit is open: do not run the command.
	Reject
	// NoBudget means the retry budget is spent: do not retry (first
	// attempts are never refused for budget).
	NoBudget
)

// String returns "allow", "probe", "reject" or "no-budget".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Probe:
		return "probe"
	case Reject:
		return "reject"
	case NoBudget:
		return "no-budget"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Sample is one attempt as the breaker counts it: a Success or a
// Failure. Terminal failures and cancellations are not recorded at all.
// (It is not runner.Attempt, the attempt itself, nor report.Outcome, how
// a whole run ended.)
type Sample int

const (
	// Success is an attempt that succeeded.
	Success Sample = iota + 1
	// Failure is an attempt that failed transiently.
	Failure
)

// Rand is the source of randomness for cooldown jitter. A *rand.Rand from
// math/rand/v2 satisfies it.
type Rand interface {
	// Int64N returns a uniform number in [0, n); n is always positive.
	Int64N(n int64) int64
}

// circuit is the stored state of one circuit key.
type circuit struct {
	// Key is the circuit's key, kept so that List can name it.
	Key string
	// Gen counts the circuit's transitions (open, reopen, close, reset).
	// A probe claim is for one generation, so a stale prober can neither
	// claim a later half-open period nor close a circuit it did not probe.
	Gen uint64
	// Open is set from the moment the circuit opens until a probe
	// succeeds.
	Open bool
	// OpenedAt is when the circuit last opened or reopened.
	OpenedAt time.Time
	// ProbeAt is when the cooldown ends and the circuit is half-open.
	ProbeAt time.Time
	// Probes counts the failed probes since the circuit opened: the
	// cooldown doubles with each.
	Probes int
	// ClosedAt is when a probe last closed the circuit, and Admitted how
	// many runs that had waited for it have taken a slot of the ramp since.
	ClosedAt time.Time
	Admitted int
	// Waiters holds a lease per run waiting in Await: when it lapses, in
	// Unix milliseconds. A run renews its lease while it waits and drops
	// it when it stops; a run killed while waiting leaves a lease that
	// lapses by itself.
	Waiters []int64
	// Buckets count the attempts of the window, oldest first.
	Buckets []bucket
	// Spent is how many of Config.Tokens were taken at SpentAt, in
	// [0, Tokens]; the budget refills with time from then. A zero
	// SpentAt (a record from before refilling) refills from the next
	// update on.
	Spent   float64
	SpentAt time.Time
}

// bucket counts the attempts that started in one slice of the window.
type bucket struct {
	// Start is the slice's start in Unix milliseconds, a multiple of the
	// bucket width.
	Start int64
	// OK and Fail count successes and transient failures.
	OK, Fail int
}

// state returns where c is at now.
func (cfg Config) state(c circuit, now time.Time) State {
	switch {
	case !c.Open:
		return Closed
	case now.Before(c.ProbeAt):
		return Open
	}
	return HalfOpen
}

// failureSpan returns how long the failures in the window ending at now
// span, to the bucket: from the start of the first bucket with a failure
// to the start of the last.
func (cfg Config) failureSpan(c circuit, now time.Time) time.Duration {
	ms, window := now.UnixMilli(), cfg.Window.Milliseconds()
	first, last := int64(-1), int64(-1)
	for _, b := range c.Buckets {
		if ms-b.Start < window && b.Fail > 0 {
			if first < 0 {
				first = b.Start
			}
			last = b.Start
		}
	}
	if first < 0 {
		return 0
	}
	return time.Duration(last-first) * time.Millisecond
}

// minSpan is MinSpan to the bucket: a window whose buckets are wider than
// MinSpan cannot tell a blip from an outage, and asks for no span.
func (cfg Config) minSpan() time.Duration {
	width := time.Duration(cfg.bucketWidth()) * time.Millisecond
	return cfg.MinSpan / width * width
}

// counts returns the failures and attempts in the window ending at now.
func (cfg Config) counts(c circuit, now time.Time) (failures, attempts int) {
	ms, window := now.UnixMilli(), cfg.Window.Milliseconds()
	for _, b := range c.Buckets {
		if ms-b.Start < window {
			failures += b.Fail
			attempts += b.OK + b.Fail
		}
	}
	return failures, attempts
}

// refill is how many tokens the retry budget regains per second.
func (cfg Config) refill() float64 {
	return cfg.Tokens / cfg.Refill.Seconds()
}

// spent returns the tokens taken from c's retry budget at now.
func (cfg Config) spent(c circuit, now time.Time) float64 {
	spent := min(max(c.Spent, 0), cfg.Tokens)
	if !c.SpentAt.IsZero() && now.After(c.SpentAt) {
		spent = max(spent-cfg.refill()*now.Sub(c.SpentAt).Seconds(), 0)
	}
	return spent
}

// tokens returns the tokens left in c's retry budget at now.
func (cfg Config) tokens(c circuit, now time.Time) float64 {
	return cfg.Tokens - cfg.spent(c, now)
}

// retryAllowed reports whether c's budget allows a retry at now: more than
// half of the tokens are left.
func (cfg Config) retryAllowed(c circuit, now time.Time) bool {
	return cfg.tokens(c, now) > cfg.Tokens/2
}

// retryIn returns how long from now until c's budget allows a retry, as
// it refills: 0 when it does now.
func (cfg Config) retryIn(c circuit, now time.Time) time.Duration {
	over := cfg.spent(c, now) - cfg.Tokens/2
	if over < 0 {
		return 0
	}
	// A millisecond more, so that the budget is past the line, not on it.
	return time.Duration(over/cfg.refill()*float64(time.Second)) + time.Millisecond
}

// decide answers whether attempt number attempt (from 1) may start at now.
// Probe means the circuit is half-open and the caller must still win the
// probe claim for generation c.Gen; without it the verdict is Reject.
func (cfg Config) decide(c circuit, now time.Time, attempt int) Verdict {
	switch cfg.state(c, now) {
	case Open:
		return Reject
	case HalfOpen:
		return Probe
	}
	if attempt > 1 && !cfg.retryAllowed(c, now) {
		return NoBudget
	}
	return Allow
}

// reserve returns c with one token of its retry budget taken at now, for a
// retry that decide has just allowed: the retry's failure will have
// spent it (observe with reserved set takes no other), its success gives
// it back.
func (cfg Config) reserve(c circuit, now time.Time) circuit {
	c.Spent, c.SpentAt = min(cfg.spent(c, now)+1, cfg.Tokens), now
	return c
}

// observe returns c after an attempt counted as o ended at now. probe
// tells whether the attempt ran as the probe of generation gen; a probe of
// a generation that has passed counts as an ordinary attempt. reserved
// tells that the attempt was a retry whose token reserve took. A cooldown is
// drawn from r only when the circuit opens or reopens.
func (cfg Config) observe(c circuit, now time.Time, o Sample, probe bool, gen uint64, reserved bool, r Rand) circuit {
	c = cfg.prune(c, now)
	failed := o == Failure
	c.Spent, c.SpentAt = cfg.spent(c, now), now
	if reserved && !failed {
		c.Spent = max(c.Spent-1, 0) // the retry's token, taken by reserve, comes back
	}
	switch {
	case failed && reserved:
		// its token was taken when the retry was allowed
	case failed:
		c.Spent = min(c.Spent+1, cfg.Tokens)
	case c.Spent >= cfg.Tokens/2:
		// A success while the budget refuses retries is the dependency
		// answering again: it lets one retry through (the next failure
		// takes that back). Retries then follow successes one for one,
		// and the runs waiting for the budget after a blip are not held
		// until time alone refills it.
		c.Spent = max(min(c.Spent-cfg.TokenRatio, cfg.Tokens/2-cfg.TokenRatio), 0)
	default:
		c.Spent = max(c.Spent-cfg.TokenRatio, 0)
	}
	if probe && c.Open && c.Gen == gen {
		c.Gen++
		if !failed {
			// The dependency is back: so is the whole retry budget,
			// which the outage's failures had spent.
			c.Open, c.OpenedAt, c.ProbeAt, c.Buckets, c.Probes, c.Spent = false, time.Time{}, time.Time{}, nil, 0, 0
			c.ClosedAt, c.Admitted = now, 0
			return c
		}
		c = cfg.add(c, now, failed)
		c.Probes++
		return cfg.trip(c, now, r)
	}
	c = cfg.add(c, now, failed)
	if c.Open {
		return c
	}
	failures, attempts := cfg.counts(c, now)
	if attempts >= cfg.Min && float64(failures)/float64(attempts) >= cfg.Ratio && cfg.failureSpan(c, now) >= cfg.minSpan() {
		c.Gen++
		c.Probes = 0
		return cfg.trip(c, now, r)
	}
	return c
}

// trip opens c at now with a cooldown drawn for its c.Probes failed probes.
func (cfg Config) trip(c circuit, now time.Time, r Rand) circuit {
	c.Open, c.OpenedAt, c.ProbeAt = true, now, now.Add(cfg.cooldown(c.Probes, r))
	return c
}

// nominalCooldown is the cooldown after probes failed probes, before
// jitter: FirstCooldown doubled probes times, at most Cooldown.
func (cfg Config) nominalCooldown(probes int) time.Duration {
	d := min(cfg.FirstCooldown, cfg.Cooldown)
	for range probes {
		if d >= cfg.Cooldown/2 {
			return cfg.Cooldown
		}
		d *= 2
	}
	return d
}

// cooldown draws the cooldown after probes failed probes uniformly from
// its nominal value ±Jitter of it.
func (cfg Config) cooldown(probes int, r Rand) time.Duration {
	d := cfg.nominalCooldown(probes)
	j := time.Duration(float64(d) * cfg.Jitter)
	if j <= 0 {
		return d
	}
	return d - j + time.Duration(r.Int64N(int64(2*j)+1))
}

// add counts one attempt that ended at now in its bucket. The buckets stay
// sorted by start even when clocks disagree.
func (cfg Config) add(c circuit, now time.Time, failed bool) circuit {
	ms := now.UnixMilli()
	start := ms - ms%cfg.bucketWidth()
	c.Buckets = slices.Clone(c.Buckets)
	i, found := slices.BinarySearchFunc(c.Buckets, start, func(b bucket, t int64) int { return cmp.Compare(b.Start, t) })
	if !found {
		c.Buckets = slices.Insert(c.Buckets, i, bucket{Start: start})
	}
	if failed {
		c.Buckets[i].Fail++
	} else {
		c.Buckets[i].OK++
	}
	return c
}

// prune drops the buckets that have left the window at now, and the oldest
// ones beyond a bound should clocks have put some in the future.
func (cfg Config) prune(c circuit, now time.Time) circuit {
	ms, window := now.UnixMilli(), cfg.Window.Milliseconds()
	kept := make([]bucket, 0, len(c.Buckets))
	for _, b := range c.Buckets {
		if ms-b.Start < window && b.OK >= 0 && b.Fail >= 0 {
			kept = append(kept, b)
		}
	}
	if over := len(kept) - 2*bucketsPerWindow; over > 0 {
		kept = kept[over:]
	}
	if len(kept) == 0 {
		kept = nil
	}
	c.Buckets = kept
	return c
}

// reset returns c cleared: closed, an empty window and a full budget. The
// generation moves on so that no earlier probe claim applies.
func (cfg Config) reset(c circuit) circuit {
	return circuit{Key: c.Key, Gen: c.Gen + 1}
}

// rampRate is how many waiting runs per second the ramp admits in its
// first second after a probe closed the circuit; the rate doubles every
// second after that.
const rampRate = 8.0

// rampOffset is when, after the circuit closed, the waiting run that took
// slot k (from 0) of the ramp may go: admissions start at rampRate a
// second and double every second, a slow start. By t seconds after the
// close rampRate·(2^t−1)/ln 2 runs are admitted: 11 in the first second,
// 35 by the second, 81 by the third, 173 by the fourth.
func rampOffset(k int) time.Duration {
	return time.Duration(math.Log2(1+float64(k)*math.Ln2/rampRate) * float64(time.Second))
}

// admit takes the next slot of c's ramp for a run that waited for c at
// now, and returns c and when the run may go. A circuit that is open, or
// that no probe has closed, has no ramp: the run may go now.
func admit(c circuit, now time.Time) (circuit, time.Time) {
	if c.Open || c.ClosedAt.IsZero() {
		return c, now
	}
	at := c.ClosedAt.Add(rampOffset(c.Admitted))
	c.Admitted++
	return c, at
}

// maxWaiters bounds the leases a record keeps: past it the leases that
// lapse soonest are dropped, and the count says "at least".
const maxWaiters = 1000

// waiting returns how many leases of c are live at now.
func waiting(c circuit, now time.Time) int {
	n, ms := 0, now.UnixMilli()
	for _, w := range c.Waiters {
		if w > ms {
			n++
		}
	}
	return n
}

// lease returns c with the lease until replaced by one until until (a
// zero time adds none, a zero until removes none), and the lapsed
// leases dropped.
func lease(c circuit, now, replaced, until time.Time) circuit {
	ms := now.UnixMilli()
	kept := make([]int64, 0, len(c.Waiters)+1)
	dropped := replaced.IsZero()
	for _, w := range c.Waiters {
		if !dropped && w == replaced.UnixMilli() {
			dropped = true
			continue
		}
		if w > ms {
			kept = append(kept, w)
		}
	}
	if !until.IsZero() {
		kept = append(kept, until.UnixMilli())
	}
	if len(kept) > maxWaiters {
		slices.Sort(kept)
		kept = kept[len(kept)-maxWaiters:]
	}
	if len(kept) == 0 {
		kept = nil
	}
	c.Waiters = kept
	return c
}

// claim is a probe claim as the file store keeps it.
type claim struct {
	// Gen is the circuit generation the claim is for.
	Gen uint64
	// Until is when the claim lapses.
	Until time.Time
}

// claimProbe decides a claim for generation gen at now. It is granted
// unless a claim for the same generation is still live, or a claim for a
// later generation exists (the asker's view is stale). When it is refused,
// wait is the time left on the live claim.
func claimProbe(cl claim, gen uint64, now time.Time, ttl time.Duration) (next claim, granted bool, wait time.Duration) {
	switch {
	case cl.Gen > gen:
		return cl, false, max(cl.Until.Sub(now), 0)
	case cl.Gen == gen && now.Before(cl.Until):
		return cl, false, cl.Until.Sub(now)
	}
	return claim{Gen: gen, Until: now.Add(ttl)}, true, 0
}

// run is the stored state of one run budget.
type run struct {
	// ID is the run id, kept so the record names itself.
	ID string
	// Used is how many retries the run has taken.
	Used int
}

// takeRun takes one retry from r if fewer than limit are used.
func takeRun(r run, limit int) (run, bool) {
	if r.Used >= limit {
		return r, false
	}
	r.Used++
	return r, true
}
