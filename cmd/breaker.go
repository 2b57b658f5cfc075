package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"retry/breaker"
	"retry/exitcodes"
	"retry/policy"
	"retry/report"
	"retry/runner"
)

// breakerOptions are the flags of the shared state: the circuit breaker,
// the retry budget per key and the run budget.
type breakerOptions struct {
	Key   string
	State string
	// StateTimeout bounds each operation on the state store; 0 means the
	// store's own default.
	StateTimeout time.Duration
	Window       time.Duration
	Ratio        float64
	Min          int
	MinSpan      time.Duration
	// FirstCooldown and Cooldown are the first and the longest cooldown.
	FirstCooldown time.Duration
	Cooldown      time.Duration
	Tokens        float64
	TokenPct      float64

	// WhenOpen is what a run does when its circuit is open: "wait",
	// "fail", or "auto" (wait when there is a deadline or no attempt
	// limit).
	WhenOpen string

	RunBudget int
	RunID     string
	Fallback  string
}

// waits reports whether a run with policy deadline and attempt limit
// waits out an open circuit rather than failing at once.
func (b *breakerOptions) waits(deadline time.Duration, attempts int) bool {
	switch b.WhenOpen {
	case "wait":
		return true
	case "fail":
		return false
	}
	return deadline > 0 || attempts == 0
}

func defaultBreakerOptions() breakerOptions {
	d := breaker.Default()
	return breakerOptions{
		Window:        d.Window,
		Ratio:         d.Ratio,
		Min:           d.Min,
		MinSpan:       d.MinSpan,
		Cooldown:      d.Cooldown,
		FirstCooldown: d.FirstCooldown,
		Tokens:        d.Tokens,
		TokenPct:      d.TokenRatio,
		WhenOpen:      "auto",
	}
}

// bindState registers --state and --state-timeout, shared by the root and
// breaker commands.
func (b *breakerOptions) bindState(fs *pflag.FlagSet) {
	fs.StringVar(&b.State, "state", "", "where shared state lives: a directory, or redis://HOST:PORT/DB (default $RETRY_STATE, else $XDG_STATE_HOME/retry)")
	fs.Var(positiveDurationValue{durationValue{&b.StateTimeout, "state-timeout"}}, "state-timeout", "longest wait for one state store operation (a Redis round trip, the directory's lock); past it the run goes on without the breaker, with a warning (default "+breaker.DefaultTimeout.String()+" for Redis, "+breaker.DefaultFileTimeout.String()+" for a directory)")
}

func (b *breakerOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&b.Key, "breaker", "", "share a circuit breaker and retry budget with every run using this KEY (such as registry.example)")
	fs.StringVar(&b.WhenOpen, "when-open", b.WhenOpen, "when the circuit is open: wait (for its probe, within the deadline, sending nothing), fail (exit 75 at once), or auto (wait when --deadline is set or attempts are unlimited)")
	b.bindState(fs)
	b.bindTunables(fs)
	fs.Var(countValue{&b.RunBudget, "run-budget"}, "run-budget", "retries shared by every retry in one CI job or script run (0: no limit)")
	fs.StringVar(&b.RunID, "run-id", "", "the run the --run-budget belongs to (default $RETRY_RUN_ID, else the CI job's identity)")
	fs.StringVar(&b.Fallback, "fallback", "", "run this with /bin/sh -c when retry gives up or the circuit is open; its exit code becomes retry's")
}

// bindTunables registers the breaker's and the retry budget's settings,
// shared by runs and by `retry breaker`, which must count as the runs do.
func (b *breakerOptions) bindTunables(fs *pflag.FlagSet) {
	fs.Var(durationValue{&b.Window, "breaker-window"}, "breaker-window", "how far back the breaker counts attempts")
	fs.Float64Var(&b.Ratio, "breaker-ratio", b.Ratio, "failure share in the window at which the circuit opens, in (0, 1]")
	fs.Var(countValue{&b.Min, "breaker-min"}, "breaker-min", "attempts the window must hold before the circuit can open")
	fs.Var(durationValue{&b.MinSpan, "breaker-min-span"}, "breaker-min-span", "how long the window's failures must span before the circuit can open, so a blip does not (0: any)")
	fs.Var(durationValue{&b.FirstCooldown, "breaker-first-cooldown"}, "breaker-first-cooldown", "how long a circuit that has just opened waits (±20%) before one run probes; each failed probe doubles it")
	fs.Var(durationValue{&b.Cooldown, "breaker-cooldown"}, "breaker-cooldown", "the longest cooldown (±20%) the doubling reaches: after an outage, the first run learns it is over within about this long")
	fs.Float64Var(&b.Tokens, "budget-tokens", b.Tokens, "retry budget per key: failed attempts take a token; no retries at half or less")
	fs.Float64Var(&b.TokenPct, "budget-ratio", b.TokenPct, "tokens a successful attempt gives back")
}

// config checks the breaker flags and returns the breaker's configuration.
func (b *breakerOptions) config() (breaker.Config, error) {
	c := breaker.Default()
	switch {
	case b.Ratio <= 0 || b.Ratio > 1:
		return c, &UsageError{Flag: "--breaker-ratio", Value: fmt.Sprint(b.Ratio), Want: "want a share above 0 and at most 1, such as 0.5"}
	case b.Min < 1:
		return c, &UsageError{Flag: "--breaker-min", Value: fmt.Sprint(b.Min), Want: "want 1 or more"}
	case b.Window <= 0:
		return c, &UsageError{Flag: "--breaker-window", Value: b.Window.String(), Want: "want a duration above 0, such as 60s"}
	case b.MinSpan >= b.Window:
		return c, &UsageError{Flag: "--breaker-min-span", Value: b.MinSpan.String(), Want: "want a duration shorter than --breaker-window " + b.Window.String()}
	case b.Cooldown <= 0:
		return c, &UsageError{Flag: "--breaker-cooldown", Value: b.Cooldown.String(), Want: "want a duration above 0, such as 10s"}
	case b.FirstCooldown <= 0:
		return c, &UsageError{Flag: "--breaker-first-cooldown", Value: b.FirstCooldown.String(), Want: "want a duration above 0, such as 1s"}
	case b.Tokens <= 0:
		return c, &UsageError{Flag: "--budget-tokens", Value: fmt.Sprint(b.Tokens), Want: "want a number above 0, such as 10"}
	case b.TokenPct < 0:
		return c, &UsageError{Flag: "--budget-ratio", Value: fmt.Sprint(b.TokenPct), Want: "want 0 or more, such as 0.1"}
	case b.WhenOpen != "auto" && b.WhenOpen != "wait" && b.WhenOpen != "fail":
		return c, &UsageError{Flag: "--when-open", Value: b.WhenOpen, Want: "want auto, wait or fail"}
	}
	c.Window, c.Ratio, c.Min, c.MinSpan, c.Cooldown, c.Tokens, c.TokenRatio = b.Window, b.Ratio, b.Min, b.MinSpan, b.Cooldown, b.Tokens, b.TokenPct
	c.FirstCooldown = b.FirstCooldown
	if err := c.Validate(); err != nil {
		return c, &UsageError{Flag: "--breaker", Err: err}
	}
	return c, nil
}

// openStore opens the state store named by --state, RETRY_STATE or the
// default directory, each operation bounded by timeout (0: the store's
// default).
func openStore(spec string, timeout time.Duration, env []string) (breaker.Store, error) {
	if spec == "" {
		spec = lookupEnv(env, "RETRY_STATE")
	}
	return breaker.OpenStore(spec, breaker.Options{
		Getenv:  func(k string) string { return lookupEnv(env, k) },
		HomeDir: os.UserHomeDir,
		Timeout: timeout,
	})
}

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
	// waiting shows that the run waits for the circuit; waited is how
	// long it has waited in all.
	waiting func(breaker.Wait)
	waited  time.Duration
}

// newGuard opens the store when --breaker or --run-budget needs it; it
// returns nil when neither does or the store cannot be opened. A run with
// policy p waits out an open circuit when --when-open says so.
func newGuard(o *breakerOptions, p policy.Policy, env []string, warn func(string, ...any)) (*guard, error) {
	runID := o.RunID
	if runID == "" {
		runID = breaker.RunID(func(k string) string { return lookupEnv(env, k) })
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
	store, err := openStore(o.State, o.StateTimeout, env)
	if err != nil {
		warn("state store unavailable (%v); running without the breaker this run", err)
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
	if _, err := g.b.Record(ctx, g.permit, sample); err != nil {
		g.failed(err)
	}
}

// refusal is why Allow refused a retry.
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
		st, err := g.b.Status(ctx, g.key)
		if err != nil {
			g.failed(err)
			return nil
		}
		if st.Warning != nil {
			g.warn("%v", st.Warning)
		}
		g.permit = breaker.Permit{Verdict: breaker.Allow, Status: st}
		switch {
		case st.State == breaker.HalfOpen:
			g.pending = true
		case st.State == breaker.Open && g.wait && g.reachable(st):
			g.pending = true
		case st.State == breaker.Open:
			return &refusal{msg: g.openMessage(st), opened: true}
		case !st.RetryAllowed && g.wait && (g.deadline.IsZero() || time.Now().Add(st.RetryIn).Before(g.deadline)):
			g.pending = true // attempts are spent on attempts, not on refusals
		case !st.RetryAllowed:
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
		return &refusal{msg: g.budgetMessage(p.Status)}
	}
	return nil
}

// budgetMessage is the message for a retry the key's budget refused.
func (g *guard) budgetMessage(s breaker.Status) string {
	msg := fmt.Sprintf("retry budget exhausted for %s (%.1f of %.0f tokens left)", g.key, s.Tokens, s.MaxTokens)
	if g.wait {
		msg += "; it allows a retry again in " + report.Duration(s.RetryIn.Round(time.Second)) + ", past the deadline"
	}
	return msg
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

// newBreakerCommand is `retry breaker list|status|reset`.
func newBreakerCommand(deps Deps) *cobra.Command {
	b := defaultBreakerOptions()
	var asJSON bool
	// with opens the store, calls f with a breaker over it, and closes it.
	with := func(f func(*breaker.Breaker) error) error {
		cfg, err := b.config()
		if err != nil {
			return err
		}
		store, err := openStore(b.State, b.StateTimeout, deps.Env)
		if err != nil {
			return &UsageError{Flag: "--state", Value: b.State, Err: err}
		}
		defer store.Close()
		br, err := breaker.New(store, cfg, nil, nil)
		if err != nil {
			return err
		}
		return f(br)
	}
	root := &cobra.Command{
		Use:   "breaker",
		Short: "Inspect and reset the shared circuit breakers",
		Args:  cobra.ArbitraryArgs,
		// A typo must not look like success: `retry breaker rest KEY`
		// would otherwise print help and exit 0, and a script would
		// believe the circuit was reset.
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			want := "unknown subcommand; want list, status or reset"
			if s := closestCommand(args[0], c.Commands()); s != "" {
				want = "unknown subcommand; did you mean " + s + "?"
			}
			return &UsageError{Flag: "breaker", Value: args[0], Want: want}
		},
	}
	b.bindState(root.PersistentFlags())
	b.bindTunables(root.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List every circuit in the state store",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return with(func(br *breaker.Breaker) error {
				all, err := br.List(c.Context())
				if err != nil {
					return fmt.Errorf("list circuits: %w", err)
				}
				if asJSON {
					return json.NewEncoder(c.OutOrStdout()).Encode(all)
				}
				w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "KEY\tSTATE\tFAILED\tTOKENS\tNEXT PROBE\tWAITING")
				for _, s := range all {
					fmt.Fprintf(w, "%s\t%s\t%d/%d\t%.1f/%.0f\t%s\t%d\n", s.Key, s.State, s.Failures, s.Attempts, s.Tokens, s.MaxTokens, nextProbe(s), s.Waiting)
				}
				return w.Flush()
			})
		},
	}
	status := &cobra.Command{
		Use:   "status KEY",
		Short: "Show one circuit: state, window counts, tokens, time to the next probe",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return with(func(br *breaker.Breaker) error {
				s, err := br.Status(c.Context(), args[0])
				if err != nil {
					return fmt.Errorf("status of %q: %w", args[0], err)
				}
				if asJSON {
					return json.NewEncoder(c.OutOrStdout()).Encode(s)
				}
				if !s.Recorded {
					fmt.Fprintf(c.OutOrStdout(), "key: %s\nstate: no record (no run has used this key, or its record expired)\n", s.Key)
					return nil
				}
				fmt.Fprintf(c.OutOrStdout(), "key: %s\nstate: %s\nfailed: %d of %d attempts in the last %s\ntokens: %.1f of %.0f (retries %s)\nnext probe: %s\ncooldown: %s\nwaiting: %d runs (%d let through since a probe last closed it)\n",
					s.Key, s.State, s.Failures, s.Attempts, report.Duration(s.Window), s.Tokens, s.MaxTokens, allowed(s.RetryAllowed), nextProbe(s), cooldown(s),
					s.Waiting, s.Admitted)
				return nil
			})
		},
	}
	reset := &cobra.Command{
		Use:   "reset KEY",
		Short: "Forget everything about one circuit: closed, empty window, full budget",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return with(func(br *breaker.Breaker) error {
				if err := br.Reset(c.Context(), args[0]); err != nil {
					return fmt.Errorf("reset %q: %w", args[0], err)
				}
				fmt.Fprintf(c.ErrOrStderr(), "retry: circuit %q reset\n", args[0])
				return nil
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	root.AddCommand(list, status, reset)
	return root
}

// closestCommand returns the name of the available command in cmds that
// typed is a typo of (see closest), or "".
func closestCommand(typed string, cmds []*cobra.Command) string {
	var names []string
	for _, c := range cmds {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return closest(typed, names)
}

func nextProbe(s breaker.Status) string {
	switch {
	case s.State == breaker.Closed:
		return "-"
	case s.NextProbe <= 0:
		return "now"
	}
	return report.Duration(s.NextProbe.Round(time.Second))
}

// cooldown describes the circuit's current cooldown.
func cooldown(s breaker.Status) string {
	if s.State == breaker.Closed {
		return "-"
	}
	return fmt.Sprintf("%s (after %d failed probes)", report.Duration(s.Cooldown.Round(100*time.Millisecond)), s.FailedProbes)
}

func allowed(ok bool) string {
	if ok {
		return "allowed"
	}
	return "refused"
}

// circuitRefused reports whether err is the guard's refusal of an attempt
// because the circuit was open, rather than because a budget was spent.
func circuitRefused(err error) bool {
	var r *refusal
	return errors.As(err, &r) && r.opened
}
