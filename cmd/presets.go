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
			// A long pattern goes on over several lines, which tabwriter
			// would take as the end of a column: align by hand.
			table := [][4]string{{"CLASS", "EXIT", "MATCH", "DESCRIPTION"}}
			for _, r := range rows {
				match := wrapPattern(r.Match, matchWidth)
				table = append(table, [4]string{r.Class, r.Exit, match[0], r.Description})
				for _, more := range match[1:] {
					table = append(table, [4]string{"", "", more, ""})
				}
			}
			var widths [3]int
			for _, row := range table {
				for i := range widths {
					widths[i] = max(widths[i], len(row[i]))
				}
			}
			out := c.OutOrStdout()
			for _, row := range table {
				line := fmt.Sprintf("%-*s  %-*s  %-*s  %s", widths[0], row[0], widths[1], row[1], widths[2], row[2], row[3])
				if _, err := fmt.Fprintln(out, strings.TrimRight(line, " ")); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// matchWidth is the widest a MATCH cell of retry presets NAME grows
// before its pattern goes on to the next line.
const matchWidth = 60

// wrapPattern cuts a regular expression into lines of about width
// characters before its alternatives' bars (inside groups too), each line
// after the first starting with the | that joins it: the lines put end to
// end are the pattern, and the column stays narrow. An alternative longer
// than width keeps a line of its own.
func wrapPattern(re string, width int) []string {
	var alts []string
	start, escaped, class := 0, false, false
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '|':
			alts = append(alts, re[start:i])
			start = i
		}
	}
	alts = append(alts, re[start:])
	lines := []string{alts[0]}
	for _, a := range alts[1:] {
		if last := &lines[len(lines)-1]; len(*last)+len(a) <= width {
			*last += a
		} else {
			lines = append(lines, a)
		}
	}
	return lines
}
