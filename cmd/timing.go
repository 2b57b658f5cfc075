package cmd

// --timeout auto: each attempt's limit learned from the command's own
// successful runs (package timing), kept in the state store the breaker
// uses (--state), under a key of the command line's hash or --timeout-key.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"retry/breaker"
	"retry/report"
	"retry/runner"
	"retry/timing"
)

// timingTTL is how long a key's durations are kept after its last
// successful run: long enough for a weekly job, short enough that the
// state of commands nobody runs any more goes away.
const timingTTL = 90 * 24 * time.Hour

// Where a learned limit comes from, as the report's limit_from says it.
const (
	limitLearned  = "learned"
	limitFallback = "fallback"
)

// timeoutValue is --timeout: a duration, "auto", or "auto,FALLBACK".
type timeoutValue struct {
	d    *time.Duration
	auto *bool
}

const wantTimeout = "want a duration such as 10s or 1m30s, auto (learn it from the command's successful runs), or auto,10m (with a limit until enough runs are learned)"

func (v timeoutValue) Set(s string) error {
	rest, auto := strings.CutPrefix(s, "auto")
	switch {
	case auto && rest == "":
		*v.d, *v.auto = 0, true
		return nil
	case auto && strings.HasPrefix(rest, ","):
		d, err := ParseDuration(rest[1:])
		if err != nil {
			return &UsageError{Flag: "--timeout", Value: s, Err: err, Want: wantTimeout}
		}
		*v.d, *v.auto = d, true
		return nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return &UsageError{Flag: "--timeout", Value: s, Err: err, Want: wantTimeout}
	}
	*v.d, *v.auto = d, false
	return nil
}

func (v timeoutValue) String() string {
	if v.auto != nil && *v.auto {
		if *v.d > 0 {
			return "auto," + v.d.String()
		}
		return "auto"
	}
	return durationValue{d: v.d}.String()
}

func (timeoutValue) Type() string { return "duration|auto" }

// learnPlan is --timeout auto as planned: the key, the rule and the
// fallback limit.
type learnPlan struct {
	Key string
	// Named is set when the user gave the key (--timeout-key).
	Named    bool
	Rule     timing.Rule
	Fallback time.Duration
	// shown is what `retry plan` says about it (see planTimeout).
	shown string
}

// learning checks --timeout auto and --timeout-key and returns the plan
// of the learned timeout, nil without --timeout auto. argv is the command
// to run; the key derived from it includes the directory it runs in.
func (o *Options) learning(argv []string) (*learnPlan, error) {
	if !o.TimeoutAuto {
		if o.TimeoutKey != "" {
			return nil, &UsageError{Flag: "--timeout-key", Value: o.TimeoutKey, Want: "only applies with --timeout auto"}
		}
		return nil, nil
	}
	p := &learnPlan{Rule: timing.DefaultRule(), Fallback: o.Timeout}
	if o.TimeoutKey != "" {
		p.Key, p.Named = o.TimeoutKey, true
		return p, nil
	}
	dir := o.Cwd
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &UsageError{Flag: "--timeout", Value: "auto", Want: fmt.Sprintf("cannot tell the working directory (%v); name the key with --timeout-key", err)}
	}
	p.Key = timing.CommandKey(argv, abs)
	return p, nil
}

// loadLearned reads what the store knows about key. A missing record is
// an empty one; a corrupt one is empty with a warning.
func loadLearned(ctx context.Context, store breaker.Store, key string) (timing.Record, error) {
	data, err := store.Get(ctx, breaker.Timing, key)
	if err != nil {
		return timing.Record{}, err
	}
	return timing.Decode(data, key)
}

// learner is one run's learned timeout: it gives each attempt its limit
// and, when the run succeeds, records how long the successful attempt
// took. A store that cannot be read or written costs the run its learned
// limit (the fallback applies), with one warning, never the command.
type learner struct {
	plan    *learnPlan
	store   breaker.Store
	learned timing.Learned
	// cur is the learned limit of the next attempt: doubled each time
	// an attempt is stopped at it.
	cur  time.Duration
	warn func(format string, args ...any)
	off  bool
	// owned is set when the learner opened store itself, and closes it.
	owned bool
}

// startLearning reads the key's figures from shared, the store the
// breaker already opened, or else from a store it opens itself; nil
// without --timeout auto.
func startLearning(ctx context.Context, b *breakerOptions, deps Deps, shared breaker.Store, plan *learnPlan, warn func(string, ...any)) *learner {
	if plan == nil {
		return nil
	}
	l := &learner{plan: plan, warn: warn, store: shared}
	if shared == nil {
		store, err := openStore(b.State, b.StateTimeout, deps, false)
		if err != nil {
			l.failed(unopened(b.State, deps.Env, err))
			return l
		}
		l.store, l.owned = store, true
	}
	store := l.store
	rec, err := loadLearned(ctx, store, plan.Key)
	var corrupt *timing.CorruptError
	var newer *timing.VersionError
	switch {
	case errors.As(err, &corrupt):
		warn("%v", err)
	case errors.As(err, &newer):
		warn("%v; no learned timeout this run", err)
		l.off = true
		return l
	case err != nil:
		l.failed(err)
		return l
	}
	l.learned = plan.Rule.Learn(rec)
	l.cur = l.learned.Limit
	return l
}

func (l *learner) failed(err error) {
	if !l.off {
		fallback := "no time limit"
		if l.plan.Fallback > 0 {
			fallback = "the fallback " + report.Duration(l.plan.Fallback)
		}
		l.warn("state store unavailable (%v); no learned timeout this run, %s instead", err, fallback)
	}
	l.off = true
}

func (l *learner) close() {
	if l != nil && l.owned {
		l.store.Close()
	}
}

// apply makes cfg's attempts use the learned limits.
func (l *learner) apply(cfg *runner.Config) {
	if l != nil {
		cfg.Limits = l.limit
	}
}

// limit is runner.Config.Limits: the learned limit, doubled after each
// attempt stopped at it; before the key is learned (or without the
// store), the fallback, or none.
func (l *learner) limit(_ int, last runner.Attempt) runner.Limit {
	if stoppedAtLearned(last) {
		l.cur = timing.Escalate(last.Limit.D)
	}
	if !l.off && l.learned.Ready {
		return runner.Limit{D: l.cur, From: limitLearned}
	}
	if l.plan.Fallback > 0 {
		return runner.Limit{D: l.plan.Fallback, From: limitFallback}
	}
	return runner.Limit{}
}

// record adds the successful attempt's duration to the key's histogram.
// Only successes are learned: a failure's duration says nothing about how
// long the work takes, and a hang's would teach retry to wait for hangs.
// A run that never succeeded but was stopped at the learned limit makes
// the next run start with the limit doubled once per stop, so a command
// that got slower gets through even at one attempt a run.
func (l *learner) record(ctx context.Context, res runner.Result) {
	if l == nil || l.off || ctx.Err() != nil {
		return
	}
	key := l.plan.Key
	var update func(old []byte) ([]byte, error)
	if res.Stop == runner.Succeeded {
		d := res.Last().Duration
		update = func(old []byte) ([]byte, error) { return timing.Observe(old, key, d, time.Now()) }
	} else {
		stops := 0
		for _, o := range res.Attempts {
			if stoppedAtLearned(o) {
				stops++
			}
		}
		if stops == 0 {
			return
		}
		update = func(old []byte) ([]byte, error) { return timing.Stopped(old, key, stops) }
	}
	if err := l.store.Update(ctx, breaker.Timing, key, timingTTL, update); err != nil {
		l.warn("cannot record the run for --timeout auto (%v)", err)
	}
}

// stoppedAtLearned reports whether the learned limit (not the deadline)
// stopped the attempt.
func stoppedAtLearned(o runner.Attempt) bool {
	return o.Limit.From == limitLearned && o.Exit.TimedOut && !o.DeadlineHit
}

// describe is the plan's line for the learned timeout, as of learned (or
// why there is none: err).
func (p *learnPlan) describe(learned timing.Learned, err error) string {
	fallback := "no limit"
	if p.Fallback > 0 {
		fallback = report.Duration(p.Fallback) + " (the fallback)"
	}
	key := "key " + p.Key
	if p.Named {
		key = "--timeout-key " + p.Key
	}
	switch {
	case err != nil:
		return fmt.Sprintf("auto (%s): state store unavailable (%v), so %s", key, err, fallback)
	case !learned.Ready:
		return fmt.Sprintf("auto (%s): %d of %d successful runs learned; until %d, %s", key, learned.N, p.Rule.MinSamples, p.Rule.MinSamples, fallback)
	}
	return fmt.Sprintf("auto = %s, from %d runs (%s), doubled after each attempt it stops", ruleText(p.Rule, learned), learned.N, key)
}

// ruleText shows the rule at work: "3 × p99 1.4s = 4.2s", or
// "max(3 × p99 108ms, 1s) = 1s" when the floor wins, and the doublings
// left by runs stopped at it: "(3 × p99 1.4s) × 2 = 8.4s".
func ruleText(r timing.Rule, l timing.Learned) string {
	s := fmt.Sprintf("%g × p99 %s", r.Multiple, report.Duration(l.P99))
	if float64(l.P99)*r.Multiple < float64(r.Floor) {
		s = fmt.Sprintf("max(%s, %s)", s, report.Duration(r.Floor))
	}
	if l.Doublings > 0 {
		s = fmt.Sprintf("(%s) × %d", s, 1<<l.Doublings)
	}
	return s + " = " + report.Duration(l.Limit)
}

// planTimeout is the per-attempt timeout line of `retry plan` with
// --timeout auto, and the limit the schedule should count.
func planTimeout(ctx context.Context, o *Options, plan Plan, deps Deps) (string, time.Duration) {
	store, err := openStore(o.Breaker.State, o.Breaker.StateTimeout, deps, true)
	var rec timing.Record
	if err == nil {
		defer store.Close()
		rec, err = loadLearned(ctx, store, plan.Learn.Key)
		var corrupt *timing.CorruptError
		if errors.As(err, &corrupt) {
			err = nil
		}
	}
	learned := plan.Learn.Rule.Learn(rec)
	limit := plan.Learn.Fallback
	if err == nil && learned.Ready {
		limit = learned.Limit
	}
	return plan.Learn.describe(learned, err), limit
}

// timingStatus is `retry timing status --json`.
type timingStatus struct {
	Key     string `json:"key"`
	Runs    int64  `json:"runs"`
	P50MS   *int64 `json:"p50_ms"`
	P99MS   *int64 `json:"p99_ms"`
	LimitMS *int64 `json:"limit_ms"`
	// Doublings is how often the last runs were stopped at the learned
	// limit without succeeding; the limit includes them.
	Doublings int        `json:"doublings"`
	Updated   *time.Time `json:"updated"`
}

func statusOf(r timing.Record, rule timing.Rule) timingStatus {
	l := rule.Learn(r)
	s := timingStatus{Key: r.Key, Runs: l.N, Doublings: r.Doublings}
	ms := func(d time.Duration) *int64 { v := d.Round(time.Millisecond).Milliseconds(); return &v }
	if l.N > 0 && len(r.Histogram.Weights) > 0 {
		s.P50MS, s.P99MS = ms(l.P50), ms(l.P99)
	}
	if l.Ready {
		s.LimitMS = ms(l.Limit)
	}
	if !r.Updated.IsZero() {
		u := r.Updated.UTC()
		s.Updated = &u
	}
	return s
}

func writeTimingStatus(w io.Writer, r timing.Record, rule timing.Rule) {
	l := rule.Learn(r)
	fmt.Fprintf(w, "key: %s\nruns: %d\n", r.Key, l.N)
	if l.N == 0 || len(r.Histogram.Weights) == 0 {
		fmt.Fprintln(w, "p50: -\np99: -")
	} else {
		fmt.Fprintf(w, "p50: %s\np99: %s\n", report.Duration(l.P50), report.Duration(l.P99))
	}
	if l.Ready {
		fmt.Fprintf(w, "limit: %s\n", ruleText(rule, l))
	} else {
		fmt.Fprintf(w, "limit: none yet (%d of %d runs learned)\n", l.N, rule.MinSamples)
	}
	if !r.Updated.IsZero() {
		fmt.Fprintf(w, "last run: %s\n", r.Updated.UTC().Format(time.RFC3339))
	}
}

// newTimingCommand is `retry timing list|status|reset`.
func newTimingCommand(deps Deps) *cobra.Command {
	b := defaultBreakerOptions()
	var asJSON bool
	rule := timing.DefaultRule()
	with := func(f func(breaker.Store) error) error {
		store, closeStore, err := openExisting(b.State, b.StateTimeout, deps)
		if err != nil {
			return err
		}
		defer closeStore()
		return f(store)
	}
	// keyOf is the KEY argument, or the key of the command after --.
	keyOf := func(c *cobra.Command, args []string) (string, error) {
		if c.ArgsLenAtDash() != 0 {
			if len(args) != 1 {
				return "", &UsageError{Flag: "KEY", Want: "give one key (retry timing list shows them), or -- and the command"}
			}
			return args[0], nil
		}
		if len(args) == 0 {
			return "", &UsageError{Flag: "COMMAND", Want: "missing after --"}
		}
		o := Options{TimeoutAuto: true}
		p, err := o.learning(args)
		if err != nil {
			return "", err
		}
		return p.Key, nil
	}
	root := &cobra.Command{
		Use:   "timing",
		Short: "Inspect and reset the durations --timeout auto has learned",
		Long: `timing shows what --timeout auto has learned: for each key (a command line's
hash, or a --timeout-key name), how many successful runs were recorded, their
median (p50) and 99th percentile (p99), and the limit an attempt would get:
max(3 × p99, 1s) once 20 runs are learned. Figures are bucket upper bounds,
at most 9% above the true value. A key is named as list shows it, or by the
command itself after --, run from the same directory:

  retry timing status -- git fetch origin`,
		Args: cobra.ArbitraryArgs,
		RunE: unknownSubcommand,
	}
	b.bindState(root.PersistentFlags())
	list := &cobra.Command{
		Use:   "list",
		Short: "List every learned key with its figures",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return with(func(store breaker.Store) error {
				items, err := store.List(c.Context(), breaker.Timing)
				if err != nil {
					return fmt.Errorf("list keys: %w", err)
				}
				var all []timingStatus
				for _, it := range items {
					if it.Err != nil {
						printWarning(c.ErrOrStderr(), "%s: %v", it.Where, it.Err)
						continue
					}
					r, err := timing.Decode(it.Data, "")
					if err != nil {
						printWarning(c.ErrOrStderr(), "%s: %v", it.Where, err)
						continue
					}
					all = append(all, statusOf(r, rule))
				}
				if asJSON {
					if all == nil {
						all = []timingStatus{}
					}
					return json.NewEncoder(c.OutOrStdout()).Encode(all)
				}
				w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "KEY\tRUNS\tP50\tP99\tLIMIT")
				for _, s := range all {
					fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", s.Key, s.Runs, msText(s.P50MS), msText(s.P99MS), msText(s.LimitMS))
				}
				return w.Flush()
			})
		},
	}
	status := &cobra.Command{
		Use:   "status KEY | status -- COMMAND [ARG...]",
		Short: "Show one key: runs learned, p50, p99 and the limit --timeout auto would use",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			key, err := keyOf(c, args)
			if err != nil {
				return err
			}
			return with(func(store breaker.Store) error {
				r, err := loadLearned(c.Context(), store, key)
				var corrupt *timing.CorruptError
				if errors.As(err, &corrupt) {
					printWarning(c.ErrOrStderr(), "%v", err)
				} else if err != nil {
					return fmt.Errorf("status of %q: %w", key, err)
				}
				if asJSON {
					return json.NewEncoder(c.OutOrStdout()).Encode(statusOf(r, rule))
				}
				writeTimingStatus(c.OutOrStdout(), r, rule)
				return nil
			})
		},
	}
	reset := &cobra.Command{
		Use:   "reset KEY | reset -- COMMAND [ARG...]",
		Short: "Forget one key's durations: --timeout auto learns it again from scratch",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			key, err := keyOf(c, args)
			if err != nil {
				return err
			}
			return with(func(store breaker.Store) error {
				err := store.Update(c.Context(), breaker.Timing, key, timingTTL, func([]byte) ([]byte, error) {
					return timing.Encode(timing.Record{Key: key})
				})
				if err != nil {
					return fmt.Errorf("reset %q: %w", key, err)
				}
				fmt.Fprintf(c.ErrOrStderr(), "retry: timing of %q reset\n", key)
				return nil
			})
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	root.AddCommand(list, status, reset)
	return root
}

func msText(ms *int64) string {
	if ms == nil {
		return "-"
	}
	return report.Duration(time.Duration(*ms) * time.Millisecond)
}
