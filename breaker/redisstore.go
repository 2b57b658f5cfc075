package breaker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// redisStore keeps each record as a string key with a TTL:
//
//	retry:cb:KEY            a circuit (JSON, the same format as a file)
//	retry:run:RUNID         a run budget
//	retry:probe:GEN:KEY     a probe claim, SET NX PX
//
// Every update is one Lua script that compares the record with what the
// caller read and writes the new one only if it is unchanged (compare and
// swap); the caller computes the new record with the pure state machine and
// tries again on a conflict, within the timeout.
type redisStore struct {
	client  *redis.Client
	where   string
	timeout time.Duration
	cas     *redis.Script
	claim   *redis.Script
}

// keyPrefix starts every key this package writes.
const keyPrefix = "retry:"

// casScript writes ARGV[2] with a TTL of ARGV[3] ms if KEYS[1] still holds
// ARGV[1] (an empty ARGV[1] means "absent"). It returns {1} when it wrote,
// or {0, current} so the caller can try again without another read.
const casScript = `
local cur = redis.call('GET', KEYS[1])
if cur == false then cur = '' end
if cur ~= ARGV[1] then return {0, cur} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return {1}
`

// claimScript takes KEYS[1] with SET NX PX ARGV[1]. It returns -1 when the
// claim is granted, else the milliseconds left on the live claim.
const claimScript = `
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return -1 end
return redis.call('PTTL', KEYS[1])
`

// quietRedis silences go-redis's logger, once per process. go-redis logs
// dial failures to stderr through a process-wide logger with no per-client
// option, and this package never prints: it returns errors and the caller
// decides what to show. This is the package's one piece of package-level
// state, and it exists only to switch another package's output off.
var quietRedis sync.Once

// silentLogger drops go-redis's log lines.
type silentLogger struct{}

func (silentLogger) Printf(context.Context, string, ...any) {}

// openRedis connects lazily to the Redis server named by spec. Every
// timeout go-redis knows is set to timeout, and go-redis does not retry,
// so that an unreachable or silent server costs one timeout per operation.
func openRedis(spec string, timeout time.Duration) (*redisStore, error) {
	quietRedis.Do(func() { redis.SetLogger(silentLogger{}) })
	opts, err := redis.ParseURL(spec)
	if err != nil {
		return nil, fmt.Errorf("state store %s: %w", redact(spec), err)
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
	return &redisStore{
		client:  redis.NewClient(opts),
		where:   redact(spec),
		timeout: timeout,
		cas:     redis.NewScript(casScript),
		claim:   redis.NewScript(claimScript),
	}, nil
}

func recordKey(kind Kind, id string) string { return keyPrefix + string(kind) + ":" + id }

func claimKey(id string, gen uint64) string {
	return keyPrefix + "probe:" + strconv.FormatUint(gen, 10) + ":" + id
}

// fail wraps a Redis error with the server's name.
func (s *redisStore) fail(op string, err error) error {
	return fmt.Errorf("state store %s: %s: %w", s.where, op, err)
}

// Get reads a record.
func (s *redisStore) Get(ctx context.Context, kind Kind, id string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	data, err := s.client.Get(ctx, recordKey(kind, id)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, s.fail("get", err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// Update reads the record, computes the new one with fn and writes it with
// the compare-and-swap script, trying again on a conflict until it wins or
// the timeout ends.
func (s *redisStore) Update(ctx context.Context, kind Kind, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	key := recordKey(kind, id)
	old, err := s.client.Get(ctx, key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		old = nil
	case err != nil:
		return s.fail("get", err)
	case old == nil:
		old = []byte{}
	}
	ms := max(ttl.Milliseconds(), 1)
	for {
		data, err := fn(old)
		if err != nil {
			return err
		}
		if old != nil && string(data) == string(old) {
			return nil
		}
		res, err := s.cas.Run(ctx, s.client, []string{key}, old, data, ms).Slice()
		if err != nil {
			return s.fail("update", err)
		}
		if len(res) > 0 && res[0] == int64(1) {
			return nil
		}
		if len(res) != 2 {
			return s.fail("update", fmt.Errorf("unexpected reply %v", res))
		}
		cur, _ := res[1].(string)
		if cur == "" {
			old = nil
		} else {
			old = []byte(cur)
		}
	}
}

// Claim takes the probe claim with SET NX PX. Its lapse is timed by the
// Redis server's clock, so now is not used.
func (s *redisStore) Claim(ctx context.Context, id string, gen uint64, _ time.Time, ttl time.Duration) (bool, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	left, err := s.claim.Run(ctx, s.client, []string{claimKey(id, gen)}, max(ttl.Milliseconds(), 1)).Int64()
	if err != nil {
		return false, 0, s.fail("claim", err)
	}
	if left == -1 {
		return true, 0, nil
	}
	return false, time.Duration(max(left, 0)) * time.Millisecond, nil
}

// List scans for the keys of kind and reads them in batches.
func (s *redisStore) List(ctx context.Context, kind Kind) ([]Item, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	prefix := recordKey(kind, "")
	var items []Item
	var cursor uint64
	for {
		keys, next, err := s.client.Scan(ctx, cursor, prefix+"*", 500).Result()
		if err != nil {
			return nil, s.fail("scan", err)
		}
		if len(keys) > 0 {
			vals, err := s.client.MGet(ctx, keys...).Result()
			if err != nil {
				return nil, s.fail("mget", err)
			}
			for i, v := range vals {
				if str, ok := v.(string); ok {
					items = append(items, Item{Where: keys[i], Data: []byte(str)})
				}
			}
		}
		if cursor = next; cursor == 0 {
			return items, nil
		}
	}
}

// Close closes the connection pool.
func (s *redisStore) Close() error { return s.client.Close() }
