// Command completions writes retry's bash, zsh and fish completion scripts
// for another command name. The deb and rpm packages put retry on PATH as
// retry-cli (Debian's own retry package owns /usr/bin/retry), and the
// scripts `retry completion` prints register themselves for the name retry
// only. These differ from them in that name alone: each still asks the
// program being completed (`retry-cli __complete …`) for its candidates.
//
//	go run ./scripts/release/completions -name retry-cli -dir completions
//
// scripts/release/completions.sh runs it as goreleaser's before hook.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"retry/cmd"
)

func main() {
	name := flag.String("name", "retry-cli", "the command name the scripts complete")
	dir := flag.String("dir", "completions", "the directory to write the scripts into")
	flag.Parse()
	if err := write(*dir, *name); err != nil {
		fmt.Fprintln(os.Stderr, "completions:", err)
		os.Exit(1)
	}
}

// script is one shell's completion file: its name as the shell's lazy
// loader looks it up, and how cobra writes it.
type script struct {
	file string
	gen  func(*cobra.Command, io.Writer) error
}

// scripts lists the files for the command name, with descriptions on, as
// `retry completion SHELL` writes them.
func scripts(name string) []script {
	return []script{
		{name + ".bash", func(c *cobra.Command, w io.Writer) error { return c.GenBashCompletionV2(w, true) }},
		{"_" + name, func(c *cobra.Command, w io.Writer) error { return c.GenZshCompletion(w) }},
		{name + ".fish", func(c *cobra.Command, w io.Writer) error { return c.GenFishCompletion(w, true) }},
	}
}

// write writes the scripts for name into dir, which must exist.
func write(dir, name string) error {
	root := cmd.Command()
	root.Use = name
	for _, s := range scripts(name) {
		var b bytes.Buffer
		if err := s.gen(root, &b); err != nil {
			return fmt.Errorf("%s: %w", s.file, err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.file), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
