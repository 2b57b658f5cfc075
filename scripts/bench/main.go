// Command bench measures what the retry wrapper costs, side by side with a
// baseline measured in the same run (these machines are shared and noisy,
// so only ratios mean anything):
//
//   - start-up: `retry -- true` against `true`, an empty Go program, the
//     empty Go program followed by `true`, `sh -c true`, a Go program that
//     runs `true` with os/exec, and with -deps a program that only
//     initialises retry's dependencies, `retry --version`, and with -peer
//     other retry tools; median of N interleaved runs each, and peak RSS;
//   - start-up steps (-steps, with a retry built with the steptrace tag):
//     when each step of `retry -- true` ends, measured from the exec;
//   - pass-through: 1 GiB through stdout or stderr to a pipe, with and
//     without 20 output patterns, against the writer writing straight to
//     the same pipe; MB/s and peak RSS;
//   - stdin replay: 1 GiB through stdin, peak RSS;
//   - signal latency: SIGTERM to retry during a 30 s wait until it exits,
//     and SIGTERM to retry during an attempt until the child has it; p50
//     and p99 of N trials.
//
// Usage, from the module root:
//
//	go run ./scripts/bench -retry /path/to/retry [-deps /path/to/depsonly] [-peer 'NAME=ARGV'...] [-runs 30] [-bytes 1073741824] [-trials 100] [-only startup,passthrough,signals]
//	go run ./scripts/bench -steps /path/to/retry-built-with-steptrace[,another] [-runs 1000]
//
// It prints Markdown tables for docs/benchmarks.md. The helper programs it
// needs (an empty Go program, a line writer, a signal-receiving child) are
// this same binary, started with a -role flag.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"retry/exitcodes"
)

func main() {
	role := flag.String("role", "", "internal: run as a helper (empty, exec-true, floor, writer, child)")
	retry := flag.String("retry", "", "the retry binary to measure")
	deps := flag.String("deps", "", "the depsonly program (scripts/bench/depsonly): retry's dependencies, initialised, no work; optional")
	runs := flag.Int("runs", 30, "runs per start-up variant")
	bytes := flag.Int64("bytes", 1<<30, "bytes per pass-through measurement")
	trials := flag.Int("trials", 100, "trials per signal-latency measurement")
	copies := flag.Bool("copy", true, "time fresh copies of the programs, made together in a temporary directory, rather than the files given (see freshCopies)")
	rounds := flag.Int("rounds", 1, "rounds of the pass-through cases, each in a new order with its own direct measurement; the median ratio is reported")
	stream := flag.String("stream", "stdout", "internal: the writer's stream")
	only := flag.String("only", "startup,passthrough,signals", "the measurements to run, comma-separated")
	steps := flag.String("steps", "", "retry binaries built with -tags steptrace, comma-separated: time the steps of `retry -- true` over -runs starts each, and nothing else")
	var peers peerFlags
	flag.Var(&peers, "peer", "another command to time beside `retry -- true`, as NAME=ARGV (ARGV split at spaces), such as 'recur=/path/to/recur true' (repeatable)")
	flag.Parse()

	switch *role {
	case "empty":
		return
	case "exec-true":
		// The least any Go wrapper does: start `true`, wait for it.
		if err := exec.Command("true").Run(); err != nil {
			os.Exit(1)
		}
		return
	case "floor":
		os.Exit(floor())
	case "writer":
		writer(*bytes, *stream)
		return
	case "child":
		child()
		return
	}
	parts := strings.Split(*only, ",")
	for _, p := range parts {
		if !slices.Contains([]string{"startup", "passthrough", "signals"}, p) {
			fmt.Fprintf(os.Stderr, "bench: -only %q: want a comma-separated list of startup, passthrough, signals\n", *only)
			os.Exit(2)
		}
	}
	if *retry == "" && *steps == "" {
		fmt.Fprintln(os.Stderr, "bench: -retry PATH is required")
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	var copyDir string
	if *copies {
		dir, err := os.MkdirTemp("", "bench-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(dir)
		copyDir = dir
	}
	if *steps != "" {
		bins := strings.Split(*steps, ",")
		if copyDir != "" {
			copied, err := freshCopies(copyDir, append(bins, self))
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			bins, self = copied[:len(bins)], copied[len(bins)]
		}
		stepTimes(strings.Join(bins, ","), self, *runs)
		return
	}
	b := &bench{retry: *retry, self: self, deps: *deps, peers: peers, rounds: max(*rounds, 1), copyDir: copyDir}
	fmt.Printf("machine: %d cores, %s, %s/%s\n\n", runtime.NumCPU(), memTotal(), runtime.GOOS, runtime.GOARCH)
	if slices.Contains(parts, "startup") {
		b.startup(*runs)
	}
	if slices.Contains(parts, "passthrough") {
		b.passThrough(*bytes)
	}
	if slices.Contains(parts, "signals") {
		b.signals(*trials)
	}
}

// freshCopies copies each program given by a path (one with a slash in
// it) into dir, at the same moment, and returns the paths to time: the
// copies, and the other names (such as "true") and empty strings as they
// are. How a binary's pages came into the page cache changes how fast it
// starts, by more than the differences measured here: on this machine's
// kernel a binary the Go linker has just written (through a shared
// mapping), or one read back from disk by its first exec, starts 0.1-0.2
// of the baseline slower than the same bytes written with write(2), as
// cp, tar and package managers write them (docs/benchmarks.md). Copied
// together, every program timed is alike.
func freshCopies(dir string, paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if !strings.Contains(p, "/") {
			continue
		}
		dst, err := copyExecutable(dir, p)
		if err != nil {
			return nil, err
		}
		out[i] = dst
	}
	return out, nil
}

// copyExecutable writes an executable copy of src into a new file in dir
// and returns its path.
func copyExecutable(dir, src string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, "*-"+filepath.Base(src))
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(0o755)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return out.Name(), err
}

type bench struct {
	retry, self string
	deps        string // the depsonly program, or empty
	peers       peerFlags
	rounds      int    // of the pass-through cases
	copyDir     string // where fresh copies go; empty with -copy=false
}

// peer is a command timed beside retry's start.
type peer struct {
	name string
	argv []string
}

type peerFlags []peer

func (p *peerFlags) String() string { return fmt.Sprint(len(*p)) }

func (p *peerFlags) Set(s string) error {
	name, argv, ok := strings.Cut(s, "=")
	if !ok || name == "" || len(strings.Fields(argv)) == 0 {
		return fmt.Errorf("want NAME=ARGV, such as 'recur=/path/to/recur true'")
	}
	*p = append(*p, peer{name, strings.Fields(argv)})
	return nil
}

// measured is one run of a command: wall time and peak RSS. The RSS of a
// child started with vfork (as os/exec starts them) is at least this
// harness's own at the time: compare only figures well above it.
type measured struct {
	wall time.Duration
	rss  int64 // KiB
}

// run starts argv with stdin, stdout and stderr as given and waits.
func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) (measured, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	start := time.Now()
	err := c.Run()
	m := measured{wall: time.Since(start)}
	if c.ProcessState != nil {
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.rss = int64(ru.Maxrss) // an int32 on 32-bit systems
		}
	}
	return m, err
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianFloat(f []float64) float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianInt(n []int64) int64 {
	s := slices.Clone(n)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return s[i]
}

func (b *bench) startup(runs int) {
	type variant struct {
		name  string
		argvs [][]string // run one after another, timed together
	}
	variants := []variant{
		{"`true`", [][]string{{"true"}}},
		{"empty Go program", [][]string{{b.self, "-role", "empty"}}},
		{"empty Go program, then `true`", [][]string{{b.self, "-role", "empty"}, {"true"}}},
		{"`sh -c true`", [][]string{{"sh", "-c", "true"}}},
		{"Go program running `true` with os/exec", [][]string{{b.self, "-role", "exec-true"}}},
		{"floor: catch 4 signals, run `true` with a stderr pipe", [][]string{{b.self, "-role", "floor"}}},
	}
	for _, p := range b.peers {
		variants = append(variants, variant{p.name, [][]string{p.argv}})
	}
	if b.deps != "" {
		variants = append(variants,
			variant{"retry's dependencies initialised, no work (`depsonly`)", [][]string{{b.deps}}},
			variant{"`depsonly`, then `true`", [][]string{{b.deps}, {"true"}}})
	}
	variants = append(variants,
		variant{"`retry --version`", [][]string{{b.retry, "--version"}}},
		variant{"`retry -- true`", [][]string{{b.retry, "--", "true"}}},
		variant{"`retry --preset none -- true` (no stderr pipe)", [][]string{{b.retry, "--preset", "none", "--", "true"}}})
	// No peak RSS here: a child started with vfork, as os/exec starts
	// them, reports at least its parent's (this harness's) peak RSS, which
	// is larger than any of these programs'. scripts/rss.sh measures
	// retry's with /usr/bin/time, which forks.
	// A binary run by several variants (retry for --version and -- true,
	// this harness for the empty program and the floor) would start them
	// from caches warmed by the others, some 0.05 of the baseline sooner
	// than the same bytes run once a round: each variant runs a copy of
	// its own, all made together.
	if b.copyDir != "" {
		for vi := range variants {
			programs := make([]string, len(variants[vi].argvs))
			for ai, argv := range variants[vi].argvs {
				programs[ai] = argv[0]
			}
			copied, err := freshCopies(b.copyDir, programs)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			for ai, p := range copied {
				variants[vi].argvs[ai] = append([]string{p}, variants[vi].argvs[ai][1:]...)
			}
		}
	}
	times := make([][]time.Duration, len(variants))
	order := make([]int, len(variants))
	for v := range order {
		order[v] = v
	}
	for i := 0; i < runs+3; i++ { // interleaved, so load hits all alike; 3 warm-ups
		// In a new order each round: the one after a heavy variant starts
		// on a colder machine.
		rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, v := range order {
			vr := variants[v]
			var total time.Duration
			for _, argv := range vr.argvs {
				m, err := run(argv, nil, io.Discard, io.Discard)
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: %v: %v\n", argv, err)
					os.Exit(1)
				}
				total += m.wall
			}
			if i >= 3 {
				times[v] = append(times[v], total)
			}
		}
	}
	base := median(times[2])
	fmt.Printf("## Start-up (median of %d interleaved runs, load %s)\n\n", runs, loadAverage())
	fmt.Println("| command | median | ratio to empty Go + `true` |")
	fmt.Println("|---|---|---|")
	for v, vr := range variants {
		m := median(times[v])
		fmt.Printf("| %s | %s | %.2f |\n", vr.name, m.Round(10*time.Microsecond), float64(m)/float64(base))
	}
	fmt.Println()
}

// allPresets is the --preset value naming every preset.
func allPresets() string {
	var names []string
	for _, p := range exitcodes.Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}

// patterns are 20 output rules such as a user would give.
func patterns() []string {
	words := []string{"connection reset", "timed out", "ECONNREFUSED", "503 Service", "TLS handshake timeout",
		"i/o timeout", "unexpected EOF", "temporarily unavailable", "try again", "rate limit",
		"Too Many Requests", "broken pipe", "no route to host", "deadline exceeded", "server misbehaving",
		"could not resolve", "reset by peer", "Bad Gateway", "Gateway Timeout", "throttl"}
	var args []string
	for _, w := range words {
		args = append(args, "--retry-if", w)
	}
	return args
}

func (b *bench) passThrough(n int64) {
	fmt.Printf("## Pass-through (%d MiB to a pipe read by the harness", n>>20)
	if b.rounds > 1 {
		fmt.Printf("; median of %d rounds, each in a new order, each case's ratio to the direct run of its round, min-max in brackets", b.rounds)
	}
	fmt.Print(")\n\n")
	fmt.Println("| case | MB/s | ratio to direct | retry's peak RSS |")
	fmt.Println("|---|---|---|---|")
	writer := func(stream string) []string {
		return []string{b.self, "-role", "writer", "-bytes", strconv.FormatInt(n, 10), "-stream", stream}
	}
	for _, stream := range []string{"stdout", "stderr"} {
		cases := []struct {
			name string
			argv []string
		}{
			{"direct (the writer alone)", writer(stream)},
			{"retry, no patterns", append([]string{b.retry, "--preset", "none", "--"}, writer(stream)...)},
			{"retry, 20 patterns", append(append(append([]string{b.retry}, patterns()...), "--match-stdout", "--"), writer(stream)...)},
			{"retry, the signatures (any program's default)", append([]string{b.retry, "--"}, writer(stream)...)},
			{"retry, every preset and the signatures", append([]string{b.retry, "--preset", allPresets(), "--"}, writer(stream)...)},
		}
		if stream == "stdout" {
			// A retry may follow the first of 5 attempts, so its stdout
			// pipe is copied to count what it delivers; the last attempt
			// (-n 1) gets our own pipe.
			cases[1].name = "retry, no patterns (copied, counted)"
			cases = slices.Insert(cases, 2, struct {
				name string
				argv []string
			}{"retry -n 1, no patterns (our own pipe)", append([]string{b.retry, "-n", "1", "--preset", "none", "--"}, writer(stream)...)})
		}
		// Every round measures every case, direct included, in a new
		// order: load that comes and goes hits the round's cases alike,
		// and each ratio is to the direct run of its own round.
		rates := make([][]float64, len(cases))
		ratios := make([][]float64, len(cases))
		rss := make([]int64, len(cases))
		order := make([]int, len(cases))
		for i := range order {
			order[i] = i
		}
		for range b.rounds {
			rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			round := make([]float64, len(cases))
			for _, i := range order {
				round[i], rss[i] = b.throughputRSS(cases[i].argv, stream)
			}
			for i := range cases {
				rates[i] = append(rates[i], round[i])
				ratios[i] = append(ratios[i], round[i]/round[0])
			}
		}
		for i, c := range cases {
			rssText, ratioText := "-", fmt.Sprintf("%.2f", medianFloat(ratios[i]))
			if i > 0 {
				rssText = fmt.Sprintf("%.1f MiB", float64(rss[i])/1024)
				if b.rounds > 1 {
					ratioText += fmt.Sprintf(" [%.2f-%.2f]", slices.Min(ratios[i]), slices.Max(ratios[i]))
				}
			}
			fmt.Printf("| %s, %s | %.0f | %s | %s |\n", stream, c.name, medianFloat(rates[i]), ratioText, rssText)
		}
	}
	b.toFile(n, writer("stdout"))
	// 1 GiB through stdin, replayed (recorded as the attempt reads it).
	in := []string{b.retry, "--stdin", "replay", "--", "sh", "-c", "cat > /dev/null"}
	src, _ := os.Open("/dev/zero")
	defer src.Close()
	start := time.Now()
	m, err := run(in, io.LimitReader(src, n), io.Discard, io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: stdin replay:", err)
	}
	fmt.Printf("| stdin, retry --stdin replay (one attempt records it all) | %.0f | - | %.1f MiB |\n\n", float64(n)/1e6/time.Since(start).Seconds(), float64(m.rss)/1024)
}

// toFile measures stdout to a regular file (`retry -- job > out`): the
// writer alone, retry handing over the file (counted by its offset, no
// copy), and --stdout buffer (held, then written once).
func (b *bench) toFile(n int64, writer []string) {
	dir, err := os.MkdirTemp("", "bench-file")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cases := []struct {
		name string
		argv []string
	}{
		{"direct (the writer alone)", writer},
		{"retry, --stdout pass (the file itself, counted by its offset)", append([]string{b.retry, "--preset", "none", "--"}, writer...)},
		{"retry, --stdout buffer (held, then written once)", append([]string{b.retry, "--preset", "none", "--stdout", "buffer", "--"}, writer...)},
	}
	var direct float64
	for i, c := range cases {
		path := filepath.Join(dir, "out")
		f, err := os.Create(path)
		if err != nil {
			panic(err)
		}
		start := time.Now()
		m, err := run(c.argv, nil, f, io.Discard)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: file:", err)
		}
		secs := time.Since(start).Seconds()
		f.Close()
		os.Remove(path)
		rate := float64(n) / 1e6 / secs
		if i == 0 {
			direct = rate
		}
		rss := "-"
		if i > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(m.rss)/1024)
		}
		fmt.Printf("| stdout to a file in %s, %s | %.0f | %.2f | %s |\n", os.TempDir(), c.name, rate, rate/direct, rss)
	}
}

// throughputRSS runs argv, reading the stream it writes through a pipe,
// and returns MB/s and the peak RSS of the process started.
func (b *bench) throughputRSS(argv []string, stream string) (float64, int64) {
	c := exec.Command(argv[0], argv[1:]...)
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	if stream == "stdout" {
		c.Stdout, c.Stderr = w, io.Discard
	} else {
		c.Stdout, c.Stderr = io.Discard, w
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		panic(err)
	}
	w.Close()
	got, _ := io.Copy(io.Discard, r)
	_ = c.Wait()
	secs := time.Since(start).Seconds()
	var rss int64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
	}
	return float64(got) / 1e6 / secs, rss
}

func (b *bench) signals(trials int) {
	wait, attempt := make([]time.Duration, 0, trials), make([]time.Duration, 0, trials)
	for range trials {
		wait = append(wait, b.duringWait())
		attempt = append(attempt, b.duringAttempt())
	}
	fmt.Printf("## Signal latency (%d trials each)\n\n", trials)
	fmt.Println("| SIGTERM to retry | p50 | p99 | max |")
	fmt.Println("|---|---|---|---|")
	for _, row := range []struct {
		name string
		d    []time.Duration
	}{{"during a 30 s wait, until retry has exited", wait}, {"during an attempt, until the child has it", attempt}} {
		fmt.Printf("| %s | %s | %s | %s |\n", row.name, percentile(row.d, 0.5).Round(10*time.Microsecond),
			percentile(row.d, 0.99).Round(10*time.Microsecond), percentile(row.d, 1).Round(10*time.Microsecond))
	}
	fmt.Println()
}

// duringWait starts retry on a failing command with a 30 s wait, sends
// SIGTERM once it waits, and times until it has exited.
func (b *bench) duringWait() time.Duration {
	c := exec.Command(b.retry, "--fast", "0", "--jitter", "none", "--slow-delay", "30s", "--", "false")
	stderr, _ := c.StderrPipe()
	if err := c.Start(); err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "retrying in") {
	}
	sent := time.Now()
	_ = c.Process.Signal(syscall.SIGTERM)
	_ = c.Wait()
	return time.Since(sent)
}

// duringAttempt starts retry on a child that reports when SIGTERM reaches
// it, sends SIGTERM to retry, and returns the time until the child had it.
func (b *bench) duringAttempt() time.Duration {
	c := exec.Command(b.retry, "--", b.self, "-role", "child")
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Scan() // "ready"
	sent := time.Now().UnixNano()
	_ = c.Process.Signal(syscall.SIGTERM)
	sc.Scan()
	got, _ := strconv.ParseInt(sc.Text(), 10, 64)
	_ = c.Wait()
	return time.Duration(got - sent)
}

// writer writes n bytes of 100-byte text lines to a stream, fast.
func writer(n int64, stream string) {
	out := os.Stdout
	if stream == "stderr" {
		out = os.Stderr
	}
	text := " ordinary log line without any pattern\n"
	line := strings.Repeat("x", 100-len(text)) + text // 100 bytes
	block := []byte(strings.Repeat(line, 64<<10/100))
	for n > 0 {
		k := int64(len(block))
		if k > n {
			k = n
		}
		if _, err := out.Write(block[:k]); err != nil {
			return
		}
		n -= k
	}
}

// child says ready, then prints the wall-clock time at which SIGTERM
// arrived and exits.
func child() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	fmt.Println("ready")
	<-ch
	fmt.Println(time.Now().UnixNano())
}

// stepTimes starts `retry -- true` runs times with each of the retry
// binaries given (comma-separated), built with the steptrace tag, and
// prints when each step ended (the median, measured from just before the
// exec) and what it cost (the difference of medians), a column pair per
// binary. The binaries, an empty Go program and one that runs `true`
// through os/exec (self with a role) take turns, so that load hits all
// alike.
func stepTimes(retries, self string, runs int) {
	bins := strings.Split(retries, ",")
	at := make([]map[string][]time.Duration, len(bins))
	faults := make([]map[string][]int64, len(bins)) // minor page faults so far, when the build marks them
	exits := make([][]time.Duration, len(bins))
	var order []string
	var empty, execTrue []time.Duration
	for b := range bins {
		at[b] = map[string][]time.Duration{}
		faults[b] = map[string][]int64{}
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	for i := 0; i < runs+3; i++ {
		e, err1 := run([]string{self, "-role", "empty"}, nil, io.Discard, io.Discard)
		x, err2 := run([]string{self, "-role", "exec-true"}, nil, io.Discard, io.Discard)
		if err := errors.Join(err1, err2); err != nil {
			fail(err)
		}
		if i >= 3 {
			empty, execTrue = append(empty, e.wall), append(execTrue, x.wall)
		}
		for b, bin := range bins {
			c := exec.Command(bin, "--", "true")
			var stderr strings.Builder
			c.Stderr = &stderr
			start := time.Now()
			if err := c.Run(); err != nil {
				fail(fmt.Errorf("%s -- true: %w", bin, err))
			}
			end := time.Since(start)
			if i < 3 {
				continue // warm-ups
			}
			exits[b] = append(exits[b], end)
			for _, l := range strings.Split(stderr.String(), "\n") {
				f := strings.Fields(l)
				if len(f) < 3 || len(f) > 4 || f[0] != "steptrace" {
					continue
				}
				ns, err := strconv.ParseInt(f[2], 10, 64)
				if err != nil {
					continue
				}
				if len(f) == 4 {
					if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
						faults[b][f[1]] = append(faults[b][f[1]], n)
					}
				}
				if _, seen := at[b][f[1]]; !seen && !slices.Contains(order, f[1]) {
					order = append(order, f[1])
				}
				at[b][f[1]] = append(at[b][f[1]], time.Unix(0, ns).Sub(start))
			}
		}
	}
	if len(order) == 0 {
		fail(fmt.Errorf("%s mark no steps: build them with -tags steptrace", retries))
	}
	when := func(name string) time.Duration { // in the first binary that marks it
		for b := range bins {
			if d, ok := at[b][name]; ok {
				return median(d)
			}
		}
		return 0
	}
	sort.SliceStable(order, func(i, j int) bool { return when(order[i]) < when(order[j]) })
	fmt.Printf("## Start-up steps of `retry -- true` (median of %d runs, load %s)\n\n", runs, loadAverage())
	// A build that marks its page faults gets a column of them: the
	// median count at each step's end, and how many the step took.
	counted := make([]bool, len(bins))
	head, rule := "| step ends |", "|---|"
	for b, bin := range bins {
		counted[b] = len(faults[b]) > 0
		head += fmt.Sprintf(" %s: at | cost |", filepath.Base(bin))
		rule += "---|---|"
		if counted[b] {
			head += " page faults |"
			rule += "---|"
		}
	}
	fmt.Println(head)
	fmt.Println(rule)
	prev := make([]time.Duration, len(bins))
	prevFaults := make([]int64, len(bins))
	row := func(name string, t func(b int) (time.Duration, bool)) {
		line := "| " + name + " |"
		for b := range bins {
			m, ok := t(b)
			if !ok {
				line += " - | - |"
				if counted[b] {
					line += " - |"
				}
				continue
			}
			line += fmt.Sprintf(" %s | %s |", m.Round(time.Microsecond), (m - prev[b]).Round(time.Microsecond))
			prev[b] = m
			if counted[b] {
				if n, ok := faults[b][name]; ok {
					f := medianInt(n)
					line += fmt.Sprintf(" %d (+%d) |", f, f-prevFaults[b])
					prevFaults[b] = f
				} else {
					line += " - |"
				}
			}
		}
		fmt.Println(line)
	}
	for _, name := range order {
		row(name, func(b int) (time.Duration, bool) {
			d, ok := at[b][name]
			if !ok {
				return 0, false
			}
			return median(d), true
		})
	}
	row("exit seen by the harness", func(b int) (time.Duration, bool) { return median(exits[b]), true })
	fmt.Printf("\nFor reference, in between: an empty Go program exits at %s, a Go program running `true` through os/exec at %s.\n\n",
		median(empty).Round(time.Microsecond), median(execTrue).Round(time.Microsecond))
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

func memTotal() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return fmt.Sprintf("%.1f GiB memory", float64(kb)/(1<<20))
		}
	}
	return "memory unknown"
}

// floor does the least retry must do before and around its first attempt,
// and nothing else: catch SIGINT, SIGTERM, SIGHUP and SIGQUIT, start
// `true` in its own process group with its stderr through a pipe that a
// goroutine copies to ours, wait for it in another goroutine, and exit
// with its status. What `retry -- true` costs above this is retry's own.
func floor() int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	path, err := exec.LookPath("true")
	if err != nil {
		return 127
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 1
	}
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{os.Stdin.Fd(), os.Stdout.Fd(), w.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	}
	pid, err := syscall.ForkExec(path, []string{"true"}, attr)
	w.Close()
	if err != nil {
		return 126
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(os.Stderr, r)
		close(copied)
	}()
	waited := make(chan syscall.WaitStatus)
	go func() {
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		waited <- ws
	}()
	for {
		select {
		case s := <-sigs:
			_ = syscall.Kill(-pid, s.(syscall.Signal))
		case ws := <-waited:
			<-copied
			return ws.ExitStatus()
		}
	}
}
