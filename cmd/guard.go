package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"retry/breaker"
	"retry/exitcodes"
	"retry/policy"
	"retry/report"
	"retry/runner"
)

// guard is one run's view of the shared state, as a runner.Gate. Any store
// error turns it off for the rest of the run, with one warning: the state
// store never stops the command from running unless the circuit is known
// to be open, and never makes retry hang.
type guard struct {
	b        *breaker.Breaker
	store    breaker.Store
	key      string
	permit   breaker.Permit
	runID    string
	runLimit int
	warn     func(format string, args ...any)
	off      bool

	// wait is set when the run waits out an open circuit (--when-open)
	// rather than failing; deadline is when the run's deadline ends, as
	// estimated when the guard was made (zero for none).
	wait     bool
	deadline time.Time
	// pending is set when the next attempt must first pass the circuit:
	// Admit checks it, and waits for it when wait is set.
	pending bool
	// recorded is the circuit as Done's Record left it, for Allow to
	// read instead of the store; nil once used.
	recorded *breaker.Status
	// waiting shows that the run waits for the circuit; waited is how
	// long it has waited in all.
	waiting func(breaker.Wait)
	waited  time.Duration
}

// newGuard opens the store when --breaker or --run-budget needs it; it
// returns nil when neither does or the store cannot be opened. A run with
// schedule p waits out an open circuit when --when-open says so.
func newGuard(o *breakerOptions, p policy.Policy, deps Deps, warn func(string, ...any)) (*guard, error) {
	runID := o.RunID
	if runID == "" {
		runID = breaker.RunID(func(k string) string { return lookupEnv(deps.Env, k) })
	}
	if o.RunBudget > 0 && runID == "" {
		warn("--run-budget needs a run id: set RETRY_RUN_ID or --run-id (no CI job identity found); no run budget this run")
	}
	if o.Key == "" && (o.RunBudget == 0 || runID == "") {
		return nil, nil
	}
	cfg, err := o.config()
	if err != nil {
		return nil, err
	}
	store, err := openStore(o.State, o.StateTimeout, deps, false)
	if err != nil {
		warn("state store unavailable (%v); running without the breaker this run", unopened(o.State, deps.Env, err))
		return nil, nil
	}
	b, err := breaker.New(store, cfg, nil, nil)
	if err != nil {
		store.Close()
		return nil, &UsageError{Flag: "--breaker", Err: err}
	}
	g := &guard{b: b, store: store, key: o.Key, runID: runID, warn: warn, wait: o.waits(p.Deadline, p.Attempts)}
	if p.Deadline > 0 {
		g.deadline = time.Now().Add(p.Deadline)
	}
	if o.RunBudget > 0 && runID != "" {
		g.runLimit = o.RunBudget
	}
	return g, nil
}

// sharedStore is the guard's open store, for --timeout auto to use too;
// nil without a guard or after the store failed.
func (g *guard) sharedStore() breaker.Store {
	if g == nil || g.off {
		return nil
	}
	return g.store
}

func (g *guard) close() {
	if g != nil {
		g.store.Close()
	}
}

// failed turns the guard off after a store error.
func (g *guard) failed(err error) {
	if !g.off {
		g.warn("state store unavailable (%v); running without the breaker this run", err)
	}
	g.off = true
}

// first asks whether the first attempt may run. It returns the permit's
// status when the circuit is open (the command must not run).
func (g *guard) first(ctx context.Context) (open *breaker.Status) {
	if g == nil || g.key == "" {
		return nil
	}
	p, err := g.b.Check(ctx, g.key, 1)
	if err != nil {
		g.failed(err)
		return nil
	}
	if p.Status.Warning != nil {
		g.warn("%v", p.Status.Warning)
	}
	g.permit = p
	if p.Verdict == breaker.Reject {
		if g.wait && g.reachable(p.Status) {
			g.pending = true
			return nil
		}
		return &p.Status
	}
	return nil
}

// reachable reports whether the run's deadline leaves room to wait for a
// circuit in status s: another run is probing it, or its next probe comes
// before the deadline.
func (g *guard) reachable(s breaker.Status) bool {
	return g.deadline.IsZero() || s.Probing || time.Now().Add(s.NextProbe).Before(g.deadline)
}

// probing reports whether this run is the circuit's one half-open probe.
func (g *guard) probing() bool {
	return g != nil && g.permit.Verdict == breaker.Probe
}

// seenFailure reports whether the key failed recently: skip the fast phase.
func (g *guard) seenFailure() bool {
	return g != nil && g.key != "" && !g.off && g.permit.Status.SeenFailure()
}

// Done implements runner.Gate: it records successes and transient failures.
func (g *guard) Done(ctx context.Context, a runner.Attempt) {
	if g.off || g.key == "" || ctx.Err() != nil {
		return
	}
	var sample breaker.Sample
	switch a.Verdict.Class {
	case exitcodes.Success:
		sample = breaker.Success
	case exitcodes.Transient:
		sample = breaker.Failure
	default:
		return // terminal failures say nothing about the dependency
	}
	st, err := g.b.Record(ctx, g.permit, sample)
	if err != nil {
		g.failed(err)
		return
	}
	g.recorded = &st
}

// refusal is why Allow refused a retry or Admit an attempt.
type refusal struct {
	msg    string
	opened bool
}

func (r *refusal) Error() string { return r.msg }

// Allow implements runner.Gate: a retry needs the circuit closed (or, for
// a run that waits, an open circuit whose next probe comes before the
// deadline), a token of the key's budget and one retry of the run's
// budget. It takes no probe claim: Admit does, after the wait.
func (g *guard) Allow(ctx context.Context, next int) error {
	if g.off {
		return nil
	}
	if g.probing() && !g.wait {
		return &refusal{msg: fmt.Sprintf("this run was the probe of circuit %q and failed", g.key), opened: true}
	}
	if g.key != "" {
		// The circuit as the attempt's Record left it, or as it is now.
		var st breaker.Status
		if g.recorded != nil {
			st, g.recorded = *g.recorded, nil
		} else {
			var err error
			if st, err = g.b.Status(ctx, g.key); err != nil {
				g.failed(err)
				return nil
			}
		}
		if st.Warning != nil {
			g.warn("%v", st.Warning)
		}
		g.permit = breaker.Permit{Verdict: breaker.Allow, Status: st}
		// Whatever is not refused here is asked for again in Admit, just
		// before the attempt: Check takes the retry's budget token in the
		// update that allows it.
		g.pending = true
		switch {
		case st.State == breaker.Open && !(g.wait && g.reachable(st)):
			g.pending = false
			return &refusal{msg: g.openMessage(st), opened: true}
		case st.State == breaker.Closed && !st.RetryAllowed && !(g.wait && (g.deadline.IsZero() || time.Now().Add(st.RetryIn).Before(g.deadline))):
			// A run that waits spends attempts on attempts, not on
			// refusals: it waits for the budget in Admit.
			g.pending = false
			return &refusal{msg: g.budgetMessage(st)}
		}
	}
	if g.runLimit > 0 {
		rb, err := g.b.TakeRunRetry(ctx, g.runID, g.runLimit)
		if err != nil {
			g.failed(err)
			return nil
		}
		if rb.Warning != nil {
			g.warn("%v", rb.Warning)
		}
		if !rb.Taken {
			return &refusal{msg: fmt.Sprintf("run retry budget (%d) spent", g.runLimit)}
		}
	}
	return nil
}

// Admit implements runner.Gate: when Allow or first left the circuit to
// be passed, it asks for it now, just before the attempt, and a run that
// waits (--when-open) waits here for the circuit, never past deadline.
func (g *guard) Admit(ctx context.Context, n int, deadline time.Time) error {
	if g.off || g.key == "" || !g.pending {
		return nil
	}
	g.pending = false
	var p breaker.Permit
	var err error
	if g.wait {
		start := time.Now()
		p, err = g.b.Await(ctx, g.key, n, deadline, g.waiting)
		g.waited += time.Since(start)
	} else {
		p, err = g.b.Check(ctx, g.key, n)
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		g.failed(err)
		return nil
	}
	if p.Status.Warning != nil {
		g.warn("%v", p.Status.Warning)
	}
	g.permit = p
	switch p.Verdict {
	case breaker.Reject:
		return &refusal{msg: g.openMessage(p.Status), opened: true}
	case breaker.NoBudget:
		msg := g.budgetMessage(p.Status)
		if n > 1 && !g.wait {
			// Allow let the retry be announced ("retrying in 2s"); other
			// runs spent the budget during the wait.
			msg = fmt.Sprintf("retry budget for %q spent by other runs during the wait (%s)", g.key, tokensLeft(p.Status))
		}
		return &refusal{msg: msg}
	}
	return nil
}

// budgetMessage is the message for a retry the key's budget refused.
func (g *guard) budgetMessage(s breaker.Status) string {
	msg := fmt.Sprintf("retry budget exhausted for %q (%s)", g.key, tokensLeft(s))
	if g.wait {
		msg += "; it allows a retry again in " + report.Duration(s.RetryIn.Round(time.Second)) + ", past the deadline"
	}
	return msg
}

// tokensLeft says how much of a retry budget is left, and what a retry
// needs: more than half, so "exhausted" with tokens left is not a riddle.
func tokensLeft(s breaker.Status) string {
	return fmt.Sprintf("%.1f of %g tokens left; a retry needs more than %g, --budget-tokens sets them", s.Tokens, s.MaxTokens, s.MaxTokens/2)
}

// openMessage is the message for a circuit that refused this run: a run
// that would have waited was refused because the deadline ends first.
func (g *guard) openMessage(s breaker.Status) string {
	msg := circuitOpen(g.key, s)
	if g.wait {
		msg += ", past the deadline"
	}
	return msg
}

// circuitOpen is the message for a circuit that does not let a run through.
func circuitOpen(key string, s breaker.Status) string {
	msg := fmt.Sprintf("circuit %q is open (%d of %d attempts failed in the last %s)", key, s.Failures, s.Attempts, report.Duration(s.Window))
	if s.NextProbe > 0 {
		msg += "; next probe in " + report.Duration(s.NextProbe.Round(time.Second))
	} else {
		msg += "; another run is probing"
	}
	return msg
}

// circuitRefused reports whether err is the guard's refusal of an attempt
// because the circuit was open, rather than because a budget was spent.
func circuitRefused(err error) bool {
	var r *refusal
	return errors.As(err, &r) && r.opened
}
