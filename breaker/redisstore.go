package breaker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
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
	client  RedisClient
	where   string
	timeout time.Duration
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

// RedisClient is what the Redis store needs of a client library: the
// package breaker/redisclient is one, on go-redis. The store is written
// against this rather than the library so that the library, with net and
// crypto/tls, is linked only into the build that speaks Redis
// (cmd/retry-redis), not into every start of retry.
type RedisClient interface {
	// Get returns the value of key; ok is false when there is none.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Eval runs a Lua script (by its digest, loading it when the server
	// does not know it) and returns its reply: int64, string, []any or nil.
	Eval(ctx context.Context, script string, keys []string, args ...any) (any, error)
	// Scan returns one batch of the keys matching pattern after cursor,
	// and the cursor to go on from (0 at the end).
	Scan(ctx context.Context, cursor uint64, pattern string, count int64) (keys []string, next uint64, err error)
	// MGet returns the values of keys, each a string or nil.
	MGet(ctx context.Context, keys ...string) ([]any, error)
	// Close closes the connections.
	Close() error
}

// RedisDialer makes a client of the server named by a redis:// or
// rediss:// URL, connecting lazily, with timeout set on every dial, read
// and write and no retries of its own. Its errors must not contain the
// URL's password.
type RedisDialer func(url string, timeout time.Duration) (RedisClient, error)

// ErrNoRedisClient is returned by OpenStore for redis:// state when its
// Options name no RedisDialer: this build of retry does not speak Redis.
var ErrNoRedisClient = errors.New("this build of retry has no Redis client")

// openRedis opens the Redis store named by spec with a client from dial
// (redisStore above has the key layout).
func openRedis(spec string, timeout time.Duration, dial RedisDialer) (*redisStore, error) {
	if dial == nil {
		return nil, fmt.Errorf("state store %s: %w", redact(spec), ErrNoRedisClient)
	}
	client, err := dial(spec, timeout)
	if err != nil {
		return nil, fmt.Errorf("state store %s: %w", redact(spec), err)
	}
	return &redisStore{client: client, where: redact(spec), timeout: timeout}, nil
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
	data, ok, err := s.client.Get(ctx, recordKey(kind, id))
	switch {
	case err != nil:
		return nil, s.fail("get", err)
	case !ok:
		return nil, nil
	case data == nil:
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
	old, ok, err := s.client.Get(ctx, key)
	switch {
	case err != nil:
		return s.fail("get", err)
	case !ok:
		old = nil
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
		reply, err := s.client.Eval(ctx, casScript, []string{key}, old, data, ms)
		if err != nil {
			return s.fail("update", err)
		}
		res, _ := reply.([]any)
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
	reply, err := s.client.Eval(ctx, claimScript, []string{claimKey(id, gen)}, max(ttl.Milliseconds(), 1))
	if err != nil {
		return false, 0, s.fail("claim", err)
	}
	left, ok := reply.(int64)
	if !ok {
		return false, 0, s.fail("claim", fmt.Errorf("unexpected reply %v", reply))
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
		keys, next, err := s.client.Scan(ctx, cursor, prefix+"*", 500)
		if err != nil {
			return nil, s.fail("scan", err)
		}
		if len(keys) > 0 {
			vals, err := s.client.MGet(ctx, keys...)
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
