// Package redisclient is the Redis client of retry's state store: a
// breaker.RedisClient on go-redis. Only the build that speaks Redis
// (cmd/retry-redis) imports it, so that go-redis, net and crypto/tls are
// not linked into, nor initialised at, every start of retry
// (docs/benchmarks.md). It does not import package breaker: its methods
// take and return only standard types.
package redisclient

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Client is a go-redis client with the methods breaker.RedisClient asks
// for.
type Client struct {
	client *redis.Client

	mu      sync.Mutex
	scripts map[string]*redis.Script // by source, each hashed once
}

// quietRedis silences go-redis's logger, once per process. go-redis logs
// dial failures to stderr through a process-wide logger with no per-client
// option, and retry's store never prints: it returns errors and the caller
// decides what to show. This is the package's one piece of package-level
// state, and it exists only to switch another package's output off.
var quietRedis sync.Once

// silentLogger drops go-redis's log lines.
type silentLogger struct{}

func (silentLogger) Printf(context.Context, string, ...any) {}

// Dial makes a client of the server named by url (redis:// or rediss://),
// connecting lazily. Every timeout go-redis knows is set to timeout, and
// go-redis does not retry, so that an unreachable or silent server costs
// one timeout per operation. Errors never contain the URL's password.
func Dial(url string, timeout time.Duration) (*Client, error) {
	quietRedis.Do(func() { redis.SetLogger(silentLogger{}) })
	opts, err := redis.ParseURL(url)
	if err != nil {
		if strings.Contains(err.Error(), url) {
			// url.Parse's message quotes the URL, password and all.
			return nil, errors.New("not a valid URL: want redis://[USER:PASSWORD@]HOST:PORT/DB, with the password's special characters percent-encoded")
		}
		return nil, err
	}
	opts.DialTimeout = timeout
	opts.ReadTimeout = timeout
	opts.WriteTimeout = timeout
	opts.PoolTimeout = timeout
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = -1
	opts.DialerRetries = 1
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &Client{client: redis.NewClient(opts), scripts: map[string]*redis.Script{}}, nil
}

// Get returns the value of key; ok is false when there is none.
func (c *Client) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := c.client.Get(ctx, key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return v, true, nil
}

// Eval runs script by its digest (EVALSHA), loading it when the server
// does not know it yet, and returns the reply.
func (c *Client) Eval(ctx context.Context, script string, keys []string, args ...any) (any, error) {
	c.mu.Lock()
	s := c.scripts[script]
	if s == nil {
		s = redis.NewScript(script)
		c.scripts[script] = s
	}
	c.mu.Unlock()
	return s.Run(ctx, c.client, keys, args...).Result()
}

// Scan returns one batch of the keys matching pattern after cursor.
func (c *Client) Scan(ctx context.Context, cursor uint64, pattern string, count int64) ([]string, uint64, error) {
	return c.client.Scan(ctx, cursor, pattern, count).Result()
}

// MGet returns the values of keys, each a string or nil.
func (c *Client) MGet(ctx context.Context, keys ...string) ([]any, error) {
	return c.client.MGet(ctx, keys...).Result()
}

// Close closes the connection pool.
func (c *Client) Close() error { return c.client.Close() }
