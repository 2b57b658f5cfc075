// Command herd simulates a thundering herd against a retry policy: N real
// client processes, each `retry … -- curl -fsS URL`, against a local HTTP
// server with a scripted blip or outage and a capacity limit. It runs one
// policy after another on the same timeline, each against a fresh server,
// and reports the load each put on the server and how its clients fared:
// a Markdown table on stdout, a CSV and an SVG chart per scenario.
//
// From the module root:
//
//	go build -o /tmp/retry-herd/retry .
//	go run ./scripts/herd -retry /tmp/retry-herd/retry -scenario outage10s
//
// Everything stays on 127.0.0.1. See docs/herd.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := main1(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// main1 is the whole program but for the exit: it returns 0 on success,
// 1 when a run fails and 2 for bad flags.
func main1(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "herd:", err)
		return 2
	}
	if _, err := run(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "herd:", err)
		return 1
	}
	return 0
}

// maxClients bounds -n: more client processes than this swamp a small
// machine and measure its scheduler rather than the policies.
const maxClients = 200

// childTimeoutMargin is how long past a waiting client's own --deadline
// the default -child-timeout lets it run: time to give up and exit.
const childTimeoutMargin = 30 * time.Second

// parseOptions reads the flags. -quick changes the defaults of -n and
// -spread, never a value given explicitly.
func parseOptions(args []string, stderr io.Writer) (Options, error) {
	fs := flag.NewFlagSet("herd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	var scenarios, pols string
	fs.StringVar(&o.Retry, "retry", "", "path of the retry `binary` under test (required)")
	fs.StringVar(&scenarios, "scenario", "outage10s", "scenario to run: "+strings.Join(scenarioNames(), ", ")+", or all")
	fs.BoolVar(&o.Quick, "quick", false, "short timelines (outages of 2s and 4s), 20 clients over 500ms: for tests")
	fs.IntVar(&o.Clients, "n", 100, fmt.Sprintf("client processes per policy, at most %d", maxClients))
	fs.DurationVar(&o.Spread, "spread", time.Second, "window over which the clients start, uniformly")
	fs.DurationVar(&o.Lead, "lead", 0, "when the blip or outage starts (default: a fifth of -spread)")
	fs.Float64Var(&o.Capacity, "capacity", 0, "server capacity in requests per second (default: clients / spread, their first tries' mean rate)")
	fs.Float64Var(&o.Burst, "burst", 0, "token bucket depth (default: 100ms of capacity, at least 1)")
	fs.DurationVar(&o.RetryAfter, "retry-after", 0, "send Retry-After with this `duration` (whole seconds) on 503s for lack of capacity; 0 sends none")
	fs.StringVar(&o.OutDir, "out", "docs/img", "`directory` for the CSV and SVG files")
	fs.StringVar(&o.Tag, "tag", "", "`word` added to the file names, to keep runs with other settings apart")
	fs.StringVar(&pols, "policies", "", "comma-separated policies to run (default all): "+policyNames())
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the launch times and of each client's retry --seed")
	fs.IntVar(&o.Repeat, "repeat", 1, "run each policy this many times with other launch times and seeds, and pool the clients in the table (the CSV and chart show the first run)")
	fs.DurationVar(&o.ChildTimeout, "child-timeout", 2*time.Minute, "deadline of each client process; the harness kills it then (default: at least 30s past the waiting breaker's --deadline)")
	fs.StringVar(&o.Curl, "curl", "/usr/bin/curl", "curl `path`; empty or missing uses the Go client in scripts/herd/client")
	fs.BoolVar(&o.Verbose, "v", false, "print one line per client: launch, exit, attempts, last output")
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.Quick && !set["n"] {
		o.Clients = 20
	}
	if o.Quick && !set["spread"] {
		o.Spread = 500 * time.Millisecond
	}
	if o.Lead == 0 {
		o.Lead = o.Spread / 5
	}
	if o.Retry == "" {
		return Options{}, errors.New("-retry is required: the path of the retry binary (go build -o /tmp/retry-herd/retry .)")
	}
	if o.Clients < 1 || o.Clients > maxClients {
		return Options{}, fmt.Errorf("-n %d: want 1 to %d", o.Clients, maxClients)
	}
	if o.Repeat < 1 || o.Repeat > 20 {
		return Options{}, fmt.Errorf("-repeat %d: want 1 to 20", o.Repeat)
	}
	if o.Spread <= 0 || o.ChildTimeout <= 0 || o.Lead < 0 || o.Capacity < 0 || o.Burst < 0 || o.RetryAfter < 0 {
		return Options{}, errors.New("-spread and -child-timeout must be positive; -lead, -capacity, -burst and -retry-after not negative")
	}
	if o.Capacity == 0 {
		o.Capacity = float64(o.Clients) / o.Spread.Seconds()
	}
	if o.Burst == 0 {
		o.Burst = max(1, o.Capacity*bucketWidth.Seconds())
	}
	o.Scenarios = strings.Split(scenarios, ",")
	if scenarios == "all" {
		o.Scenarios = scenarioNames()
	}
	for _, name := range o.Scenarios {
		sc, err := scenario(name, o.Quick, o.Lead)
		if err != nil {
			return Options{}, err
		}
		// A waiting client's own --deadline must end before the harness
		// kills it, or the run records a kill where retry would have
		// given up by itself (outage60s: a deadline of 120s, the old
		// default). An explicit -child-timeout is the caller's choice.
		if !set["child-timeout"] {
			o.ChildTimeout = max(o.ChildTimeout, patientDeadline(outageLength(sc.Timeline))+childTimeoutMargin)
		}
	}
	if strings.ContainsAny(o.Tag, "/\\ ") {
		return Options{}, fmt.Errorf("-tag %q: want a word, no slash or space", o.Tag)
	}
	if pols != "" {
		o.Policies = strings.Split(pols, ",")
		for _, name := range o.Policies {
			if policyIndex(name, -1) < 0 {
				return Options{}, fmt.Errorf("unknown policy %q; want some of %s", name, policyNames())
			}
		}
	}
	return o, nil
}

// policyNames lists the policies' names, comma-separated.
func policyNames() string {
	var names []string
	for _, p := range policies() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
