package breaker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kind names one of the kinds of record a store keeps.
type Kind string

const (
	// Circuit records hold one circuit key's breaker and retry budget.
	Circuit Kind = "cb"
	// Run records hold one run id's run budget.
	Run Kind = "run"
	// Timing records hold one command's learned durations (package
	// timing, --timeout auto).
	Timing Kind = "time"
)

// Item is one record as List finds it.
type Item struct {
	// Where names the record for messages: a file path or a Redis key.
	Where string
	// Data is the record as stored; nil when Err is set.
	Data []byte
	// Err is why the record could not be read (a symlink, say).
	Err error
}

// Store persists records and nothing else: it never interprets them. Every
// method is bounded by the store's timeout and returns an error rather than
// wait longer; a caller treats any error as "no breaker this run".
type Store interface {
	// Get returns the record of kind and id, or nil when there is none.
	Get(ctx context.Context, kind Kind, id string) ([]byte, error)
	// Update replaces the record of kind and id with fn's result,
	// atomically with respect to every other process using the store.
	// fn gets nil when there is no record and may be called more than
	// once; when it returns its input unchanged nothing is written. A
	// record nobody updates for ttl may be removed.
	Update(ctx context.Context, kind Kind, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error
	// Claim takes the probe claim of circuit id for generation gen, for
	// ttl. At most one claim per circuit and generation is granted until
	// it lapses; when it is refused, wait is the time left on the live
	// claim. now is the caller's clock; a store that keeps time itself
	// (Redis) may use its own.
	Claim(ctx context.Context, id string, gen uint64, now time.Time, ttl time.Duration) (granted bool, wait time.Duration, err error)
	// List returns every record of kind, in no particular order.
	List(ctx context.Context, kind Kind) ([]Item, error)
	// Close releases the store's resources.
	Close() error
}

// Options configures OpenStore.
type Options struct {
	// Timeout bounds every store operation: a lock not taken or a reply
	// not read within it is an error. Zero means DefaultTimeout for Redis
	// and DefaultFileTimeout for a state directory.
	Timeout time.Duration
	// Getenv and HomeDir find the default state directory when the spec
	// is empty; nil Getenv reads no variables.
	Getenv  func(string) string
	HomeDir func() (string, error)
	// Redis makes the client for redis:// and rediss:// state; nil means
	// this build speaks no Redis, and OpenStore returns ErrNoRedisClient.
	Redis RedisDialer
	// Existing opens a state directory only if it exists, for commands
	// that only look (a mistyped --state must not be created and shown
	// as an empty, healthy store): OpenStore then returns an error that
	// wraps ErrNoState.
	Existing bool
}

// ErrNoState is the error of OpenStore with Options.Existing for a state
// directory that does not exist.
var ErrNoState = errors.New("does not exist: no run has kept state there")

// DefaultTimeout bounds each Redis operation unless Options say otherwise:
// a round trip on a healthy network takes a millisecond, so a server that
// has not answered in 250ms is in trouble, and waiting longer only slows
// every run down.
const DefaultTimeout = 250 * time.Millisecond

// DefaultFileTimeout bounds each operation on a state directory unless
// Options say otherwise. A local lock is held for a fraction of a
// millisecond (docs/benchmarks.md), and nothing is wrong when it is busy:
// 200 runs started at once on 2 cores queue for it, each holder waiting
// for a CPU, and the last one had it after about a second in our tests.
// Only a process stopped or stuck while holding it can make a run wait
// this long, and then that run goes on without the breaker.
const DefaultFileTimeout = 5 * time.Second

// OpenStore opens the store named by spec: "redis://[USER:PASS@]HOST:PORT/DB"
// (or "rediss://" for TLS) for Redis, anything else for a state directory,
// created 0700 if missing. An empty spec means DefaultSpec.
func OpenStore(spec string, opts Options) (Store, error) {
	given := spec != ""
	if spec == "" {
		var err error
		if spec, err = DefaultSpec(opts.Getenv, opts.HomeDir); err != nil {
			return nil, err
		}
	}
	if scheme, _, ok := strings.Cut(spec, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		switch scheme {
		case "redis", "rediss":
			return openRedis(spec, cmp.Or(max(opts.Timeout, 0), DefaultTimeout), opts.Redis)
		}
		return nil, fmt.Errorf("state store %q: unknown scheme %q; want a directory or redis://HOST:PORT/DB", redact(spec), scheme)
	}
	if opts.Existing {
		if _, err := os.Lstat(spec); errors.Is(err, fs.ErrNotExist) {
			if given {
				return nil, ErrNoState // the caller names it
			}
			return nil, fmt.Errorf("state directory %s %w", spec, ErrNoState)
		}
	}
	return openFiles(spec, cmp.Or(max(opts.Timeout, 0), DefaultFileTimeout))
}

type waitUntilKey struct{}

// WaitUntil returns ctx with a bound on how long an operation of a file
// store waits for a lock that another process holds: until t at most, and
// never longer than the store's own timeout. A run with a deadline gives
// its deadline (and a grace), so that a stuck holder of a lock cannot keep
// it that timeout past its deadline.
func WaitUntil(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, waitUntilKey{}, t)
}

// lockWait is how long to wait for a lock: timeout, cut to what ctx's
// WaitUntil leaves.
func lockWait(ctx context.Context, timeout time.Duration) time.Duration {
	if until, ok := ctx.Value(waitUntilKey{}).(time.Time); ok {
		return max(min(timeout, time.Until(until)), 0)
	}
	return timeout
}

// IsRedis reports whether spec names Redis state: redis:// or rediss://.
func IsRedis(spec string) bool {
	scheme, _, ok := strings.Cut(spec, "://")
	return ok && (scheme == "redis" || scheme == "rediss")
}

// DefaultSpec returns the default state directory: $XDG_STATE_HOME/retry
// when that variable holds an absolute path, else ~/.local/state/retry.
func DefaultSpec(getenv func(string) string, homeDir func() (string, error)) (string, error) {
	if getenv != nil {
		if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
			return filepath.Join(dir, "retry"), nil
		}
	}
	if homeDir == nil {
		return "", errors.New("no state directory: XDG_STATE_HOME is not set and the home directory is unknown")
	}
	home, err := homeDir()
	if err != nil {
		return "", fmt.Errorf("no state directory: %w", err)
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("no state directory: home %q is not absolute", home)
	}
	return filepath.Join(home, ".local", "state", "retry"), nil
}

// Redact is spec as a message may show it: a Redis URL with its password
// hidden; anything else (a directory) as it is.
func Redact(spec string) string {
	if !IsRedis(spec) {
		return spec
	}
	return redact(spec)
}

// redact hides a password in a Redis URL, for messages.
func redact(spec string) string {
	u, err := url.Parse(spec)
	if err != nil {
		return "redis://…"
	}
	return u.Redacted()
}
