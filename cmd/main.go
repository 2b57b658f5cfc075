// Package cmd is retry's command line: it parses flags into Options, checks
// them into a Plan, wires the runner, signals and report packages together,
// and settles how the run ended: its outcome, its exit code and whether
// the --fallback command runs (see settle).
//
// Three things could be called a policy; each has its own word:
//   - the schedule: the attempts, the waits of the fast and slow phases and
//     the deadline, which package policy decides (policy.Policy,
//     Plan.Policy);
//   - a policy: a named set of flag settings chosen with -p/--policy, from
//     [policies.NAME] in .retry.toml or the user's config.toml (see layers);
//   - a profile: a built-in policy, which needs no file (interactive,
//     default, patient; see profiles).
package cmd

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"retry/breaker"
	"retry/exitcodes"
	"retry/internal/steptrace"
	"retry/report"
	"retry/runner"
	"retry/signals"
)

// Deps are the side-effecting things retry uses, so tests can replace them.
type Deps struct {
	Stdin, Stdout, Stderr *os.File
	// Env is the environment as KEY=VALUE pairs.
	Env []string
	// Starter starts attempts; nil means real processes (runner.Exec).
	Starter runner.Starter
	// Signals are the signals to catch and forward; nil means all of
	// signals.Handled().
	Signals []os.Signal
	// PassOn are the signals passed on to the running attempt without
	// stopping the run (signals.PassedOn); nil passes none, as tests
	// want: one test's signal to the test process must not reach another
	// test's attempt.
	PassOn []os.Signal
	// Exits says that the process exits as soon as Main returns, as
	// main.go's does. Main then leaves its signal handling in place
	// rather than take it down, which costs a round trip to the runtime's
	// signal thread per signal; a signal that arrives in between is
	// caught and ignored, as one after the first already is.
	Exits bool
	// Redis makes the clients of redis:// state. The default build has
	// none, so that go-redis, net and crypto/tls are not loaded at every
	// start (docs/benchmarks.md); retry-redis, the build that has one,
	// sets it.
	Redis breaker.RedisDialer
	// HandOff replaces this process with retry-redis, started with the
	// same arguments and environment, for a run that names Redis state in
	// a build without a client. It returns only when it cannot, saying
	// why; nil means no hand-off.
	HandOff func() error
}

// SystemDeps returns the process's own streams and environment, and the
// signals it was not started with ignored (a shell leaves those ignored),
// for a process that exits when Main returns.
func SystemDeps() Deps {
	handOff := redisHandOff() // before os.Environ: it may take a variable out
	return Deps{Stdin: os.Stdin, Stdout: offStdFD(os.Stdout), Stderr: offStdFD(os.Stderr), Env: os.Environ(), Signals: signals.Catchable(), PassOn: signals.PassedOn(), Exits: true, HandOff: handOff}
}

// offStdFD returns f (stdout or stderr) under a descriptor of its own,
// closed on exec. A write to descriptor 1 or 2 whose reader is gone kills
// a Go program with SIGPIPE unless it catches SIGPIPE; on any other
// descriptor it fails with EPIPE (os/signal, "SIGPIPE"). retry must see
// that EPIPE, to stop the attempt and exit with the SIGPIPE status itself,
// and catching SIGPIPE would cost every start a round trip to the
// runtime's signal thread (docs/benchmarks.md). Attempts still get the
// stream as their own descriptor 1 or 2. When it cannot be copied (it is
// closed), f is returned.
func offStdFD(f *os.File) *os.File {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// Main runs retry with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, deps Deps) int {
	steptrace.Mark("main")
	defer steptrace.Mark("done")
	// A run catches its signals first, before it reads its command line,
	// so they are caught before it starts a process or waits; a signal
	// before that takes its default action and ends retry, which has
	// started nothing. Catching them in the background while the command
	// line is read and the first attempt set up was no faster on two cores
	// (docs/benchmarks.md): each signal is a round trip to the runtime's
	// signal thread, and those wake-ups queue behind the work. Anything
	// else (a subcommand, help, a run that may be handed to retry-redis)
	// sets it up when it needs it, not at all for --version or a usage
	// error.
	var relay *signals.Relay
	sigCtx := ctx
	listen := func() (context.Context, *signals.Relay) {
		if relay == nil {
			sigCtx, relay = signals.Listen(ctx, deps.Signals)
			relay.PassOn(deps.PassOn)
			steptrace.Mark("signals")
		}
		return sigCtx, relay
	}
	if catchEarly(args, deps) {
		listen()
	}
	defer func() {
		if relay != nil && !deps.Exits {
			relay.Stop()
		}
	}()
	deps.HandOff = handOffOnce(deps.HandOff, func() syscall.Signal {
		if relay == nil {
			return 0
		}
		return relay.Received()
	})
	code := exitcodes.OK
	args, sources, err := withLayers(args, deps)
	if err != nil {
		printError(deps.Stderr, err)
		return exitcodes.Usage
	}
	steptrace.Mark("layers")
	full := needsTree(args)
	if full {
		// Subcommands take the context that signals cancel from cobra.
		ctx, _ = listen()
	}
	root := newRoot(deps, listen, &code, sources, full)
	steptrace.Mark("tree")
	if !full {
		// A run has no subcommand to find, no help to give and no
		// completion to offer: its flags are parsed here, where cobra's
		// ExecuteC would first build its help and __complete commands
		// for nothing (docs/benchmarks.md).
		if err := root.ParseFlags(args); err != nil {
			printError(deps.Stderr, flagError(err, root.Flags()))
			return exitcodes.Usage
		}
		if err := root.RunE(root, root.Flags().Args()); err != nil {
			return failed(deps, err)
		}
		return code
	}
	root.SetArgs(args)
	root.SetContext(ctx)
	if c, err := root.ExecuteC(); err != nil {
		var ue *UsageError
		if !errors.As(err, &ue) && c != root {
			// A subcommand's own failure, such as a state store that
			// cannot be read: name the subcommand.
			err = fmt.Errorf("%s: %w", strings.TrimPrefix(c.CommandPath(), root.Name()+" "), err)
		}
		return failed(deps, err)
	}
	return code
}

// failed says why retry could not do what it was asked and returns 125,
// except when the reader of its stdout went away (`retry presets | head
// -1`): that ends it quietly with the SIGPIPE status, as it ends any
// program that writes to a pipe (see offStdFD).
func failed(deps Deps, err error) int {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "write" && deps.Stdout != nil && pe.Path == deps.Stdout.Name() && errors.Is(err, syscall.EPIPE) {
		return 128 + int(syscall.SIGPIPE)
	}
	printError(deps.Stderr, err)
	return exitcodes.Usage
}

// catchEarly reports whether Main may start catching signals before it
// reads the command line: for a run (not a subcommand or help) that will
// not be handed to retry-redis, whose exec would lose a signal caught
// before it.
func catchEarly(args []string, deps Deps) bool {
	if needsTree(args) {
		return false
	}
	return deps.HandOff == nil || deps.Redis != nil || !mayNameRedis(args, deps.Env)
}

// mayNameRedis reports whether a run's state store may be Redis, which
// only the --state flag (from the command line, RETRY_OPTS or a policy)
// and RETRY_STATE can name: a word before -- that mentions redis, a
// policy named (its file may), or such a RETRY_OPTS or RETRY_STATE. It
// errs on the side of yes.
func mayNameRedis(args, env []string) bool {
	opts := lookupEnv(env, "RETRY_OPTS")
	if strings.Contains(lookupEnv(env, "RETRY_STATE"), "redis") || strings.Contains(opts, "redis") ||
		mayNamePolicy(args) || mayNamePolicy(strings.Fields(opts)) {
		return true
	}
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.Contains(a, "redis") {
			return true
		}
	}
	return false
}

// subcommand is one of retry's subcommands.
type subcommand struct {
	name string
	// runFlags is set when it takes a run's flags: the words of the -p
	// policy and RETRY_OPTS go before its own, and its flags complete as
	// a run's do.
	runFlags bool
	// build makes the command; nil for cobra's own (completion, help),
	// which cobra adds. sources are where the run's flags came from.
	build func(deps Deps, sources *map[string]string) *cobra.Command
}

// subcommands are retry's subcommands, the one list newRoot builds the
// tree from and a start checks its first words against without building
// it. An array, not a slice, so that checking a word costs no allocation.
func subcommands() [7]subcommand {
	return [...]subcommand{
		{name: "plan", runFlags: true, build: newPlan},
		{name: "presets", build: func(Deps, *map[string]string) *cobra.Command { return newPresets() }},
		{name: "breaker", build: func(deps Deps, _ *map[string]string) *cobra.Command { return newBreakerCommand(deps) }},
		{name: "timing", build: func(deps Deps, _ *map[string]string) *cobra.Command { return newTimingCommand(deps) }},
		{name: "version", build: func(Deps, *map[string]string) *cobra.Command { return newVersion() }},
		{name: "completion"},
		{name: "help"},
	}
}

// subcommandNamed returns the subcommand named name, if there is one.
func subcommandNamed(name string) (subcommand, bool) {
	for _, s := range subcommands() {
		if s.name == name {
			return s, true
		}
	}
	return subcommand{}, false
}

// subcommandNames are the names of retry's subcommands.
func subcommandNames() []string {
	var names []string
	for _, s := range subcommands() {
		names = append(names, s.name)
	}
	return names
}

// withLayers puts the words of the -p policy and RETRY_OPTS before the
// command line's own flags, for a run or a subcommand that takes a run's
// flags (retry plan); other subcommands take their arguments as they are.
func withLayers(args []string, deps Deps) ([]string, map[string]string, error) {
	at := 0
	if len(args) > 0 {
		if s, ok := subcommandNamed(args[0]); ok && s.runFlags {
			at = 1
		} else if ok || args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd {
			return args, nil, nil
		}
	}
	l, err := layers(args[at:], deps)
	if err != nil {
		return nil, nil, err
	}
	out := append(append(append([]string{}, args[:at]...), l.words...), args[at:]...)
	return out, l.sources, nil
}

// needsTree reports whether args may need more of the command tree than
// the root's own flags: a word before any -- that names a subcommand or
// asks for help. A run needs only the root, and building the rest (the
// subcommands' flags, their completions, cobra's completion command)
// took a third of retry's own start.
func needsTree(args []string) bool {
	if len(args) == 0 {
		return true
	}
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case slices.Contains(subcommandNames(), a), a == cobra.ShellCompRequestCmd, a == cobra.ShellCompNoDescRequestCmd, a == "--help",
			len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h'):
			return true
		}
	}
	return false
}

// newRoot builds the command tree; with full unset, only the root and its
// flags, which is all a run needs (see needsTree). listen sets up signal
// handling, once, and returns the context that signals cancel and the
// relay that forwards them.
func newRoot(deps Deps, listen func() (context.Context, *signals.Relay), code *int, sources map[string]string, full bool) *cobra.Command {
	o := defaultOptions()
	var printVersion bool
	root := &cobra.Command{
		Use:   "retry [flags] [--] COMMAND [ARG...]",
		Short: "Run a command and retry it when it fails for a reason that may pass",
		Long: `retry runs COMMAND and, when it fails for a reason that may pass, runs it
again: a few near-immediate retries for blips (the fast phase), then
exponential backoff with full jitter for outages (the slow phase), all inside
one total deadline. Failures that cannot pass (not found, usage errors,
crashes) are not retried.

Flags end at the first word that is not a flag, so flags after the program
belong to it. Put -- before a command named like a retry subcommand.

Durations are Go's (250ms, 1m30s), plain seconds (2.5) or days in front
(1d, 1d12h). -c STRING is split into words without a shell, expanding $NAME,
${NAME} and a leading ~ as a shell would; $(...), backquotes and other
forms only a shell can do are refused: use --shell for them. Another retry
tool's flags (--retries, --times, --max-time, --delay, --until, --while)
and near misses of ours are refused with a pointer to the flag to use.

-n 0 without --deadline or a stop rule is refused; --forever says it on
purpose: no attempt limit and no deadline, each wait still at most
--slow-max. For a command that runs until stopped (a tunnel, a worker),
--reset D starts the schedule over at the fast phase after an attempt that
ran at least D. A --slow-delay (--fast-delay) above its --slow-max
(--fast-max) raises the cap, unless a higher layer set the cap; retry plan
says which.

Output already written stays written: when an attempt that wrote to stdout
fails and another follows, a pipe or file gets both attempts' output, and
retry says so once on stderr (the JSON log and --report count each attempt's
bytes). --stdout buffer passes on only the successful attempt's output.

--timeout auto learns each attempt's limit from the command's own successful
runs, kept in the state store (--state) under a hash of the command line and
the directory, or --timeout-key NAME: max(3 × p99, 1s) once 20 runs are
learned, doubled after each attempt it stopped; auto,D gives D until then.
retry plan shows the limit it would use; retry timing shows p50 and p99.

Exit status: 0 on success; the last attempt's own code when retry gives up;
124 when the deadline or --timeout stopped the last attempt; 125 for retry's
own usage errors; 126 or 127 when the command cannot be run; 128+n when retry
was stopped by signal n. See docs/exit-codes.md.`,
		Example: `  retry -- curl -fsS https://example.com/health
  retry -n 3 --deadline 30s -- make deploy
  retry --timeout 10s --kill-after 2s -- ./flaky-test.sh
  retry --deadline 10m --timeout auto,2m -- git fetch origin
  retry --forever --reset 5m -- ssh -N tunnel`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			if printVersion {
				_, err := fmt.Fprintln(c.OutOrStdout(), versionLine())
				return err
			}
			steptrace.Mark("parse")
			if sources == nil {
				sources = commandLineSources(c.Flags())
			}
			o.sources = sources
			plan, err := o.plan(args, deps.Env)
			if err != nil {
				return o.attributed(err)
			}
			steptrace.Mark("plan")
			// Before the signals are caught: one caught now would be
			// lost with this process.
			handOffEarly(deps, &o, plan)
			ctx, relay := listen()
			*code = run(ctx, deps, relay, &o, plan)
			return nil
		},
	}
	root.SetOut(deps.Stdout)
	root.SetErr(deps.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(err, c.Flags()) })
	root.Flags().SetInterspersed(false)
	root.Flags().SortFlags = false
	o.bind(root.Flags())
	// Our own --version, not cobra's: cobra prints its version through a
	// text/template, and a reachable template keeps every exported method
	// of every type in the binary (go-redis has thousands), which doubled
	// the binary and slowed every start. Help first, as cobra lists them.
	root.InitDefaultHelpFlag()
	root.Flags().BoolVar(&printVersion, "version", false, "version for retry")
	if !full {
		// Nor cobra's completion command, which it would build and
		// throw away on every start.
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	registerCompletions(root, deps)
	for _, s := range subcommands() {
		if s.build == nil {
			continue
		}
		c := s.build(deps, &sources)
		root.AddCommand(c)
		if s.runFlags {
			registerCompletions(c, deps)
		}
	}
	// cobra's completion command only groups one per shell: a shell it
	// does not know (`retry completion zhs > _retry`) would print its help
	// into the file and exit 0.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Args, c.RunE = cobra.ArbitraryArgs, unknownSubcommand
	}
	return root
}

// lockGrace is how long past the deadline a run may wait for a lock of the
// state store to record what it did: the longest queue for a lock
// measured with 200 runs at once on 2 cores (docs/reliability.md).
const lockGrace = 500 * time.Millisecond

// run runs the plan and returns the exit code.
func run(ctx context.Context, deps Deps, relay *signals.Relay, o *Options, plan Plan) int {
	warn := func(format string, args ...any) { printWarning(deps.Stderr, format, args...) }
	if err := runner.AdoptOrphans(); err != nil && o.Verbose {
		warn("cannot adopt orphaned grandchildren: %v", err)
	}
	steptrace.Mark("adopt")
	if plan.Policy.Deadline > 0 {
		// A lock of the state store held by a stuck process is waited
		// for until the deadline and a grace, not --state-timeout past it.
		ctx = breaker.WaitUntil(ctx, time.Now().Add(plan.Policy.Deadline+lockGrace))
	}
	if outer := lookupEnv(deps.Env, runner.EnvAttempt); outer != "" && o.Nested == "warn" {
		warn("running inside another retry (its attempt %s): attempts multiply; use --nested single to try once here", outer)
	}
	guard, err := newGuard(&o.Breaker, plan.Policy, deps, warn)
	if err != nil {
		printError(deps.Stderr, err)
		return exitcodes.Usage
	}
	defer guard.close()
	steptrace.Mark("breaker")

	out := newOutputs(deps, o, plan, relay)
	defer out.stop()
	steptrace.Mark("outputs")
	cfg := runConfig(deps, o, plan, relay, out)
	// One input for the attempts and the --fallback command after them.
	input := runner.NewInput(cfg, len(plan.Fallback) > 0)
	defer input.Close()
	cfg.Input = input

	if o.Breaker.Key != "" {
		out.breaker = &report.Breaker{Key: o.Breaker.Key, WhenOpen: "fail"}
		if o.Breaker.waits(plan.Policy.Deadline, plan.Policy.Attempts) {
			out.breaker.WhenOpen = "wait"
		}
	}
	if guard != nil {
		guard.waiting = func(w breaker.Wait) { out.waiting(o.Breaker.Key, w) }
	}
	var res runner.Result
	e := runEnd{fallback: len(plan.Fallback) > 0}
	if open := guard.first(ctx); open != nil {
		out.refused(guard.openMessage(*open))
		res.Start = time.Now()
		// Nothing ran: a signal now has no attempt to stop, and ends the
		// run only by ruling out the fallback (e.cancelled).
		e.circuitOpen = true
	} else {
		res = attempt(ctx, deps, o, plan, guard, &cfg, warn)
		if out.breaker != nil && guard != nil {
			out.breaker.Waited = guard.waited
		}
		e.circuitOpen = circuitRefused(res.Refusal)
		e.interrupted = relay.Received()
		e.brokenPipe = errors.Is(out.captured.Err, syscall.EPIPE)
		e.outputLost = out.captured.Err != nil && !e.brokenPipe
	}
	e.res, e.cancelled = res, ctx.Err() != nil
	end := settle(e)
	if end.fallback {
		if lost := input.Unreplayable(); lost != nil {
			warn("the --fallback command gets no stdin: %v", lost)
		}
		exit, err := runner.RunOnce(ctx, cfg, plan.Fallback)
		out.fellBack(exit, err)
		e.fellBack, e.interrupted = &exit, relay.Received()
		end = settle(e)
	}
	out.finish(ctx, o, plan, report.Ending{Result: res, Outcome: end.outcome, ExitCode: end.code})
	if deps.Exits && e.interrupted != 0 && end.code == 128+int(e.interrupted) {
		// Stopped by a signal, with everything said and written: end by
		// it, so that a script running retry ends at Ctrl-C as it would
		// without retry (signals.Die). Where it cannot, retry exits 128+n.
		signals.Die(e.interrupted)
	}
	return end.code
}

// attempt runs the plan's attempts, through guard when there is one.
func attempt(ctx context.Context, deps Deps, o *Options, plan Plan, guard *guard, cfg *runner.Config, warn func(string, ...any)) runner.Result {
	if guard != nil {
		cfg.Gate = guard
		if guard.probing() && !guard.wait {
			cfg.Policy.Attempts = 1 // the one probe of a half-open circuit
		}
		if guard.seenFailure() {
			cfg.Policy.Fast = 0 // a repeat failure is an outage, not a blip
		}
	}
	learned := startLearning(ctx, &o.Breaker, deps, guard.sharedStore(), plan.Learn, warn)
	defer learned.close()
	learned.apply(cfg)
	steptrace.Mark("setup")
	res := runner.Run(ctx, *cfg)
	steptrace.Mark("run")
	learned.record(ctx, res)
	return res
}

// runConfig turns the plan into the runner's configuration.
func runConfig(deps Deps, o *Options, plan Plan, relay *signals.Relay, out *outputs) runner.Config {
	seed := o.Seed
	if !o.SeedSet {
		seed = randomSeed()
	}
	stdinMode := plan.StdinMode
	if plan.StdinAuto {
		stdinMode = runner.StdinReplay
		if isTerminal(deps.Stdin) {
			stdinMode = runner.StdinInherit
		}
	}
	var starter runner.Starter = runner.Exec{}
	if deps.Starter != nil {
		starter = deps.Starter
	}
	var newScan func() runner.LineScanner
	if plan.Classifier.NeedsOutput() {
		newScan = func() runner.LineScanner { return plan.Classifier.NewScan() }
	}
	return runner.Config{
		Args:       plan.Args,
		Env:        append(append([]string(nil), deps.Env...), plan.Env...),
		Dir:        plan.Dir,
		Stdin:      deps.Stdin,
		Stdout:     deps.Stdout,
		Stderr:     deps.Stderr,
		StdinMode:  stdinMode,
		StdinMax:   plan.StdinMax,
		StdoutMode: plan.StdoutMode,
		Policy:     plan.Policy,
		NewScan:    newScan,
		ScanStdout: o.MatchStdout,
		// A workflow command or a JSON line glued to the end of the
		// command's stderr is lost to the program reading it: for them,
		// copy stderr to know where its last line ended.
		WatchStderr: out.github != nil || out.json != nil,
		Classify: func(e exitcodes.Exit, s runner.LineScanner) exitcodes.Verdict {
			scan, _ := s.(*exitcodes.Scan)
			return plan.Classifier.Classify(e, scan, time.Now())
		},
		Rand:            rand.New(rand.NewPCG(seed, seed)),
		Timeout:         plan.Timeout,
		Signal:          plan.Signal,
		KillAfter:       plan.KillAfter,
		IdempotencyKey:  idempotencyKey(deps.Env),
		Hook:            plan.Hook,
		HookMustSucceed: o.OnRetryMustSucceed,
		Starter:         notFoundHint{next: starter, program: plan.Args[0]},
		Attach:          func(p runner.Process) func() { return relay.Attach(p) },
		Observe:         out.observe,
	}
}

// idempotencyKey keeps the key from the environment (so an outer retry, or
// the caller, decides it), or makes a new random one for this run. It is
// never derived from --seed: two runs must not share a key.
func idempotencyKey(env []string) string {
	if k := lookupEnv(env, runner.EnvIdempotencyKey); k != "" {
		return k
	}
	return randomText()
}

// randomText returns 26 random characters of the RFC 4648 base32
// alphabet (128 bits), as crypto/rand.Text does.
func randomText() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 26)
	randomBytes(b)
	for i := range b {
		b[i] = alphabet[b[i]%32]
	}
	return string(b)
}

func randomSeed() uint64 {
	var b [8]byte
	randomBytes(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// lookupEnv returns the value of the last name=value in env, or "". A
// start looks up a dozen names in every variable of an environment that
// holds a hundred in CI, so it tests the one byte after the name first and
// builds nothing: comparing with name+"=" made those lookups a quarter of
// the instructions of `retry -- true` (docs/benchmarks.md).
func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if kv := env[i]; len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			return kv[len(name)+1:]
		}
	}
	return ""
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}
