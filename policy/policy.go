// Package policy decides when a failed command is tried again: a fast phase
// of near-immediate retries for blips, then an exponential slow phase for
// outages, with jitter, inside one total deadline that no wait may cross.
//
// The package never sleeps and never reads the clock: the caller passes the
// attempt number, the time used so far and a random source, and gets back a
// Decision. That keeps every rule testable exactly and instantly.
//
// What this package decides is the schedule, and retry's documentation
// calls it that: to its users a policy is a named set of flag settings
// chosen with -p (cmd), and a profile is a built-in one. The package and
// its Policy type keep the name a retry schedule has in the literature.
package policy

import (
	"fmt"
	"time"
)

// Phase names the part of the schedule a wait belongs to.
type Phase int

const (
	// Fast is the short burst of near-immediate retries that rides out blips.
	Fast Phase = iota + 1
	// Slow is the exponential backoff that rides out outages.
	Slow
	// Hint is a wait the failed command asked for (a Retry-After value).
	Hint
)

// String returns the phase's name as shown to users: "fast", "slow" or
// "retry-after".
func (p Phase) String() string {
	switch p {
	case Fast:
		return "fast"
	case Slow:
		return "slow"
	case Hint:
		return "retry-after"
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// Jitter is how a wait is drawn from its exponential bound.
type Jitter int

const (
	// FullJitter draws the wait uniformly from [0, bound].
	FullJitter Jitter = iota
	// EqualJitter draws the wait uniformly from [bound/2, bound].
	EqualJitter
	// NoJitter waits exactly the bound.
	NoJitter
)

// JitterNames lists the accepted spellings of a Jitter, in order.
func JitterNames() []string { return []string{"full", "equal", "none"} }

// ParseJitter reads "full", "equal" or "none".
func ParseJitter(s string) (Jitter, error) {
	for i, name := range JitterNames() {
		if s == name {
			return Jitter(i), nil
		}
	}
	return 0, fmt.Errorf("unknown jitter %q", s)
}

// String returns the jitter's name as accepted by ParseJitter.
func (j Jitter) String() string {
	names := JitterNames()
	if j >= 0 && int(j) < len(names) {
		return names[j]
	}
	return fmt.Sprintf("jitter(%d)", int(j))
}

// Policy is a complete retry schedule. The zero value makes one attempt and
// never retries; Default returns the documented defaults.
type Policy struct {
	// Attempts is the total number of attempts, the first included;
	// 0 means no count limit (then the deadline or a stop rule must end it).
	Attempts int
	// Deadline is the total time for all attempts and waits; 0 means none.
	Deadline time.Duration
	// Fast is how many retries use the fast phase before the slow phase.
	Fast int
	// FastDelay and FastMax bound the fast phase: the k-th fast retry waits
	// at most min(FastMax, FastDelay·2^k).
	FastDelay, FastMax time.Duration
	// SlowDelay and SlowMax bound the slow phase the same way, with k
	// counting from 0 again at the first slow retry.
	SlowDelay, SlowMax time.Duration
	// Jitter is how each wait is drawn from its bound.
	Jitter Jitter
	// HintMax is the longest wait a command may ask for (Retry-After);
	// a longer one gives up at once. 0 means no limit but the deadline.
	HintMax time.Duration
	// Reset, when positive, starts the schedule over at the fast phase
	// after an attempt that ran at least this long before it failed: a
	// tunnel or a worker that ran for an hour and then died is having a new
	// blip, not the same outage. The attempt count is not given back, so
	// Attempts still bounds the run.
	Reset time.Duration
	// Forever says the run retries without end on purpose (--forever):
	// Attempts and Deadline are both 0. Next does not read it (no limit
	// is no limit); it is for what waits outside the schedule, such as an
	// open circuit, to know there is no deadline to respect.
	Forever bool
}

// Default returns the built-in policy: 5 attempts, 2 fast retries (50ms base,
// 200ms cap), then slow retries (2s base, 30s cap), full jitter, no deadline,
// and waits asked for by the command honoured up to 10 minutes.
func Default() Policy {
	return Policy{
		Attempts:  5,
		Fast:      2,
		FastDelay: 50 * time.Millisecond,
		FastMax:   200 * time.Millisecond,
		SlowDelay: 2 * time.Second,
		SlowMax:   30 * time.Second,
		Jitter:    FullJitter,
		HintMax:   10 * time.Minute,
	}
}

// Reason says why a Decision stops.
type Reason int

const (
	// Exhausted means the attempt that just failed was the last one allowed.
	Exhausted Reason = iota + 1
	// WaitPastDeadline means the next wait would end at or after the
	// deadline, so there is no point in waiting.
	WaitPastDeadline
	// HintPastDeadline means the wait the command asked for (Retry-After)
	// would end at or after the deadline.
	HintPastDeadline
	// HintTooLong means the wait the command asked for is longer than
	// HintMax.
	HintTooLong
)

// Input is what the policy knows after a transient failure.
type Input struct {
	// Attempt is the number of the attempt that just failed, from 1.
	Attempt int
	// Elapsed is the time since the first attempt started.
	Elapsed time.Duration
	// Hint is the wait the failed attempt asked for, when HasHint is set.
	Hint    time.Duration
	HasHint bool
	// Ran is how long the attempt that just failed ran (see Reset).
	Ran time.Duration
	// Step is the failed attempt's place in the schedule, from 1: the
	// Step of the previous Decision plus one. 0 means Attempt, as in a
	// schedule that never started over.
	Step int
	// Throttled says the failure was the server asking callers to slow
	// down (HTTP 429, "rate limit", "throttled"): a retry at once would
	// only be refused again, so the fast phase is skipped.
	Throttled bool
}

// Decision is the policy's answer: retry after Wait in Phase, or stop for
// Reason.
type Decision struct {
	Retry bool
	Wait  time.Duration
	Phase Phase
	// Bound is the upper bound the wait was drawn from (equal to Wait for
	// hints and NoJitter).
	Bound time.Duration
	// Stop is set when Retry is false.
	Stop Reason
	// Step is the place in the schedule the wait was drawn for (see
	// Input.Step): pass Step+1 with the next failure.
	Step int
	// Reset is set when the failed attempt ran at least Policy.Reset, so
	// the schedule started over at its first step.
	Reset bool
}

// Rand is the source of randomness for jitter. A *rand.Rand from
// math/rand/v2 satisfies it; tests pass a seeded one to pin exact waits.
type Rand interface {
	// Int64N returns a uniform number in [0, n); n is always positive.
	Int64N(n int64) int64
}

// Next decides what follows a transient failure described by in. It never
// waits after the last allowed attempt and never returns a wait that would
// end at or after the deadline.
func (p Policy) Next(in Input, r Rand) Decision {
	if p.Attempts > 0 && in.Attempt >= p.Attempts {
		return Decision{Stop: Exhausted}
	}
	d := Decision{Retry: true, Step: in.Step}
	if d.Step <= 0 {
		d.Step = in.Attempt
	}
	if p.Reset > 0 && in.Ran >= p.Reset {
		d.Step, d.Reset = 1, true
	}
	if in.Throttled && d.Step <= p.Fast {
		d.Step = p.Fast + 1 // the first step of the slow phase
	}
	if in.HasHint {
		d.Phase, d.Wait, d.Bound = Hint, max(in.Hint, 0), max(in.Hint, 0)
		if p.HintMax > 0 && d.Wait > p.HintMax {
			d.Retry, d.Stop = false, HintTooLong
			return d
		}
	} else {
		d.Phase, d.Bound = p.Bound(d.Step)
		d.Wait = p.draw(d.Bound, r)
	}
	if p.Deadline > 0 && in.Elapsed+d.Wait >= p.Deadline {
		d.Retry, d.Stop = false, WaitPastDeadline
		if in.HasHint {
			d.Stop = HintPastDeadline
		}
	}
	return d
}

// Bound returns the phase and the upper bound of the wait that follows
// the failure at step (from 1; the attempt number, unless the schedule
// started over), before jitter.
func (p Policy) Bound(step int) (Phase, time.Duration) {
	retry := step // the retry about to be made, from 1
	if retry <= p.Fast {
		return Fast, expBound(p.FastDelay, p.FastMax, retry-1)
	}
	return Slow, expBound(p.SlowDelay, p.SlowMax, retry-p.Fast-1)
}

// Range returns the smallest and largest wait the jitter can draw from bound.
func (p Policy) Range(bound time.Duration) (lo, hi time.Duration) {
	switch p.Jitter {
	case EqualJitter:
		return bound - bound/2, bound
	case NoJitter:
		return bound, bound
	}
	return 0, bound
}

func (p Policy) draw(bound time.Duration, r Rand) time.Duration {
	lo, hi := p.Range(bound)
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}

// expBound is min(limit, base·2^k) without overflowing.
func expBound(base, limit time.Duration, k int) time.Duration {
	if base <= 0 {
		return 0
	}
	if limit < base {
		return max(limit, 0)
	}
	for ; k > 0; k-- {
		if base > limit/2 {
			return limit
		}
		base *= 2
	}
	return base
}
