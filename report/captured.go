package report

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"retry/exitcodes"
	"retry/runner"
)

// Captured writes held attempt output (runner.StdoutBuffer) where it
// belongs: the successful attempt's to Stdout, once; a failed attempt's to
// Stderr after a `retry: output of failed attempt N:` line, unless Drop is
// set. Failed output is never lost silently.
type Captured struct {
	Stdout, Stderr io.Writer
	Drop           bool
	// Err is the first error writing to Stdout, such as a closed pipe.
	Err error
}

// Observe implements a runner.Config.Observe function.
func (c *Captured) Observe(e runner.Event) {
	end, ok := e.(*runner.AttemptEnded)
	if !ok {
		return
	}
	o := end.Attempt
	if o.Unheld != nil {
		fmt.Fprintf(c.Stderr, "retry: warning: --stdout buffer could not hold attempt %d's output past %s (%v), so it went to stdout as it came: set TMPDIR to a writable directory with room\n",
			o.N, Size(runner.SpoolMemory), OneLine(o.Unheld.Error()))
	}
	if o.Stdout == nil {
		return
	}
	if o.Verdict.Class == exitcodes.Success {
		n, err := o.Stdout.WriteTo(c.Stdout)
		if err != nil && c.Err == nil {
			c.Err = err
			// A reader gone (EPIPE) ends quietly, as in a shell pipeline;
			// anything else lost the output, and is said.
			if !errors.Is(err, syscall.EPIPE) {
				fmt.Fprintf(c.Stderr, "retry: attempt %d succeeded, but passing its output on to stdout failed after %s of %s: %s\n",
					o.N, Size(n), Size(o.Stdout.Size()), OneLine(err.Error()))
			}
		}
		return
	}
	if c.Drop || o.Stdout.Size() == 0 {
		return
	}
	fmt.Fprintf(c.Stderr, "retry: output of failed attempt %d:\n", o.N)
	o.Stdout.WriteTo(c.Stderr)
}
