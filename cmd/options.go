package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"retry/exitcodes"
	"retry/policy"
	"retry/report"
	"retry/runner"
)

// Options holds the root command's flags as the user gave them.
type Options struct {
	Attempts int
	// Forever is --forever: no attempt limit, and no deadline needed. It
	// sets Attempts to 0; a later --attempts clears it.
	Forever   bool
	Deadline  time.Duration
	Timeout   time.Duration
	Signal    string
	KillAfter time.Duration

	// TimeoutAuto is --timeout auto[,FALLBACK]: Timeout is the fallback.
	TimeoutAuto bool
	TimeoutKey  string

	Fast      int
	FastDelay time.Duration
	FastMax   time.Duration
	SlowDelay time.Duration
	SlowMax   time.Duration
	Reset     time.Duration
	Jitter    string
	Seed      uint64
	SeedSet   bool

	Quiet   bool
	Verbose bool

	Command            string
	Shell              bool
	Stdin              string
	StdinMax           int64
	Stdout             string
	DropFailedOutput   bool
	OnRetry            string
	OnRetryMustSucceed bool
	Nested             string
	Cwd                string
	Env                []string

	RetryOnExit   string
	StopOnExit    string
	RetryIf       []string
	StopIf        []string
	RetryAfter    []string
	RetryAfterMax time.Duration
	MatchStdout   bool
	Preset        string

	Breaker breakerOptions

	LogFormat   string
	Annotations string
	Report      string
	MetricsFile string
	Name        string

	// Policy is the -p policy; it is applied before parsing (see layers).
	Policy string

	// sources names the layer that set each flag (see layers); nil when
	// the options did not come through them.
	sources map[string]string
}

// DefaultStdinMax is --stdin-max's default: more than most piped inputs
// (a dump, an archive, a manifest), and a small share of a CI runner's
// disk (a GitHub-hosted Linux runner has 14 GB of SSD) even when every step
// pipes that much at once. An input that is larger is better given as a
// file: it is rewound for each attempt and never copied.
const DefaultStdinMax = 1 << 30

// defaultOptions returns the built-in defaults, the same as policy.Default.
func defaultOptions() Options {
	p := policy.Default()
	return Options{
		Attempts:      p.Attempts,
		Signal:        "TERM",
		KillAfter:     5 * time.Second,
		Fast:          p.Fast,
		FastDelay:     p.FastDelay,
		FastMax:       p.FastMax,
		SlowDelay:     p.SlowDelay,
		SlowMax:       p.SlowMax,
		Jitter:        p.Jitter.String(),
		Stdin:         "auto",
		StdinMax:      DefaultStdinMax,
		Stdout:        "pass",
		Nested:        "warn",
		RetryAfterMax: p.HintMax,
		Preset:        "auto",
		Breaker:       defaultBreakerOptions(),
		LogFormat:     "text",
		Annotations:   "auto",
	}
}

// bind registers the policy and run flags on fs, writing into o.
func (o *Options) bind(fs *pflag.FlagSet) {
	fs.VarP(attemptsValue{countValue{&o.Attempts, "attempts"}, &o.Forever}, "attempts", "n", "total attempts, the first included; 0 means no count limit (then --deadline, a stop rule or --forever must say how it ends)")
	fs.Var(foreverValue{&o.Forever, &o.Attempts}, "forever", "retry without end, on purpose: no attempt limit and no deadline needed (each wait is still at most --slow-max); a later --attempts replaces it")
	fs.Lookup("forever").NoOptDefVal = "true"
	fs.VarP(durationValue{&o.Deadline, "deadline"}, "deadline", "d", "total time for all attempts and waits (default none)")
	fs.VarP(timeoutValue{&o.Timeout, &o.TimeoutAuto}, "timeout", "t", "time limit of one attempt (default none), or auto: max(3 × p99, 1s) of the command's successful runs once 20 are learned (auto,10m: 10m until then); cut to the time left before the deadline")
	fs.StringVar(&o.TimeoutKey, "timeout-key", "", "learn --timeout auto under this name rather than the command line's hash")
	fs.StringVarP(&o.Signal, "signal", "s", o.Signal, "signal sent to the attempt's process group when its time is up")
	fs.VarP(durationValue{&o.KillAfter, "kill-after"}, "kill-after", "k", "grace period after --signal before SIGKILL")

	fs.Var(countValue{&o.Fast, "fast"}, "fast", "retries in the fast phase, for blips")
	fs.Var(durationValue{&o.FastDelay, "fast-delay"}, "fast-delay", "base wait of the fast phase")
	fs.Var(durationValue{&o.FastMax, "fast-max"}, "fast-max", "longest wait of the fast phase")
	fs.Var(durationValue{&o.SlowDelay, "slow-delay"}, "slow-delay", "base wait of the slow phase, for outages")
	fs.Var(durationValue{&o.SlowMax, "slow-max"}, "slow-max", "longest wait of the slow phase")
	fs.Var(durationValue{&o.Reset, "reset"}, "reset", "an attempt that ran at least this long before failing starts the schedule over at the fast phase (the attempt count goes on); for long-running commands (default none)")
	fs.StringVar(&o.Jitter, "jitter", o.Jitter, "how waits are drawn: full (uniform in [0, bound]), equal ([bound/2, bound]) or none")
	fs.Var(seedValue{&o.Seed, &o.SeedSet}, "seed", "seed for every random choice, to make waits repeatable")

	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "print only the give-up line")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "print each attempt with the full command and its duration")

	fs.StringVarP(&o.Command, "command", "c", "", "the command as one string, split into words like a shell would (quotes, escapes) but run without a shell")
	fs.BoolVar(&o.Shell, "shell", false, "run the -c string with $SHELL -c (/bin/sh when $SHELL is unset, nologin or false), for pipes and other shell syntax")
	fs.StringVar(&o.Stdin, "stdin", o.Stdin, "input of each attempt: auto (inherit a terminal, else replay), replay (every attempt reads the whole input), inherit, or null")
	fs.Var(sizeValue{&o.StdinMax, "stdin-max"}, "stdin-max", "record at most this much of a piped stdin for replay (0: no limit); past it the attempt reading still gets all of it, but no retry is made")
	fs.StringVar(&o.Stdout, "stdout", o.Stdout, "output of each attempt: pass (straight through) or buffer (only the successful attempt's output reaches stdout)")
	fs.BoolVar(&o.DropFailedOutput, "drop-failed-output", false, "with --stdout buffer, drop failed attempts' output instead of copying it to stderr")
	fs.StringVar(&o.OnRetry, "on-retry", "", "run this with /bin/sh -c before each retry, after the wait")
	fs.BoolVar(&o.OnRetryMustSucceed, "on-retry-must-succeed", false, "stop retrying when the --on-retry command fails")
	fs.StringVar(&o.Nested, "nested", o.Nested, "inside another retry: warn (attempts multiply), single (make one attempt) or allow")
	fs.StringVar(&o.Cwd, "cwd", "", "run the command in this directory")
	fs.Var(stringsValue{&o.Env}, "env", "set KEY=VALUE in the command's environment (repeatable)")

	fs.StringVar(&o.RetryOnExit, "retry-on-exit", "", "retry only these endings: codes and ranges, signal names, timeout (1,75,100-110,SIGKILL,timeout)")
	fs.StringVar(&o.StopOnExit, "stop-on-exit", "", "never retry these endings (same syntax as --retry-on-exit)")
	fs.Var(stringsValue{&o.RetryIf}, "retry-if", "retry when a line of stderr matches this regular expression (repeatable)")
	fs.Var(stringsValue{&o.StopIf}, "stop-if", "stop when a line of stderr matches this regular expression (repeatable)")
	fs.Var(stringsValue{&o.RetryAfter}, "retry-after", "a regular expression whose first group, in an output line, is the wait asked for: seconds, a duration or an HTTP date (repeatable)")
	fs.Var(durationValue{&o.RetryAfterMax, "retry-after-max"}, "retry-after-max", "longest wait a command may ask for; a longer one gives up at once (0: only the deadline limits it)")
	fs.BoolVar(&o.MatchStdout, "match-stdout", false, "scan stdout too for --retry-if, --stop-if, --retry-after and presets")
	fs.StringVar(&o.Preset, "preset", o.Preset, "rules for common tools: auto (chosen from the program name, with the cross-tool signatures), none (no presets, no signatures, stderr untouched), or names (retry presets lists them)")

	o.Breaker.bind(fs)

	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, "how retry logs on stderr: text (lines for people) or json (one object per event)")
	fs.StringVar(&o.Annotations, "annotations", o.Annotations, "CI annotations: auto (GitHub Actions workflow commands when GITHUB_ACTIONS=true) or off")
	fs.StringVar(&o.Report, "report", "", "write a JSON report of the run to this file when it ends, - for stderr (see docs/report-schema.md)")
	fs.StringVar(&o.MetricsFile, "metrics-file", "", "keep Prometheus metrics for node_exporter's textfile collector in this file (- for stderr: this run's alone)")
	fs.StringVar(&o.Name, "name", "", "the name label of --metrics-file (default: the program name)")
	fs.StringVarP(&o.Policy, "policy", "p", "", "use the named policy from .retry.toml or ~/.config/retry/config.toml, or a built-in profile: interactive, default, patient")
}

// Plan is everything the run needs, checked and converted.
type Plan struct {
	Args      []string
	Policy    policy.Policy
	Timeout   time.Duration
	Signal    syscall.Signal
	KillAfter time.Duration
	// Classifier judges each attempt.
	Classifier *exitcodes.Classifier
	// Fallback runs when retry gives up or the circuit is open.
	Fallback []string
	// Learn is --timeout auto; nil without it.
	Learn *learnPlan
	// Notes say where the plan differs from what a flag says on its own,
	// such as a cap raised to meet its delay; retry plan prints them.
	Notes []string
	ioPlan
}

// plan checks the options and the command and builds the Plan. Every error
// is a *UsageError naming the flag.
func (o *Options) plan(args []string, env []string) (Plan, error) {
	args, err := o.commandLine(args, env)
	if err != nil {
		return Plan{}, err
	}
	io, err := o.io()
	if err != nil {
		return Plan{}, err
	}
	sig, err := exitcodes.ParseSignal(o.Signal)
	if err != nil {
		return Plan{}, &UsageError{Flag: "--signal", Value: o.Signal, Err: err}
	}
	jitter, err := policy.ParseJitter(o.Jitter)
	if err != nil {
		return Plan{}, &UsageError{Flag: "--jitter", Value: o.Jitter, Want: "want full, equal or none"}
	}
	if o.Quiet && o.Verbose {
		// From two layers, the nearer wins (RETRY_OPTS=-q, then -v on the
		// command line to look closer); from one, it is a mistake.
		switch q, v := o.layer("quiet"), o.layer("verbose"); {
		case q > v:
			o.Verbose = false
		case v > q:
			o.Quiet = false
		default:
			return Plan{}, &UsageError{Flag: "--quiet", Want: "cannot be used with --verbose (both from " + o.from("quiet") + "); pick one"}
		}
	}
	if o.Attempts == 0 && !o.Forever && o.Deadline == 0 && o.StopOnExit == "" && len(o.StopIf) == 0 {
		return Plan{}, &UsageError{Flag: "--attempts", Value: "0", Want: "no attempt limit and no deadline would retry without end; give --deadline too (such as --deadline 10m) or a stop rule, or say --forever if you mean it"}
	}
	var notes []string
	for _, pair := range []struct {
		delayFlag, maxFlag string
		delay, max         *time.Duration
	}{
		{"fast-delay", "fast-max", &o.FastDelay, &o.FastMax},
		{"slow-delay", "slow-max", &o.SlowDelay, &o.SlowMax},
	} {
		note, err := o.capAtLeastDelay(pair.delayFlag, pair.maxFlag, pair.delay, pair.max)
		if err != nil {
			return Plan{}, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	classifier, err := o.classifier(args)
	if err != nil {
		return Plan{}, err
	}
	if _, err := o.Breaker.config(); err != nil {
		return Plan{}, err
	}
	if o.LogFormat != "text" && o.LogFormat != "json" {
		return Plan{}, &UsageError{Flag: "--log-format", Value: o.LogFormat, Want: "want text or json"}
	}
	if o.Annotations != "auto" && o.Annotations != "off" {
		return Plan{}, &UsageError{Flag: "--annotations", Value: o.Annotations, Want: "want auto or off"}
	}
	var fallback []string
	if o.Breaker.Fallback != "" {
		fallback = []string{"/bin/sh", "-c", o.Breaker.Fallback}
	}
	if o.OnRetryMustSucceed && o.OnRetry == "" {
		return Plan{}, &UsageError{Flag: "--on-retry-must-succeed", Want: "needs --on-retry CMD"}
	}
	if o.Cwd != "" {
		// A directory the user may not reach or enter would fail every
		// attempt's start, blamed on the program ("pwd": permission
		// denied, exit 126).
		fi, err := os.Stat(o.Cwd)
		switch {
		case errors.Is(err, fs.ErrPermission) || err == nil && fi.IsDir() && errors.Is(unix.Access(o.Cwd, unix.X_OK), unix.EACCES):
			return Plan{}, &UsageError{Flag: "--cwd", Value: o.Cwd, Want: "this user may not enter it; give a directory it may enter"}
		case err != nil || !fi.IsDir():
			return Plan{}, &UsageError{Flag: "--cwd", Value: o.Cwd, Want: "not a directory; give an existing directory"}
		}
	}
	for _, kv := range o.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return Plan{}, &UsageError{Flag: "--env", Value: kv, Want: "want KEY=VALUE"}
		}
	}
	attempts := o.Attempts
	switch o.Nested {
	case "warn", "allow":
	case "single":
		if lookupEnv(env, runner.EnvAttempt) != "" {
			attempts = 1
		}
	default:
		return Plan{}, &UsageError{Flag: "--nested", Value: o.Nested, Want: "want warn, single or allow"}
	}
	var hook []string
	if o.OnRetry != "" {
		hook = []string{"/bin/sh", "-c", o.OnRetry}
	}
	io.Hook, io.Dir, io.Env = hook, o.Cwd, o.Env
	learn, err := o.learning(args)
	if err != nil {
		return Plan{}, err
	}
	return Plan{
		ioPlan: io,
		Args:   args,
		Policy: policy.Policy{
			Attempts:  attempts,
			Deadline:  o.Deadline,
			Fast:      o.Fast,
			FastDelay: o.FastDelay,
			FastMax:   o.FastMax,
			SlowDelay: o.SlowDelay,
			SlowMax:   o.SlowMax,
			Jitter:    jitter,
			HintMax:   o.RetryAfterMax,
			Reset:     o.Reset,
			Forever:   attempts == 0 && o.Deadline == 0 && o.Forever,
		},
		Timeout:    o.Timeout,
		Signal:     sig,
		KillAfter:  o.KillAfter,
		Classifier: classifier,
		Fallback:   fallback,
		Learn:      learn,
		Notes:      notes,
	}, nil
}

// capAtLeastDelay settles a delay above its cap (--slow-delay 60s with the
// default --slow-max 30s), which would otherwise cut every wait to the cap
// without a word. The layer that set each decides (see layers): a cap set
// by a lower layer than the delay, or left at its default, is raised to
// the delay, as recur does; a cap set by a higher layer wins, and the
// delay is cut to it; both set by one layer contradict each other and are
// an error. The note says what was done, for retry plan.
func (o *Options) capAtLeastDelay(delayFlag, maxFlag string, delay, cap *time.Duration) (string, error) {
	if *delay <= *cap {
		return "", nil
	}
	dl, cl := o.layer(delayFlag), o.layer(maxFlag)
	switch {
	case cl > dl:
		note := fmt.Sprintf("--%s %s (%s) is above --%s %s (%s): %s takes precedence, so the waits start at %s",
			delayFlag, report.Duration(*delay), o.from(delayFlag), maxFlag, report.Duration(*cap), o.from(maxFlag), o.from(maxFlag), report.Duration(*cap))
		*delay = *cap
		return note, nil
	case cl == dl && cl > 0:
		return "", &UsageError{Flag: "--" + delayFlag,
			Want: fmt.Sprintf("%s is above --%s %s, both from %s; raise --%s or lower --%s", report.Duration(*delay), maxFlag, report.Duration(*cap), o.from(maxFlag), maxFlag, delayFlag)}
	}
	note := fmt.Sprintf("--%s raised from %s (%s) to %s, the --%s", maxFlag, report.Duration(*cap), o.from(maxFlag), report.Duration(*delay), delayFlag)
	*cap = *delay
	return note, nil
}

// from names the layer that set flag, for messages.
func (o *Options) from(flag string) string {
	switch src := o.sources[flag]; src {
	case "":
		return "the default"
	case "command line":
		return "the command line"
	default:
		return src
	}
}

// attributed names where a refused value came from when that was not the
// command line: "RETRY_OPTS: --stdout: ..." or "policy ci (.retry.toml):
// --retry-if: ...", so that the user looks in the right place.
func (o *Options) attributed(err error) error {
	ue, ok := err.(*UsageError)
	if !ok || !strings.HasPrefix(ue.Flag, "--") {
		return err
	}
	switch src := o.sources[strings.TrimPrefix(ue.Flag, "--")]; src {
	case "", "command line":
		return err
	default:
		named := *ue
		named.Flag = src + ": " + ue.Flag
		return &named
	}
}

// layer ranks the layer that set flag: 3 the command line, 2 RETRY_OPTS,
// 1 a policy, 0 the built-in default.
func (o *Options) layer(flag string) int {
	switch src := o.sources[flag]; {
	case src == "command line":
		return 3
	case src == "RETRY_OPTS":
		return 2
	case strings.HasPrefix(src, "policy"):
		return 1
	}
	return 0
}

// commandLine returns the argv to run: the words after the flags, or the
// -c string split into words (or given to a shell with --shell).
func (o *Options) commandLine(args, env []string) ([]string, error) {
	if o.Shell && o.Command == "" {
		return nil, &UsageError{Flag: "--shell", Want: "needs -c STRING, as in retry --shell -c 'make test | tee log'"}
	}
	if o.Command == "" {
		if len(args) == 0 || args[0] == "" {
			return nil, &UsageError{Flag: "COMMAND", Want: "missing; give the command to run after the flags, as in retry -n 3 -- curl -fsS URL"}
		}
		return args, nil
	}
	if len(args) > 0 {
		return nil, &UsageError{Flag: "-c", Value: o.Command, Want: "give the command either as -c STRING or after the flags, not both"}
	}
	if o.Shell {
		shell := lookupEnv(env, "SHELL")
		if !runsCommands(shell) {
			shell = "/bin/sh"
		}
		return []string{shell, "-c", o.Command}, nil
	}
	return splitCommand(o.Command, append(append([]string(nil), env...), o.Env...))
}

// runsCommands reports whether shell, a $SHELL, can run a -c string: not
// empty, and not the login shell of an account that may not log in
// (nologin, false), which systemd puts in $SHELL for a service with User=
// a system account: every attempt would fail with "This account is
// currently not available" and be retried.
func runsCommands(shell string) bool {
	switch filepath.Base(shell) {
	case ".", "/", "nologin", "false":
		return false
	}
	return shell != ""
}

// splitCommand splits a -c string into argv (see splitWords), expanding
// $NAME, ${NAME} and a leading ~ from env, the command's environment, as
// a shell would (see expandable).
func splitCommand(s string, env []string) ([]string, error) {
	home := lookupEnv(env, "HOME")
	rewritten, err := expandable(s, home != "")
	if err != nil {
		return nil, err
	}
	words, err := splitWords("-c", rewritten, "add --shell to run the string with a shell", func(name string) string { return lookupEnv(env, name) })
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			ue.Value = s // name the string as given, not as rewritten
		}
		return nil, err
	}
	if len(words) == 0 || words[0] == "" {
		return nil, &UsageError{Flag: "-c", Value: s, Want: "no command in the string"}
	}
	return words, nil
}

// ioPlan is the part of a Plan about the child's streams, directory,
// environment and hook.
type ioPlan struct {
	// StdinAuto is set for --stdin auto, resolved when the run starts:
	// inherit a terminal, else replay.
	StdinAuto  bool
	StdinMode  runner.StdinMode
	StdinMax   int64
	StdoutMode runner.StdoutMode
	DropFailed bool
	Hook       []string
	Dir        string
	Env        []string
}

func (o *Options) io() (ioPlan, error) {
	var p ioPlan
	switch o.Stdin {
	case "auto":
		p.StdinAuto = true
	case "replay":
		p.StdinMode = runner.StdinReplay
	case "inherit":
		p.StdinMode = runner.StdinInherit
	case "null":
		p.StdinMode = runner.StdinNull
	default:
		return p, &UsageError{Flag: "--stdin", Value: o.Stdin, Want: "want auto, replay, inherit or null"}
	}
	switch o.Stdout {
	case "pass":
		p.StdoutMode = runner.StdoutPass
	case "buffer":
		p.StdoutMode = runner.StdoutBuffer
	default:
		return p, &UsageError{Flag: "--stdout", Value: o.Stdout, Want: "want pass or buffer"}
	}
	if o.DropFailedOutput && p.StdoutMode != runner.StdoutBuffer {
		return p, &UsageError{Flag: "--drop-failed-output", Want: "only applies with --stdout buffer"}
	}
	p.DropFailed = o.DropFailedOutput
	p.StdinMax = o.StdinMax
	return p, nil
}

// classifier builds the classifier from the rule flags and the presets
// chosen for argv.
func (o *Options) classifier(argv []string) (*exitcodes.Classifier, error) {
	var cfg exitcodes.Config
	var err error
	if cfg.RetryOnExit, err = exitcodes.ParseExitList(o.RetryOnExit); o.RetryOnExit != "" && err != nil {
		return nil, &UsageError{Flag: "--retry-on-exit", Value: o.RetryOnExit, Err: err}
	}
	if cfg.StopOnExit, err = exitcodes.ParseExitList(o.StopOnExit); o.StopOnExit != "" && err != nil {
		return nil, &UsageError{Flag: "--stop-on-exit", Value: o.StopOnExit, Err: err}
	}
	for _, f := range []struct {
		flag     string
		patterns []string
		into     *[]*regexp.Regexp
	}{
		{"--retry-if", o.RetryIf, &cfg.RetryIf},
		{"--stop-if", o.StopIf, &cfg.StopIf},
		{"--retry-after", o.RetryAfter, &cfg.RetryAfter},
	} {
		if slices.Contains(f.patterns, "") {
			// Most likely an unset variable (--retry-if "$PATTERN"): an
			// empty pattern matches every line, and turns --retry-if
			// into an allow-list that a failure without output misses.
			return nil, &UsageError{Flag: f.flag, Value: "", Want: "an empty pattern matches every line; give a pattern, or leave the flag out"}
		}
		if *f.into, err = exitcodes.CompilePatterns(f.patterns); err != nil {
			return nil, patternError(f.flag, err)
		}
	}
	if cfg.Presets, err = exitcodes.SelectPresets(o.Preset, argv); err != nil {
		return nil, &UsageError{Flag: "--preset", Value: o.Preset, Err: err}
	}
	// The signatures read every program's stderr; --preset none turns them
	// off with the presets, and then nothing needs a pipe on stderr.
	cfg.Signatures = exitcodes.SignaturesFor(o.Preset)
	c, err := exitcodes.New(cfg)
	if err != nil {
		return nil, patternError("--retry-after", err)
	}
	return c, nil
}

// patternError names the flag and the pattern that did not compile.
func patternError(flag string, err error) error {
	var pe *exitcodes.PatternError
	if errors.As(err, &pe) {
		return &UsageError{Flag: flag, Value: pe.Pattern, Err: pe.Err}
	}
	return &UsageError{Flag: flag, Err: err}
}
