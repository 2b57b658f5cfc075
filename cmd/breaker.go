package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"retry/breaker"
	"retry/report"
)

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
		store, closeStore, err := openExisting(b.State, b.StateTimeout, deps)
		if err != nil {
			return err
		}
		defer closeStore()
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
		RunE:  unknownSubcommand,
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
				// A key no run has used is most likely a typo: say so,
				// rather than report a reset of nothing.
				s, err := br.Status(c.Context(), args[0])
				if err != nil {
					return fmt.Errorf("reset %q: %w", args[0], err)
				}
				if !s.Recorded {
					fmt.Fprintf(c.ErrOrStderr(), "retry: circuit %q has no record (no run has used this key, or its record expired): nothing to reset; retry breaker list shows the keys\n", args[0])
					return nil
				}
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

// unknownSubcommand is the RunE of a command that only groups
// subcommands (breaker, timing): without words it shows help; with a word
// that names none of them it is a usage error. A typo must not look like
// success: `retry breaker rest KEY` would otherwise print help and exit
// 0, and a script would believe the circuit was reset.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return c.Help()
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	want := "unknown subcommand; want " + strings.Join(names, ", ")
	if s := closestCommand(args[0], c.Commands()); s != "" {
		want = "unknown subcommand; did you mean " + s + "?"
	}
	return &UsageError{Flag: c.Name(), Value: args[0], Want: want}
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
