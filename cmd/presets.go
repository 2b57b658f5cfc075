package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"retry/exitcodes"
)

func newPresets() *cobra.Command {
	return &cobra.Command{
		Use:   "presets [NAME|PROGRAM|signatures]",
		Short: "List the presets for common tools and the signatures, or every rule of one",
		Long: `Presets hold what retry knows of common tools: which exit codes and
messages mean a failure may pass (transient) and which never will
(terminal). --preset auto (the default) picks the preset from the
command's program name, looking through env, sudo, nice, timeout and
sh -c. The signatures judge any program's failure by messages that mean
the same whatever printed them (HTTP 404, connection refused); they
apply after the preset, and --preset none turns both off. NAME may be a
preset, a program a preset covers (helm), or signatures. See
docs/classification.md.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			if len(args) == 0 {
				fmt.Fprintln(w, "PRESET\tPROGRAMS\tDESCRIPTION")
				for _, p := range append(exitcodes.Presets(), exitcodes.SignatureInfo()) {
					fmt.Fprintf(w, "%s\t%s\t%s\n", p.Name, strings.Join(p.Programs, ","), p.Description)
				}
				return w.Flush()
			}
			rows, err := exitcodes.PresetRules(args[0])
			if err != nil {
				return &UsageError{Flag: "NAME", Value: args[0], Err: err}
			}
			fmt.Fprintln(w, "CLASS\tEXIT\tMATCH\tDESCRIPTION")
			for _, r := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Class, r.Exit, r.Match, r.Description)
			}
			return w.Flush()
		},
	}
}
