package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Options is the herd's configuration, read from flags by parseOptions.
type Options struct {
	// Retry is the path of the retry binary under test.
	Retry string
	// Scenarios are the scenario names to run, in order.
	Scenarios []string
	// Quick selects the short timelines.
	Quick bool
	// Clients is the number of client processes per policy.
	Clients int
	// Spread is the window over which the clients start, uniformly.
	Spread time.Duration
	// Lead is when the blip or outage starts, inside the launch window.
	Lead time.Duration
	// Capacity is the server's limit in requests per second, and Burst
	// the token bucket's depth.
	Capacity, Burst float64
	// RetryAfter, when positive, is sent on 503s for lack of capacity.
	RetryAfter time.Duration
	// OutDir receives the CSV and SVG files.
	OutDir string
	// Tag, when set, is added to the file names: herd-outage10s-TAG.svg.
	Tag string
	// Policies names the policies to run; empty means all.
	Policies []string
	// Seed fixes the launch times and each client's retry --seed.
	Seed uint64
	// Repeat runs each policy this many times, each with its own launch
	// times and seeds, and pools the clients in the table.
	Repeat int
	// ChildTimeout is each client's deadline, after which the harness
	// kills it.
	ChildTimeout time.Duration
	// Curl is the path of curl; empty means use the fallback client.
	Curl string
	// Verbose prints one line per client to stderr.
	Verbose bool
}

// fetchTimeout bounds one request, as curl --max-time: no attempt can hang
// a client until the harness kills it.
const fetchTimeout = "5"

// scenarioResult is one scenario run under every selected policy.
type scenarioResult struct {
	Scenario Scenario
	// Capacity and Burst are the token bucket's, as used.
	Capacity, Burst float64
	// Runs holds one entry per selected policy, in policy order.
	Runs []policyRun
	// Repeat is how many times each policy ran; Runs holds the first
	// run's events and clients and the pooled Summary of all.
	Repeat int
	// End is the time the CSV and the chart cover.
	End time.Duration
	// CSV and SVG are the paths written.
	CSV, SVG string
	// LoadBefore and LoadAfter are the machine's 1-minute load average
	// around the runs, "?" where unknown: a busy machine starts clients late.
	LoadBefore, LoadAfter string
}

// policyRun is one policy's run against a fresh server.
type policyRun struct {
	Policy Policy
	// Available is false when this retry binary lacks a flag the policy
	// needs; then nothing else is set.
	Available bool
	Events    []event
	Clients   []clientResult
	Summary   Summary
}

// env is what every run shares: the tools found and where to put things.
type env struct {
	o       Options
	stderr  io.Writer
	help    string
	fetch   []string
	workDir string
}

// run runs every selected scenario, writes their files and prints their
// tables to stdout. Progress and warnings go to stderr.
func run(ctx context.Context, o Options, stdout, stderr io.Writer) ([]scenarioResult, error) {
	help, err := retryHelp(ctx, o.Retry)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "herd-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	fetch, err := fetchCommand(ctx, o.Curl, work, stderr)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	e := env{o: o, stderr: stderr, help: help, fetch: fetch, workDir: work}
	var results []scenarioResult
	for _, name := range o.Scenarios {
		sc, err := scenario(name, o.Quick, o.Lead)
		if err != nil {
			return results, err
		}
		sc.Tag = o.Tag
		r, err := e.runScenario(ctx, sc)
		if err != nil {
			return results, err
		}
		if err := writeFiles(&r, o.OutDir); err != nil {
			return results, err
		}
		writeMarkdown(stdout, r, o, fetch)
		results = append(results, r)
	}
	return results, nil
}

// retryHelp returns the output of `retry --help`, from which the herd
// learns which policies this build supports.
func retryHelp(ctx context.Context, retry string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, retry, "--help").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("run %s --help: %w", retry, err)
	}
	return string(out), nil
}

// fetchCommand returns the command that makes one request, URL to be
// appended: curl when it is installed, otherwise the fallback client built
// from scripts/herd/client into dir.
func fetchCommand(ctx context.Context, curl, dir string, stderr io.Writer) ([]string, error) {
	if curl != "" {
		if _, err := exec.LookPath(curl); err == nil {
			return []string{curl, "-fsS", "--max-time", fetchTimeout}, nil
		}
		fmt.Fprintf(stderr, "herd: %s not found; building the fallback client\n", curl)
	}
	bin := filepath.Join(dir, "herd-client")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "retry/scripts/herd/client")
	build.Stderr = stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build the fallback client (run from the retry module): %w", err)
	}
	return []string{bin, "-max-time", fetchTimeout + "s"}, nil
}

// launchOffsets returns when each of n clients starts: uniform over spread,
// stratified so that each 1/n of the window holds exactly one start and the
// launch rate itself has no random peaks.
func launchOffsets(n int, spread time.Duration, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 0x4e52))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration((float64(i) + rng.Float64()) / float64(n) * float64(spread))
	}
	return out
}

// runScenario runs every selected policy, one after another, each against
// a fresh server following the scenario's timeline.
func (e env) runScenario(ctx context.Context, sc Scenario) (scenarioResult, error) {
	o := e.o
	r := scenarioResult{Scenario: sc, Capacity: o.Capacity, Burst: o.Burst, Repeat: o.Repeat, LoadBefore: loadAverage()}
	for _, p := range policies() {
		if !selected(o.Policies, p.Name) {
			continue
		}
		if !p.supported(e.help) {
			fmt.Fprintf(e.stderr, "herd: %s: %s: not available in this build\n", sc.Name, p.Name)
			r.Runs = append(r.Runs, policyRun{Policy: p})
			continue
		}
		var first policyRun
		var all []Summary
		for k := range max(o.Repeat, 1) {
			// Repetition k has its own launch times and its clients the
			// next o.Clients seeds, so no two clients share a seed.
			seed := o.Seed + uint64(k*o.Clients)
			fmt.Fprintf(e.stderr, "herd: %s: %s: %d clients (seeds from %d)…\n", sc.Name, p.Name, o.Clients, seed)
			pr, err := e.runPolicy(ctx, sc, p, launchOffsets(o.Clients, o.Spread, seed), seed)
			if err != nil {
				return r, fmt.Errorf("%s: %s: %w", sc.Name, p.Name, err)
			}
			fmt.Fprintf(e.stderr, "herd: %s: %s: %d requests, done in %v\n", sc.Name, p.Name,
				pr.Summary.Requests, pr.Summary.Elapsed.Round(10*time.Millisecond))
			if k == 0 {
				first = pr
			}
			all = append(all, pr.Summary)
		}
		first.Summary = pool(all, runtime.NumCPU())
		r.Runs = append(r.Runs, first)
	}
	if _, end, ok := sc.Timeline.Outage(); ok {
		r.End = end + afterRecovery
	}
	for _, pr := range r.Runs {
		r.End = max(r.End, pr.Summary.Elapsed)
	}
	r.End = r.End.Truncate(time.Second) + time.Second
	r.LoadAfter = loadAverage()
	return r, nil
}

// loadAverage returns the 1-minute load average from /proc/loadavg, or
// "?" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// selected reports whether name is among names, or names is empty.
func selected(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// outageLength is how long the timeline's first down phase lasts; 0 when
// it has none.
func outageLength(tl Timeline) time.Duration {
	start, end, ok := tl.Outage()
	if !ok {
		return 0
	}
	return end - start
}

// runPolicy starts a server on a free loopback port, launches every client
// at its offset, client i with retry --seed seed+i, waits for all of them
// and summarizes.
func (e env) runPolicy(ctx context.Context, sc Scenario, p Policy, offsets []time.Duration, seed uint64) (policyRun, error) {
	o := e.o
	dir, err := os.MkdirTemp(e.workDir, p.Name+"-")
	if err != nil {
		return policyRun{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return policyRun{}, err
	}
	epoch := time.Now()
	srv := newServer(epoch, sc.Timeline, o.Capacity, o.Burst, o.RetryAfter)
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          log.New(e.stderr, "herd: server: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	childEnv := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "LC_ALL=C"}
	results := make([]clientResult, len(offsets))
	var wg sync.WaitGroup
	for i, at := range offsets {
		setup := clientSetup{
			Retry:    o.Retry,
			Fetch:    append(append([]string(nil), e.fetch...), fmt.Sprintf("http://%s/?c=%d", ln.Addr(), i)),
			Seed:     seed + uint64(i),
			StateDir: dir,
			Deadline: patientDeadline(outageLength(sc.Timeline)),
		}
		argv := p.argv(setup)
		wg.Go(func() {
			t := time.NewTimer(at - time.Since(epoch))
			defer t.Stop()
			select {
			case <-ctx.Done():
				results[i] = clientResult{Slot: at, ExitCode: -1, Err: ctx.Err()}
				return
			case <-t.C:
			}
			results[i] = runClient(ctx, epoch, argv, childEnv, o.ChildTimeout)
			results[i].Slot = at
		})
	}
	wg.Wait()

	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(stopCtx); err != nil {
		return policyRun{}, fmt.Errorf("stop the server: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return policyRun{}, fmt.Errorf("serve: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return policyRun{}, err
	}
	for i, c := range results {
		if c.Err != nil {
			return policyRun{}, fmt.Errorf("client %d: %w", i, c.Err)
		}
	}
	if o.Verbose {
		for i, c := range results {
			fmt.Fprintf(e.stderr, "herd: %s: %s: client %d: due %v, launched %v, exited %v with %d after %d attempts: %q\n",
				sc.Name, p.Name, i, c.Slot.Round(time.Millisecond), c.Launched.Round(time.Millisecond),
				c.Exited.Round(time.Millisecond), c.ExitCode, c.Attempts, c.Tail)
		}
	}
	events := srv.Events()
	return policyRun{
		Policy:    p,
		Available: true,
		Events:    events,
		Clients:   results,
		Summary:   summarize(sc.Timeline, events, results, runtime.NumCPU()),
	}, nil
}
