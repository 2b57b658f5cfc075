// Package breaker keeps the cross-run view of a dependency that per-call
// retry bounds cannot: a circuit breaker and a retry budget per circuit key,
// and a retry budget per CI run, persisted between runs in a Store (a state
// directory, or Redis for fleets).
//
// A caller asks Check before every attempt and records how every attempt
// went, as a Sample, with Record; before a retry it also takes one from the run budget
// with TakeRunRetry. The decisions are made by pure functions of the stored
// state, the time and a random source; stores only persist. Any error means
// the state could not be read or written in time: the caller runs without
// a breaker for the rest of the run and warns. The package never prints.
package breaker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Breaker decides, for every attempt of every run that shares its store,
// whether the attempt may run. It is safe for concurrent use.
type Breaker struct {
	store Store
	cfg   Config
	now   func() time.Time

	mu  sync.Mutex // guards rnd, which need not be safe for concurrent use
	rnd Rand
}

// New returns a Breaker over store with the tunables cfg. now is the clock
// (nil means time.Now) and rnd the source of cooldown jitter (nil means
// math/rand/v2's automatically seeded source).
func New(store Store, cfg Config, now func() time.Time, rnd Rand) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	if rnd == nil {
		rnd = globalRand{}
	}
	return &Breaker{store: store, cfg: cfg, now: now, rnd: rnd}, nil
}

// globalRand draws from math/rand/v2's top-level functions, which are safe
// for concurrent use and seeded at random.
type globalRand struct{}

func (globalRand) Int64N(n int64) int64 { return rand.Int64N(n) }

// lockedRand serialises a Breaker's draws.
type lockedRand struct{ b *Breaker }

func (l lockedRand) Int64N(n int64) int64 {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	return l.b.rnd.Int64N(n)
}

// Status is what the breaker knows about one circuit key. It marshals to
// JSON for `retry breaker status`.
type Status struct {
	// Key is the circuit key.
	Key string `json:"key"`
	// Recorded is whether the store holds a record of the key: false
	// when no run has used it (or its record expired), and then the
	// rest is the state of a fresh circuit.
	Recorded bool `json:"recorded"`
	// State is closed, open or half-open.
	State State `json:"state"`
	// Failures and Attempts count the attempts of the last Window.
	Failures int `json:"failures"`
	Attempts int `json:"attempts"`
	// Window is the length of the window the counts cover.
	Window time.Duration `json:"-"`
	// Tokens is what is left of the retry budget, out of MaxTokens;
	// RetryAllowed is whether that is enough for a retry.
	Tokens       float64 `json:"tokens"`
	MaxTokens    float64 `json:"max_tokens"`
	RetryAllowed bool    `json:"retry_allowed"`
	// RetryIn is how long until the budget, refilling with time, allows a
	// retry; zero when it does.
	RetryIn time.Duration `json:"-"`
	// OpenedAt is when the circuit last opened; zero when closed.
	OpenedAt time.Time `json:"opened_at,omitzero"`
	// NextProbe is the time until a probe may run: the rest of the
	// cooldown when open, or of another run's probe claim when that run
	// is probing. Zero when closed or when a probe is due.
	NextProbe time.Duration `json:"-"`
	// Waiting is how many runs are waiting for the circuit or the budget
	// (in Await) as far as the store knows: each holds a lease that it
	// renews while it waits, so a run killed while waiting is counted
	// until its lease lapses (its deadline, or two minutes at most).
	Waiting int `json:"waiting"`
	// Admitted is how many runs that waited have been let through by the
	// ramp since a probe last closed the circuit.
	Admitted int `json:"admitted"`
	// Cooldown is the cooldown of the circuit's current open period (as
	// drawn, jitter included); zero when closed. FailedProbes is how many
	// probes have failed since it opened: each doubled the cooldown.
	Cooldown     time.Duration `json:"-"`
	FailedProbes int           `json:"failed_probes"`
	// Probing is set when Check found another run holding the probe
	// claim of the half-open circuit: its result, not NextProbe, decides
	// when the circuit next lets a run through.
	Probing bool `json:"-"`
	// Warning is set when the stored state was unreadable and the
	// breaker went on from empty state (a *CorruptError): the caller
	// shows it once.
	Warning error `json:"-"`
}

// MarshalJSON writes the durations as seconds and the warning as text.
func (s Status) MarshalJSON() ([]byte, error) {
	type plain Status
	out := struct {
		plain
		WindowSeconds    float64 `json:"window_seconds"`
		NextProbeSeconds float64 `json:"next_probe_seconds"`
		CooldownSeconds  float64 `json:"cooldown_seconds"`
		RetryInSeconds   float64 `json:"retry_in_seconds"`
		Warning          string  `json:"warning,omitempty"`
	}{plain: plain(s), WindowSeconds: s.Window.Seconds(), NextProbeSeconds: s.NextProbe.Seconds(),
		CooldownSeconds: s.Cooldown.Seconds(), RetryInSeconds: s.RetryIn.Seconds()}
	if s.Warning != nil {
		out.Warning = s.Warning.Error()
	}
	return json.Marshal(out)
}

// SeenFailure reports whether the window holds a transient failure, the
// sign of a pattern rather than a blip: the caller then skips its fast
// phase.
func (s Status) SeenFailure() bool { return s.Failures > 0 }

// status summarises c at now.
func (b *Breaker) status(c circuit, now time.Time) Status {
	failures, attempts := b.cfg.counts(c, now)
	st := Status{
		Key: c.Key, State: b.cfg.state(c, now),
		Failures: failures, Attempts: attempts, Window: b.cfg.Window,
		Tokens: b.cfg.tokens(c, now), MaxTokens: b.cfg.Tokens, RetryAllowed: b.cfg.retryAllowed(c, now),
		RetryIn: b.cfg.retryIn(c, now),
		Waiting: waiting(c, now), Admitted: c.Admitted,
	}
	if c.Open {
		st.OpenedAt = c.OpenedAt
		st.NextProbe = max(c.ProbeAt.Sub(now), 0)
		st.Cooldown = c.ProbeAt.Sub(c.OpenedAt)
		st.FailedProbes = c.Probes
	}
	return st
}

// Permit is Check's answer for one attempt.
type Permit struct {
	// Verdict says whether the attempt may run.
	Verdict Verdict
	// Status is the circuit as Check saw it, for the message when the
	// verdict is Reject: `circuit "KEY" is open (Failures of Attempts
	// attempts failed in the last Window); next probe in NextProbe`.
	// Status.SeenFailure tells whether to skip the fast phase.
	Status Status
	// gen is the generation a Probe verdict probes.
	gen uint64
	// reserved is set when Check took the retry's budget token.
	reserved bool
}

// Check decides whether attempt number attempt (from 1) of a run against
// key may start now. Allow: run it. Probe: run it as the one probe of this
// half-open period (this run won the claim in the store). Reject: the
// circuit is open or another run is probing: do not run the command.
// NoBudget: the key's retry budget refuses this retry (never for attempt
// 1). Every attempt that runs must be recorded with Record.
//
// On an error nothing is known: run the command without a breaker.
func (b *Breaker) Check(ctx context.Context, key string, attempt int) (Permit, error) {
	if key == "" {
		return Permit{}, errEmptyKey
	}
	var p Permit
	var c circuit
	var warn *CorruptError
	var err error
	now := b.now()
	if attempt > 1 {
		// A retry takes its budget token in the same update that allows
		// it: were it taken only when its failure is recorded, every run
		// checking meanwhile would see the budget unspent, and a refill
		// would let a burst of retries through.
		c, warn, err = b.update(ctx, key, func(c circuit) circuit {
			now = b.now()
			if p.Verdict = b.cfg.decide(c, now, attempt); p.Verdict == Allow {
				c = b.cfg.reserve(c, now)
				p.reserved = true
			}
			return c
		})
	} else if c, warn, err = b.load(ctx, key); err == nil && warn != nil {
		// Overwrite the unreadable record now, so the warning is
		// reported once, here, and not again by Record.
		c, _, err = b.update(ctx, key, func(c circuit) circuit { return c })
	}
	if err != nil {
		return Permit{}, err
	}
	if attempt <= 1 {
		p.Verdict = b.cfg.decide(c, now, attempt)
	}
	p.Status = b.status(c, now)
	p.Status.Warning = asWarning(warn)
	if p.Verdict != Probe {
		return p, nil
	}
	granted, wait, err := b.store.Claim(ctx, key, c.Gen, now, b.cfg.ProbeTimeout)
	if err != nil {
		return Permit{}, err
	}
	if !granted {
		p.Verdict, p.Status.NextProbe, p.Status.Probing = Reject, wait, true
		return p, nil
	}
	p.gen = c.Gen
	return p, nil
}

// Wait is what a run waiting in Await is waiting for.
type Wait struct {
	// Status is the circuit as Await last read it; Status.Probing tells
	// that another run is probing it.
	Status Status
	// Next is when Await will look again: the end of the cooldown, or the
	// next look while another run probes.
	Next time.Time
	// Deadline is the caller's deadline; zero when there is none.
	Deadline time.Time
	// Budget is set when the wait is for the key's retry budget to
	// refill, not for the circuit.
	Budget bool
	// Ramp is set when the circuit has closed and the run waits for its
	// slot of the ramp (Next), so that the runs that waited resume
	// spread out rather than all at once.
	Ramp bool
}

// PollInterval is how often, on average, a run waiting in Await looks at
// a circuit that another run is probing. Each look is a read (and a
// refused probe claim); the interval is jittered by half either way so
// that waiting runs do not look in step.
const PollInterval = 500 * time.Millisecond

// NotifyInterval is the longest Await goes without telling its caller it
// is still waiting, so that a caller can show a sign of life (a CI system
// kills a step that is silent for long).
const NotifyInterval = time.Minute

// Await is Check for a run that would rather wait than fail: while the
// circuit is open, or half-open with another run probing, it waits without
// running anything and looks again when the cooldown ends or, while
// another run probes, every PollInterval or so; it returns the first
// permit that lets attempt run (Allow or Probe). A retry the key's retry
// budget refuses (NoBudget) waits the same way, until the budget has
// refilled past half, looking at least every 2×PollInterval or so
// (jittered, so that the runs waiting for it do not all look at once).
//
// A run that waited for the circuit and finds that a probe has closed it
// takes the next slot of the circuit's ramp and goes at the slot's time
// (see rampOffset), then looks once more: the waiting runs resume spread
// out, in a slow start, rather than all in the instant they see it closed.
//
// It never waits past deadline (zero means none): when the next probe is
// due at or after it, or the next look would be, Await returns at once
// with the refusing permit, for the caller to give up; a ramp slot at or
// past the deadline is not waited for. notify, when not nil, is called
// when Await starts to wait, when what it waits for changes, and at least
// every NotifyInterval. The wait ends with ctx's error as soon as ctx
// ends.
func (b *Breaker) Await(ctx context.Context, key string, attempt int, deadline time.Time, notify func(Wait)) (Permit, error) {
	var told Wait
	var toldAt time.Time
	waited, slotted := false, false
	var leased time.Time // this run's lease in the record, when it has one
	defer func() {
		if !leased.IsZero() {
			// Dropped even after a signal: the store's own timeout
			// bounds it.
			_, _, _ = b.update(context.WithoutCancel(ctx), key, func(c circuit) circuit { return lease(c, b.now(), leased, time.Time{}) })
		}
	}()
	for {
		p, err := b.Check(ctx, key, attempt)
		if err != nil {
			return p, err
		}
		if p.Verdict == Allow && waited && !slotted {
			slotted = true
			at, err := b.slot(ctx, key)
			if err != nil {
				return Permit{}, err
			}
			if now := b.now(); at.After(now) && (deadline.IsZero() || at.Before(deadline)) {
				if notify != nil {
					notify(Wait{Status: p.Status, Next: at, Deadline: deadline, Ramp: true})
				}
				if err := sleep(ctx, at.Sub(now)); err != nil {
					return Permit{}, err
				}
				continue // look again: the circuit may have opened since
			}
		}
		if p.Verdict != Reject && p.Verdict != NoBudget {
			return p, nil
		}
		waited = waited || p.Verdict == Reject
		now := b.now()
		var next time.Time
		w := Wait{Status: p.Status, Deadline: deadline, Budget: p.Verdict == NoBudget}
		switch {
		case w.Budget:
			// The budget refills by then with time alone; look at least
			// every 2×PollInterval or so meanwhile: successes refill it
			// sooner, and the circuit may open.
			w.Next = now.Add(p.Status.RetryIn)
			next = now.Add(min(p.Status.RetryIn, 2*PollInterval) + time.Duration(lockedRand{b}.Int64N(int64(PollInterval))))
		case p.Status.Probing:
			next = now.Add(PollInterval/2 + time.Duration(lockedRand{b}.Int64N(int64(PollInterval))))
		default:
			next = now.Add(p.Status.NextProbe + time.Duration(lockedRand{b}.Int64N(int64(PollInterval/5))))
		}
		if w.Next.IsZero() {
			w.Next = next
		}
		if !deadline.IsZero() && (!next.Before(deadline) || !w.Next.Before(deadline)) {
			return p, nil
		}
		changed := w.Budget != told.Budget || w.Status.State != told.Status.State || w.Status.Probing != told.Status.Probing ||
			!w.Status.OpenedAt.Equal(told.Status.OpenedAt)
		if changed || now.Sub(toldAt) >= NotifyInterval {
			if notify != nil {
				notify(w)
			}
			told, toldAt = w, now
			// Take or renew this run's lease, so that status can count
			// the runs waiting. A store error only leaves it uncounted.
			until := now.Add(2 * NotifyInterval)
			if !deadline.IsZero() && deadline.Before(until) {
				until = deadline
			}
			if _, _, err := b.update(ctx, key, func(c circuit) circuit { return lease(c, b.now(), leased, until) }); err == nil {
				leased = until
			}
		}
		wake := min(next.Sub(now), toldAt.Add(NotifyInterval).Sub(now))
		if err := sleep(ctx, wake); err != nil {
			return Permit{}, err
		}
	}
}

// slot takes the next slot of key's ramp and returns when it lets the run
// go.
func (b *Breaker) slot(ctx context.Context, key string) (time.Time, error) {
	var at time.Time
	_, _, err := b.update(ctx, key, func(c circuit) circuit {
		c, at = admit(c, b.now())
		return c
	})
	return at, err
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Record counts an attempt that p allowed, as the Sample o. Only transient
// failures and successes are recorded; terminal failures and cancelled
// attempts are not. A failure takes a token from the budget and a success
// returns TokenRatio of one. The circuit opens when the window reaches Min
// attempts with a failure share of at least Ratio. When p was a Probe, a
// success closes the circuit and clears the window, and a failure reopens
// it with a new cooldown. Record returns the circuit after the update.
func (b *Breaker) Record(ctx context.Context, p Permit, o Sample) (Status, error) {
	key := p.Status.Key
	if key == "" {
		return Status{}, errEmptyKey
	}
	if o != Success && o != Failure {
		return Status{}, errors.New("sample must be Success or Failure")
	}
	var now time.Time
	c, warn, err := b.update(ctx, key, func(c circuit) circuit {
		now = b.now()
		return b.cfg.observe(c, now, o, p.Verdict == Probe, p.gen, p.reserved, lockedRand{b})
	})
	if err != nil {
		return Status{}, err
	}
	st := b.status(c, now)
	st.Warning = asWarning(warn)
	return st, nil
}

// Status reports what the breaker knows about key, without changing it.
func (b *Breaker) Status(ctx context.Context, key string) (Status, error) {
	if key == "" {
		return Status{}, errEmptyKey
	}
	data, err := b.store.Get(ctx, Circuit, key)
	if err != nil {
		return Status{}, err
	}
	c, warn, err := decodeCircuit(data, key)
	if err != nil {
		return Status{}, err
	}
	st := b.status(c, b.now())
	st.Recorded = data != nil
	st.Warning = asWarning(warn)
	return st, nil
}

// SeenFailure reports whether key's window holds a transient failure;
// Permit.Status.SeenFailure gives the same answer without another read.
func (b *Breaker) SeenFailure(ctx context.Context, key string) (bool, error) {
	st, err := b.Status(ctx, key)
	return st.SeenFailure(), err
}

// List reports every circuit in the store, sorted by key. A record that
// cannot be read is listed with its Warning set and Key empty.
func (b *Breaker) List(ctx context.Context) ([]Status, error) {
	items, err := b.store.List(ctx, Circuit)
	if err != nil {
		return nil, err
	}
	now := b.now()
	out := make([]Status, 0, len(items))
	for _, it := range items {
		if it.Err != nil {
			out = append(out, Status{Warning: &CorruptError{Key: it.Where, Err: it.Err}})
			continue
		}
		var v struct {
			Key string `json:"key"`
		}
		_ = json.Unmarshal(it.Data, &v)
		c, warn, err := decodeCircuit(it.Data, v.Key)
		switch {
		case err != nil:
			out = append(out, Status{Key: v.Key, Warning: err})
		case warn != nil:
			warn.Key = it.Where
			out = append(out, Status{Warning: warn})
		default:
			st := b.status(c, now)
			st.Recorded = true
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(x, y Status) int { return cmp.Compare(x.Key, y.Key) })
	return out, nil
}

// Reset closes key's circuit, empties its window and refills its budget.
// A probe under way when it happens no longer counts as a probe.
func (b *Breaker) Reset(ctx context.Context, key string) error {
	if key == "" {
		return errEmptyKey
	}
	_, _, err := b.update(ctx, key, b.cfg.reset)
	return err
}

// RunBudget is TakeRunRetry's answer.
type RunBudget struct {
	// Taken is whether a retry was taken from the budget.
	Taken bool
	// Used is how many retries the run has taken, this one included;
	// Limit is the budget.
	Used, Limit int
	// Warning is set when the stored budget was unreadable and counting
	// started again from zero.
	Warning error
}

// TakeRunRetry takes one retry from the budget of limit retries that every
// retry invocation of run id runID shares (see RunID), atomically across
// processes. Taken is false once the budget is spent; a limit of 0 or less
// allows no retries. First attempts are never taken from it, and it needs
// no circuit key.
func (b *Breaker) TakeRunRetry(ctx context.Context, runID string, limit int) (RunBudget, error) {
	if runID == "" {
		return RunBudget{}, errEmptyKey
	}
	var out RunBudget
	err := b.store.Update(ctx, Run, runID, runTTL, func(old []byte) ([]byte, error) {
		r, warn, err := decodeRun(old, runID)
		if err != nil {
			return nil, err
		}
		next, taken := takeRun(r, limit)
		out = RunBudget{Taken: taken, Used: next.Used, Limit: limit}
		out.Warning = asWarning(warn)
		if warn == nil && !taken {
			return old, nil
		}
		return encodeRun(next)
	})
	if err != nil {
		return RunBudget{}, err
	}
	return out, nil
}

// load reads key's circuit without changing it.
func (b *Breaker) load(ctx context.Context, key string) (circuit, *CorruptError, error) {
	data, err := b.store.Get(ctx, Circuit, key)
	if err != nil {
		return circuit{}, nil, err
	}
	c, warn, err := decodeCircuit(data, key)
	if err != nil {
		return circuit{}, nil, err
	}
	return c, warn, nil
}

// update applies fn to key's circuit atomically. fn may run more than once.
func (b *Breaker) update(ctx context.Context, key string, fn func(circuit) circuit) (circuit, *CorruptError, error) {
	var out circuit
	var warning *CorruptError
	err := b.store.Update(ctx, Circuit, key, b.cfg.ttl(), func(old []byte) ([]byte, error) {
		c, warn, err := decodeCircuit(old, key)
		if err != nil {
			return nil, err
		}
		warning = warn
		out = fn(c)
		return encodeCircuit(out)
	})
	if err != nil {
		return circuit{}, nil, err
	}
	return out, warning, nil
}

// asWarning turns a possibly nil *CorruptError into an error that is nil
// when it is.
func asWarning(w *CorruptError) error {
	if w == nil {
		return nil
	}
	return w
}
