package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"retry/breaker"
	"retry/exitcodes"
	"retry/policy"
)

// Command returns retry's command tree for generating documentation and
// completion scripts. It must not be executed: it has no streams or
// signal relay.
func Command() *cobra.Command {
	code := 0
	root := newRoot(Deps{}, nil, &code, nil, true)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	return root
}

// registerCompletions teaches the shell completions the values of retry's
// flags: fixed choices, preset names, policy names from the configuration
// and breaker keys from the state store.
func registerCompletions(c *cobra.Command, deps Deps) {
	fixed := func(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
	}
	completions := map[string]func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective){
		"jitter":      fixed(policy.JitterNames()...),
		"stdin":       fixed("auto", "replay", "inherit", "null"),
		"stdout":      fixed("pass", "buffer"),
		"nested":      fixed("warn", "single", "allow"),
		"log-format":  fixed("text", "json"),
		"annotations": fixed("auto", "off"),
		"signal":      fixed("TERM", "INT", "HUP", "QUIT", "KILL", "USR1", "USR2"),
		"preset": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			names := []string{"auto\tfrom the program name", "none\tno presets"}
			for _, p := range exitcodes.Presets() {
				names = append(names, p.Name+"\t"+p.Description)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		"policy": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			_, names, _ := findPolicy("", deps)
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		"breaker": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return breakerKeys(deps), cobra.ShellCompDirectiveNoFileComp
		},
	}
	for name, f := range completions {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, f)
		}
	}
}

// breakerKeys lists the keys in the default state store, quickly or not at
// all.
func breakerKeys(deps Deps) []string {
	quick := deps
	quick.HandOff = nil // completion stays quick: no other program
	store, err := openStore("", 0, quick, true)
	if err != nil {
		return nil
	}
	defer store.Close()
	b, err := breaker.New(store, breaker.Default(), nil, nil)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	all, err := b.List(ctx)
	if err != nil {
		return nil
	}
	var keys []string
	for _, s := range all {
		if s.Key != "" {
			keys = append(keys, s.Key)
		}
	}
	return keys
}
