package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at link time by the release build:
// -ldflags "-X retry/cmd.version=1.2.3 -X retry/cmd.commit=abc -X retry/cmd.date=2026-01-02".
// They are never written at run time.
var (
	version = ""
	commit  = ""
	date    = ""
)

// versionLine is what --version and `retry version` print: the version,
// commit and build date, from the linker flags or, for `go install` builds,
// from the module's build information.
func versionLine() string {
	v, c, d := buildVersion()
	return fmt.Sprintf("retry %s (commit %s, built %s)", v, c, d)
}

// shortVersion is the version alone, as reports record it.
func shortVersion() string {
	v, _, _ := buildVersion()
	return v
}

func buildVersion() (v, c, d string) {
	v, c, d = version, commit, date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if c == "" {
		c = "unknown"
	}
	if d == "" {
		d = "unknown"
	}
	return v, c, d
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print retry's version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(c.OutOrStdout(), versionLine())
			return err
		},
	}
}
