package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/spf13/pflag"

	"retry/breaker"
)

// breakerOptions are the flags of the shared state: the circuit breaker,
// the retry budget per key and the run budget.
type breakerOptions struct {
	Key   string
	State string
	// StateTimeout bounds each operation on the state store; 0 means the
	// store's own default.
	StateTimeout time.Duration
	Window       time.Duration
	Ratio        float64
	Min          int
	MinSpan      time.Duration
	// FirstCooldown and Cooldown are the first and the longest cooldown.
	FirstCooldown time.Duration
	Cooldown      time.Duration
	Tokens        float64
	TokenPct      float64

	// WhenOpen is what a run does when its circuit is open: "wait",
	// "fail", or "auto" (wait when there is a deadline or no attempt
	// limit).
	WhenOpen string

	RunBudget int
	RunID     string
	Fallback  string
}

// waits reports whether a run whose schedule has deadline and attempt
// limit waits out an open circuit rather than failing at once.
func (b *breakerOptions) waits(deadline time.Duration, attempts int) bool {
	switch b.WhenOpen {
	case "wait":
		return true
	case "fail":
		return false
	}
	return deadline > 0 || attempts == 0
}

func defaultBreakerOptions() breakerOptions {
	d := breaker.Default()
	return breakerOptions{
		Window:        d.Window,
		Ratio:         d.Ratio,
		Min:           d.Min,
		MinSpan:       d.MinSpan,
		Cooldown:      d.Cooldown,
		FirstCooldown: d.FirstCooldown,
		Tokens:        d.Tokens,
		TokenPct:      d.TokenRatio,
		WhenOpen:      "auto",
	}
}

// bindState registers --state and --state-timeout, shared by the root and
// breaker commands.
func (b *breakerOptions) bindState(fs *pflag.FlagSet) {
	fs.StringVar(&b.State, "state", "", "where shared state lives: a directory, or redis://HOST:PORT/DB, run by the retry-redis beside retry (default $RETRY_STATE, else $XDG_STATE_HOME/retry)")
	fs.Var(positiveDurationValue{durationValue{&b.StateTimeout, "state-timeout"}}, "state-timeout", "longest wait for one state store operation (a Redis round trip, the directory's lock); past it the run goes on without the breaker, with a warning (default "+breaker.DefaultTimeout.String()+" for Redis, "+breaker.DefaultFileTimeout.String()+" for a directory)")
}

func (b *breakerOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&b.Key, "breaker", "", "share a circuit breaker and retry budget with every run using this KEY (such as registry.example)")
	fs.StringVar(&b.WhenOpen, "when-open", b.WhenOpen, "when the circuit is open: wait (for its probe, within the deadline, sending nothing), fail (exit 75 at once), or auto (wait when --deadline is set or attempts are unlimited)")
	b.bindState(fs)
	b.bindTunables(fs)
	fs.Var(countValue{&b.RunBudget, "run-budget"}, "run-budget", "retries shared by every retry in one CI job or script run (0: no limit)")
	fs.StringVar(&b.RunID, "run-id", "", "the run the --run-budget belongs to (default $RETRY_RUN_ID, else the CI job's identity)")
	fs.StringVar(&b.Fallback, "fallback", "", "run this with /bin/sh -c when retry gives up or the circuit is open; its exit code becomes retry's")
}

// bindTunables registers the breaker's and the retry budget's settings,
// shared by runs and by `retry breaker`, which must count as the runs do.
func (b *breakerOptions) bindTunables(fs *pflag.FlagSet) {
	fs.Var(durationValue{&b.Window, "breaker-window"}, "breaker-window", "how far back the breaker counts attempts")
	fs.Float64Var(&b.Ratio, "breaker-ratio", b.Ratio, "failure share in the window at which the circuit opens, in (0, 1]")
	fs.Var(countValue{&b.Min, "breaker-min"}, "breaker-min", "attempts the window must hold before the circuit can open")
	fs.Var(durationValue{&b.MinSpan, "breaker-min-span"}, "breaker-min-span", "how long the window's failures must span before the circuit can open, so a blip does not (0: any)")
	fs.Var(durationValue{&b.FirstCooldown, "breaker-first-cooldown"}, "breaker-first-cooldown", "how long a circuit that has just opened waits (±20%) before one run probes; each failed probe doubles it")
	fs.Var(durationValue{&b.Cooldown, "breaker-cooldown"}, "breaker-cooldown", "the longest cooldown (±20%) the doubling reaches: after an outage, the first run learns it is over within about this long")
	fs.Float64Var(&b.Tokens, "budget-tokens", b.Tokens, "retry budget per key: failed attempts take a token; no retries at half or less")
	fs.Float64Var(&b.TokenPct, "budget-ratio", b.TokenPct, "tokens a successful attempt gives back")
}

// config checks the breaker flags and returns the breaker's configuration.
func (b *breakerOptions) config() (breaker.Config, error) {
	c := breaker.Default()
	switch {
	// Written so that NaN, which every comparison fails, is refused too.
	case !(b.Ratio > 0 && b.Ratio <= 1):
		return c, &UsageError{Flag: "--breaker-ratio", Value: fmt.Sprint(b.Ratio), Want: "want a share above 0 and at most 1, such as 0.5"}
	case b.Min < 1:
		return c, &UsageError{Flag: "--breaker-min", Value: fmt.Sprint(b.Min), Want: "want 1 or more"}
	case b.Window <= 0:
		return c, &UsageError{Flag: "--breaker-window", Value: b.Window.String(), Want: "want a duration above 0, such as 60s"}
	case b.MinSpan >= b.Window:
		return c, &UsageError{Flag: "--breaker-min-span", Value: b.MinSpan.String(), Want: "want a duration shorter than --breaker-window " + b.Window.String()}
	case b.Cooldown <= 0:
		return c, &UsageError{Flag: "--breaker-cooldown", Value: b.Cooldown.String(), Want: "want a duration above 0, such as 10s"}
	case b.FirstCooldown <= 0:
		return c, &UsageError{Flag: "--breaker-first-cooldown", Value: b.FirstCooldown.String(), Want: "want a duration above 0, such as 1s"}
	case !(b.Tokens > 0) || math.IsInf(b.Tokens, 1):
		return c, &UsageError{Flag: "--budget-tokens", Value: fmt.Sprint(b.Tokens), Want: "want a finite number above 0, such as 10"}
	case !(b.TokenPct >= 0) || math.IsInf(b.TokenPct, 1):
		return c, &UsageError{Flag: "--budget-ratio", Value: fmt.Sprint(b.TokenPct), Want: "want a finite number, 0 or more, such as 0.1"}
	case b.WhenOpen != "auto" && b.WhenOpen != "wait" && b.WhenOpen != "fail":
		return c, &UsageError{Flag: "--when-open", Value: b.WhenOpen, Want: "want auto, wait or fail"}
	}
	c.Window, c.Ratio, c.Min, c.MinSpan, c.Cooldown, c.Tokens, c.TokenRatio = b.Window, b.Ratio, b.Min, b.MinSpan, b.Cooldown, b.Tokens, b.TokenPct
	c.FirstCooldown = b.FirstCooldown
	if err := c.Validate(); err != nil {
		return c, &UsageError{Flag: "--breaker", Err: err}
	}
	return c, nil
}

// openStore opens the state store named by --state, RETRY_STATE or the
// default directory (only if it exists, with existing: for commands that
// only look or reset), each operation bounded by timeout (0: the store's
// default). Redis state in a build without a Redis client is handed to
// retry-redis when deps allow (the process is replaced), and is an error
// saying what to install when they do not.
func openStore(spec string, timeout time.Duration, deps Deps, existing bool) (breaker.Store, error) {
	spec = stateSpec(spec, deps.Env)
	store, err := breaker.OpenStore(spec, breaker.Options{
		Getenv:   func(k string) string { return lookupEnv(deps.Env, k) },
		HomeDir:  homeDir,
		Timeout:  timeout,
		Redis:    deps.Redis,
		Existing: existing,
	})
	if errors.Is(err, breaker.ErrNoRedisClient) && deps.HandOff != nil {
		if herr := deps.HandOff(); herr != nil {
			err = fmt.Errorf("%w; %w", err, herr)
		}
	}
	return store, err
}

// stateSpec is the state store a run names: --state, else RETRY_STATE,
// else "" for the default directory.
func stateSpec(spec string, env []string) string {
	if spec == "" {
		spec = lookupEnv(env, "RETRY_STATE")
	}
	return spec
}

// homeDir is the home directory the default state directory goes under:
// $HOME, which must exist. retry creates its state directory there, never
// the home itself: a system user's $HOME is often /nonexistent, a
// directory that must not be created, and root could create it.
func homeDir() (string, error) {
	home, err := os.UserHomeDir()
	if err == nil {
		var fi fs.FileInfo
		switch fi, err = os.Stat(home); {
		case errors.Is(err, fs.ErrNotExist):
			err = fmt.Errorf("the home directory %s does not exist", home)
		case err == nil && !fi.IsDir():
			err = fmt.Errorf("the home directory %s is not a directory", home)
		}
	}
	if err != nil {
		return "", fmt.Errorf("%w; name one with --state or RETRY_STATE", err)
	}
	return home, nil
}

// stateError is the error of a state store that could not be opened:
// named by the --state given, else by RETRY_STATE, else as the default
// (whose error says what to set).
// openExisting opens the state store of a subcommand that only looks or
// resets. One that does not exist is not created: that is said (a
// mistyped --state is noticed rather than taken for an empty store), and
// the command answers as for an empty store, from an empty temporary
// directory that close removes.
func openExisting(spec string, timeout time.Duration, deps Deps) (store breaker.Store, close func(), err error) {
	store, err = openStore(spec, timeout, deps, true)
	if err == nil {
		return store, func() { store.Close() }, nil
	}
	if !errors.Is(err, breaker.ErrNoState) {
		return nil, nil, stateError(spec, deps.Env, err)
	}
	printError(deps.Stderr, stateError(spec, deps.Env, err))
	empty, err := os.MkdirTemp("", "retry-empty-state-")
	if err != nil {
		return nil, nil, fmt.Errorf("a stand-in for the state store: %w", err)
	}
	if store, err = openStore(empty, timeout, Deps{}, true); err != nil {
		_ = os.RemoveAll(empty)
		return nil, nil, err
	}
	return store, func() { store.Close(); _ = os.RemoveAll(empty) }, nil
}

// unopened is the error of a state store a run could not open, for the
// warning it gives before it goes on without it: one that --state or
// RETRY_STATE named is named so, with what would be right (the default
// directory's errors say that themselves).
func unopened(spec string, env []string, err error) error {
	if stateSpec(spec, env) == "" {
		return err
	}
	return fmt.Errorf("%w; point it at a directory retry may create and write (mode 0700, yours)", stateError(spec, env, err))
}

func stateError(spec string, env []string, err error) error {
	switch fromEnv := lookupEnv(env, "RETRY_STATE"); {
	case spec != "":
		return &UsageError{Flag: "--state", Value: breaker.Redact(spec), Err: err}
	case fromEnv != "":
		return &UsageError{Flag: "RETRY_STATE", Value: breaker.Redact(fromEnv), Err: err}
	}
	return fmt.Errorf("state store: %w", err)
}
