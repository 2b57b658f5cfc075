package cmd

import (
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"retry/exitcodes"
	"retry/policy"
	"retry/report"
)

// planRows is the most attempts `retry plan` lists.
const planRows = 40

func newPlan(deps Deps, sources *map[string]string) *cobra.Command {
	o := defaultOptions()
	c := &cobra.Command{
		Use:   "plan [flags] [-- COMMAND [ARG...]]",
		Short: "Show the schedule and the rules a retry would use, without running anything",
		Long: `plan takes the same flags as retry itself (and RETRY_OPTS and -p policies)
and prints what they add up to: each attempt's phase, the range its wait is
drawn from, the worst-case and expected time used before it starts, where
the deadline cuts the schedule, an ASCII timeline, and the classification
rules in force (the presets too, when a COMMAND is named). With --seed N it
shows the exact waits that --seed N would use; with -v, where each setting
came from.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			argv := args
			if len(argv) == 0 {
				argv = []string{"COMMAND"}
			}
			if *sources == nil {
				*sources = commandLineSources(c.Flags())
			}
			o.sources = *sources
			plan, err := o.plan(argv, deps.Env)
			if err != nil {
				return err
			}
			if plan.Learn != nil {
				plan.Learn.shown, plan.Timeout = planTimeout(c.Context(), &o, plan, deps)
			}
			out := &stickyWriter{w: c.OutOrStdout()}
			writePlan(out, &o, plan, len(args) > 0)
			if o.Verbose {
				writeSources(out, c, *sources)
			}
			return out.err
		},
	}
	c.Flags().SetInterspersed(false)
	c.Flags().SortFlags = false
	o.bind(c.Flags())
	return c
}

// stickyWriter keeps the first error writing to w and writes nothing
// after it, so that a listing written line by line fails as a whole
// (`retry plan > /dev/full` exited 0 with nothing written).
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// planRow is one attempt of the schedule.
type planRow struct {
	attempt         int
	phase           string
	lo, hi          time.Duration // the wait before it
	exact           time.Duration // with --seed
	worst, expected time.Duration // time used before it starts
	cut             bool          // the deadline ends the schedule before it
}

// schedule lays out the attempts of p. Worst and expected times count the
// waits, plus the per-attempt timeout (when set) for every earlier attempt.
func schedule(p policy.Policy, timeout time.Duration, seed uint64, seeded bool) []planRow {
	rows := []planRow{{attempt: 1, phase: "first"}}
	r := rand.New(rand.NewPCG(seed, seed))
	var worst, expected time.Duration
	for a := 1; p.Attempts == 0 || a < p.Attempts; a++ {
		if len(rows) == planRows {
			break
		}
		phase, bound := p.Bound(a)
		lo, hi := p.Range(bound)
		row := planRow{attempt: a + 1, phase: phase.String() + " phase", lo: lo, hi: hi}
		if seeded {
			row.exact = p.Next(policy.Input{Attempt: a}, r).Wait
		}
		worst += hi + timeout
		expected += (lo+hi)/2 + timeout
		row.worst, row.expected = worst, expected
		if p.Deadline > 0 && worst >= p.Deadline {
			row.cut = true
			if expected >= p.Deadline {
				rows = append(rows, row)
				break
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func writePlan(w io.Writer, o *Options, plan Plan, named bool) {
	p := plan.Policy
	rows := schedule(p, plan.Timeout, o.Seed, o.SeedSet)
	attempts := fmt.Sprint(p.Attempts)
	switch {
	case p.Forever:
		attempts = "forever (--forever)"
	case p.Attempts == 0:
		attempts = "no limit"
	}
	deadline := "none"
	if p.Deadline > 0 {
		deadline = report.Duration(p.Deadline)
	}
	timeout := "none"
	switch {
	case plan.Learn != nil:
		timeout = "auto, see below"
	case plan.Timeout > 0:
		timeout = fmt.Sprintf("%s, then %s, SIGKILL %s later", report.Duration(plan.Timeout), exitcodes.SignalName(plan.Signal), report.Duration(plan.KillAfter))
	}
	fmt.Fprintf(w, "attempts: %s; deadline: %s; per-attempt timeout: %s; jitter: %s\n", attempts, deadline, timeout, p.Jitter)
	fmt.Fprintf(w, "fast phase: %d retries, %s doubling to at most %s; slow phase: %s doubling to at most %s\n",
		p.Fast, report.Duration(p.FastDelay), report.Duration(p.FastMax), report.Duration(p.SlowDelay), report.Duration(p.SlowMax))
	if plan.Learn != nil {
		fmt.Fprintf(w, "timeout: %s; then %s, SIGKILL %s later\n", plan.Learn.shown, exitcodes.SignalName(plan.Signal), report.Duration(plan.KillAfter))
	}
	for _, note := range plan.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	if p.Reset > 0 {
		fmt.Fprintf(w, "reset: an attempt that ran %s or longer before failing starts the schedule over at the fast phase (the attempt count goes on)\n", report.Duration(p.Reset))
	}
	if b := &o.Breaker; b.Key != "" {
		fmt.Fprintf(w, "breaker: %q; when the circuit is open: %s\n", b.Key, whenOpen(b, p))
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "ATTEMPT\tPHASE\tWAIT BEFORE\tWORST CASE BY THEN\tEXPECTED BY THEN\t"
	if o.SeedSet {
		header = "ATTEMPT\tPHASE\tWAIT BEFORE\tWITH --seed " + fmt.Sprint(o.Seed) + "\tWORST CASE BY THEN\tEXPECTED BY THEN\t"
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		wait := "-"
		if r.attempt > 1 {
			wait = report.Duration(r.lo) + " to " + report.Duration(r.hi)
			if r.lo == r.hi {
				wait = report.Duration(r.hi)
			}
		}
		exact := ""
		if o.SeedSet {
			exact = "-\t"
			if r.attempt > 1 {
				exact = report.Duration(r.exact) + "\t"
			}
		}
		note := ""
		if r.cut {
			note = "deadline may cut here"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s%s\t%s\t%s\n", r.attempt, r.phase, wait, exact, report.Duration(r.worst), report.Duration(r.expected), note)
	}
	tw.Flush()
	last := rows[len(rows)-1]
	switch {
	case p.Forever:
		fmt.Fprintf(w, "... and so on at most every %s, forever: until an attempt succeeds, fails for good, or retry is stopped\n", report.Duration(p.SlowMax))
	case p.Attempts == 0 && !last.cut:
		fmt.Fprintf(w, "... and so on at most every %s until the deadline or a stop rule\n", report.Duration(p.SlowMax))
	case p.Attempts > len(rows) && !last.cut:
		fmt.Fprintf(w, "... %d attempts in all\n", p.Attempts)
	}
	if plan.Timeout == 0 {
		fmt.Fprintln(w, "times count the waits only: add the attempts' own run time")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "timeline (worst case):")
	fmt.Fprintln(w, timeline(rows, p.Deadline, 60))
	fmt.Fprintln(w)
	writeRules(w, o, plan, named)
}

// whenOpen says what a run with schedule p does about an open circuit.
func whenOpen(b *breakerOptions, p policy.Policy) string {
	why := ""
	if b.WhenOpen == "auto" {
		switch {
		case p.Deadline > 0:
			why = " (--when-open auto: a deadline is set)"
		case p.Attempts == 0:
			why = " (--when-open auto: attempts are unlimited)"
		default:
			why = " (--when-open auto: no deadline)"
		}
	}
	switch {
	case b.waits(p.Deadline, p.Attempts) && p.Deadline > 0:
		return "wait for it, sending nothing, while the deadline reaches past its next probe" + why
	case b.waits(p.Deadline, p.Attempts):
		return "wait for it, sending nothing" + why
	}
	return "exit 75 at once (or run --fallback)" + why
}

// timeline draws the attempts on one line of width characters: a digit (or
// *) where each attempt starts at the latest, dashes for the waits, and |
// at the deadline. The line ends at the last attempt listed; a deadline
// after it is named under the line rather than stretching the line until
// the first attempts crowd into its first character. When they crowd there
// anyway (50ms waits before a 30s one), they are drawn again on a line of
// their own, closer.
func timeline(rows []planRow, deadline time.Duration, width int) string {
	out := timelineLine(rows, rows[len(rows)-1].worst, deadline, width)
	for zoom := 0; zoom < 3; zoom++ {
		end := rows[len(rows)-1].worst
		crowded := 0
		for crowded < len(rows) && column(rows[crowded].worst, end, width) == 0 {
			crowded++
		}
		if crowded < 2 || crowded == len(rows) {
			break
		}
		rows = rows[:crowded+1]
		out += fmt.Sprintf("\nthe first %d attempts, closer:\n", len(rows)) + timelineLine(rows, rows[crowded].worst, 0, width)
	}
	return out
}

// column is where d falls on a line of width characters that ends at end.
func column(d, end time.Duration, width int) int {
	if end <= 0 {
		return 0
	}
	return min(int(int64(width)*int64(d)/int64(end)), width)
}

// timelineLine draws rows on a line ending at end, with its scale below.
func timelineLine(rows []planRow, end, deadline time.Duration, width int) string {
	line := []byte(strings.Repeat("-", width+1))
	for _, r := range rows {
		if r.worst > end {
			break
		}
		mark := byte('*')
		if r.attempt < 10 {
			mark = byte('0' + r.attempt)
		}
		line[column(r.worst, end, width)] = mark
	}
	scale := fmt.Sprintf("0s%s%s", strings.Repeat(" ", max(width-len(report.Duration(end))-1, 1)), report.Duration(end))
	switch {
	case deadline > end:
		scale += fmt.Sprintf(" (the %s deadline is later)", report.Duration(deadline))
	case deadline > 0:
		line[column(deadline, end, width)] = '|'
	}
	return string(line) + "\n" + scale
}

func writeRules(w io.Writer, o *Options, plan Plan, named bool) {
	fmt.Fprintln(w, "classification, first match wins:")
	fmt.Fprintln(w, "  exit 0 is success; not found (127) and not executable (126) are terminal")
	if o.StopOnExit != "" {
		fmt.Fprintf(w, "  --stop-on-exit %s: terminal\n", o.StopOnExit)
	}
	for _, p := range o.StopIf {
		fmt.Fprintf(w, "  --stop-if %q: terminal\n", p)
	}
	if o.RetryOnExit != "" {
		fmt.Fprintf(w, "  --retry-on-exit %s: transient\n", o.RetryOnExit)
	}
	for _, p := range o.RetryIf {
		fmt.Fprintf(w, "  --retry-if %q: transient\n", p)
	}
	if o.RetryOnExit != "" || len(o.RetryIf) > 0 {
		fmt.Fprintln(w, "  timeouts: transient; any other failure: terminal (your retry rules are an allow-list)")
		return
	}
	presets := plan.Classifier.Presets()
	switch {
	case len(presets) > 0:
		fmt.Fprintf(w, "  presets %s (see retry presets NAME)\n", strings.Join(presets, ", "))
	case !named && o.Preset == "auto":
		fmt.Fprintln(w, "  presets: chosen from the command's name (name one after -- to see which)")
	}
	if plan.Classifier.Signatures() {
		fmt.Fprintln(w, "  signatures: HTTP 4xx/5xx, auth, certificate, missing-package, usage and network messages of any program (see retry presets signatures)")
	}
	fmt.Fprintln(w, "  the default table: sysexits usage codes (64-68, 70, 76-78), crashes, SIGINT, SIGQUIT and SIGPIPE terminal; anything else transient (docs/exit-codes.md)")
	for _, p := range o.RetryAfter {
		fmt.Fprintf(w, "  --retry-after %q: the wait asked for replaces the backoff, up to %s\n", p, report.Duration(o.RetryAfterMax))
	}
}

// writeSources lists where each setting that is not a default came from.
func writeSources(w io.Writer, c *cobra.Command, sources map[string]string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "settings (anything not listed is a default):")
	var names []string
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, name := range names {
		f := c.Flags().Lookup(name)
		if f == nil {
			continue
		}
		fmt.Fprintf(tw, "  --%s\t%s\tfrom %s\n", name, f.Value.String(), sources[name])
	}
	tw.Flush()
	if len(names) == 0 {
		fmt.Fprintln(w, "  none: all defaults")
	}
}
