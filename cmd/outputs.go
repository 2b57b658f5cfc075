package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"retry/breaker"
	"retry/exitcodes"
	"retry/report"
	"retry/runner"
	"retry/signals"
)

// outputs are the renderers of one run, and what they write once it is
// over: the line about the fallback, the summary, the report file and the
// metrics file. They decide nothing: run settles the ending (see settle)
// and runs the fallback.
type outputs struct {
	deps      Deps
	program   string
	line      *report.LineStart // stderr, for every renderer but the countdown
	countdown *report.Countdown
	captured  *report.Captured
	github    *report.GitHub
	text      *report.Text
	repeats   *report.Repeats
	json      *report.JSONLog
	relay     *signals.Relay
	verbose   bool
	// breaker is the report file's account of the circuit breaker; nil
	// without --breaker.
	breaker *report.Breaker
}

func newOutputs(deps Deps, o *Options, plan Plan, relay *signals.Relay) *outputs {
	program := filepath.Base(plan.Args[0])
	cause := func() string { return "received " + exitcodes.SignalName(relay.Received()) }
	line := &report.LineStart{W: deps.Stderr}
	x := &outputs{
		deps:     deps,
		program:  program,
		relay:    relay,
		verbose:  o.Verbose,
		line:     line,
		captured: &report.Captured{Stdout: deps.Stdout, Stderr: line, Drop: plan.DropFailed},
	}
	terminal := isTerminal(deps.Stderr)
	// Workflow commands are lines of their own, never JSON: with the JSON
	// log, stderr stays JSON lines only.
	if o.LogFormat != "json" && o.Annotations == "auto" && lookupEnv(deps.Env, "GITHUB_ACTIONS") == "true" {
		x.github = &report.GitHub{W: line, Program: program, Deadline: plan.Policy.Deadline, Cause: cause}
	}
	if o.LogFormat == "json" {
		x.json = &report.JSONLog{W: line, Program: program, Argv: plan.Args, Verbose: o.Verbose}
	} else {
		x.text = &report.Text{W: line, Program: program, Argv: plan.Args, Deadline: plan.Policy.Deadline,
			Quiet: o.Quiet, Verbose: o.Verbose, Annotated: x.github != nil, Cause: cause}
		if !o.Quiet {
			x.repeats = &report.Repeats{W: line, StdoutTerminal: isTerminal(deps.Stdout)}
		}
		if terminal && !o.Quiet {
			// Straight to the terminal: its line is erased before
			// anything else is written, so it never leaves one open.
			x.countdown = &report.Countdown{W: deps.Stderr, Min: time.Second, Color: report.UseColor(terminal, deps.Env)}
		}
	}
	return x
}

// observe passes an event to every renderer. The countdown sees an
// attempt's end last, so its line starts below the attempt's line, and
// every other event first, so its line is gone before anything else writes
// to the terminal.
func (x *outputs) observe(e runner.Event) {
	x.line.Observe(e)
	_, ended := e.(*runner.AttemptEnded)
	if x.countdown != nil && !ended {
		x.countdown.Observe(e)
	}
	defer func() {
		if x.countdown != nil && ended {
			x.countdown.Observe(e)
		}
	}()
	x.captured.Observe(e)
	if x.github != nil {
		x.github.Observe(e)
	}
	if x.text != nil {
		x.text.Observe(e)
		if e, ok := e.(*runner.AttemptEnded); ok && x.verbose && e.Attempt.Stopped != 0 {
			fmt.Fprintln(x.line, leftoversStopped(e.Attempt.Stopped, e.Attempt.N, x.relay.Received() != 0))
		}
	}
	if x.repeats != nil {
		x.repeats.Observe(e)
	}
	if x.json != nil {
		x.json.Observe(e)
	}
}

// refused says that the command was not run at all, such as when its
// circuit is open: an annotation in CI, else a line for people; the JSON
// log says it in its summary.
func (x *outputs) refused(message string) {
	switch {
	case x.github != nil:
		x.github.Error(message)
	case x.text != nil:
		printError(x.line, errors.New(message))
	}
}

// waiting says that the run waits for circuit key, sending nothing: a
// line each time Await calls (when the wait starts, when what it waits
// for changes, and at least once a minute, so a CI system that kills
// silent steps sees a sign of life), and a countdown on a terminal.
func (x *outputs) waiting(key string, w breaker.Wait) {
	if x.countdown != nil {
		x.countdown.Stop()
	}
	if x.text == nil || x.text.Quiet {
		return
	}
	fmt.Fprintf(x.deps.Stderr, "retry: %s\n", report.OneLine(waitMessage(key, w)))
	if x.countdown == nil {
		return
	}
	switch {
	case w.Ramp:
		x.countdown.Show(fmt.Sprintf("circuit %q closed; resuming", key), w.Next)
	case w.Budget:
		x.countdown.Show(fmt.Sprintf("waiting for the retry budget of %q", key), w.Next)
	case !w.Status.Probing:
		x.countdown.Show(fmt.Sprintf("waiting for circuit %q: its next probe", key), w.Next)
	case !w.Deadline.IsZero():
		x.countdown.Show(fmt.Sprintf("waiting for circuit %q while another run probes it: the deadline", key), w.Deadline)
	}
}

// waitMessage is the line for a run waiting for circuit key.
func waitMessage(key string, w breaker.Wait) string {
	s := w.Status
	if w.Ramp {
		return fmt.Sprintf("circuit %q closed; resuming at %s (in %s), spread out with the other runs that waited for it",
			key, w.Next.Format(time.TimeOnly), report.Duration(time.Until(w.Next).Round(100*time.Millisecond)))
	}
	if w.Budget {
		return fmt.Sprintf("retry budget of %q is spent (%s); waiting for it to refill until %s (in %s), sending nothing",
			key, tokensLeft(s), w.Next.Format(time.TimeOnly), report.Duration(time.Until(w.Next).Round(time.Second)))
	}
	if s.Probing {
		msg := fmt.Sprintf("circuit %q is being probed by another run; waiting for the result, sending nothing", key)
		if !w.Deadline.IsZero() {
			msg += ", until the deadline at " + w.Deadline.Format(time.TimeOnly) + " at most"
		}
		return msg
	}
	return fmt.Sprintf("circuit %q is open (%d of %d attempts failed in the last %s); waiting for its next probe at %s (in %s), sending nothing",
		key, s.Failures, s.Attempts, report.Duration(s.Window), w.Next.Format(time.TimeOnly), report.Duration(time.Until(w.Next).Round(time.Second)))
}

func (x *outputs) stop() {
	if x.countdown != nil {
		x.countdown.Stop()
	}
}

// fellBack says that the --fallback command ran, and how it ended.
func (x *outputs) fellBack(exit exitcodes.Exit, err error) {
	if x.text == nil {
		return
	}
	msg := exit.String()
	if err != nil {
		msg = err.Error()
	}
	fmt.Fprintf(x.line, "retry: ran the --fallback command instead: %s\n", report.OneLine(msg))
}

// finish writes the run's ending to the JSON log, the report file and the
// metrics file.
func (x *outputs) finish(ctx context.Context, o *Options, plan Plan, ending report.Ending) {
	if x.json != nil {
		x.json.Finish(ending)
	}
	warn := func(format string, args ...any) { printWarning(x.line, format, args...) }
	if o.Report != "" {
		rf := &report.ReportFile{Path: o.Report, Version: shortVersion(), Program: x.program, Argv: plan.Args, Verbose: o.Verbose, Breaker: x.breaker}
		if o.Report == "-" {
			rf.W = x.line
		}
		// A cancelled run is reported too: a FIFO's wait for a reader is
		// bounded by itself, not by the signal.
		if err := rf.Write(context.WithoutCancel(ctx), ending); err != nil {
			warn("--report %s: %v", o.Report, err)
		}
	}
	if o.MetricsFile != "" {
		name := o.Name
		if name == "" {
			name = x.program
		}
		mf := &report.MetricsFile{Path: o.MetricsFile, Name: name}
		if o.MetricsFile == "-" {
			mf.W = x.line
		}
		// A cancelled run is counted too: the lock wait is bounded by
		// itself, not by the signal.
		warning, err := mf.Write(context.WithoutCancel(ctx), ending)
		if warning != "" {
			warn("--metrics-file %s: %s", o.MetricsFile, warning)
		}
		if err != nil {
			warn("--metrics-file %s: %v", o.MetricsFile, err)
		}
	}
}
