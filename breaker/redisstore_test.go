package breaker

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/breaker/redisclient"
)

// requireRedisEnv makes a missing redis-server a failure instead of a skip.
const requireRedisEnv = "RETRY_REQUIRE_REDIS"

// redisServer is a redis-server a test started on loopback.
type redisServer struct {
	addr string
	cmd  *exec.Cmd
}

// startRedis starts a throwaway redis-server on a free loopback port, with
// no persistence, and stops it when the test ends. Without redis-server on
// PATH the test is skipped, unless RETRY_REQUIRE_REDIS is set.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(requireRedisEnv) != "" {
			t.Fatalf("redis-server not found on PATH and %s is set: %v", requireRedisEnv, err)
		}
		t.Skipf("redis-server not found on PATH; install it, or set %s=1 to make this a failure", requireRedisEnv)
	}
	dir := t.TempDir()
	var lastErr error
	for try := range 3 {
		port, err := freePort()
		require.NoError(t, err)
		cmd := exec.Command(bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--dir", dir,
			"--logfile", filepath.Join(dir, fmt.Sprintf("redis-%d.log", try)))
		require.NoError(t, cmd.Start())
		srv := &redisServer{addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: cmd}
		if lastErr = srv.waitReady(10 * time.Second); lastErr == nil {
			t.Cleanup(srv.stop)
			return srv
		}
		srv.stop() // most likely another process took the port first
	}
	t.Fatalf("redis-server did not start: %v", lastErr)
	return nil
}

// freePort asks the kernel for a loopback port nobody is using now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady pings the server until it answers, it exits, or limit passes.
func (s *redisServer) waitReady(limit time.Duration) error {
	exited := make(chan error, 1)
	go func() { _, err := s.cmd.Process.Wait(); exited <- err }()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("redis-server exited (%v) before answering: %w", werr, err)
		case <-deadline.C:
			return fmt.Errorf("redis-server did not answer within %v: %w", limit, err)
		case <-tick.C:
		}
	}
}

// stop kills the server; calling it twice is harmless.
func (s *redisServer) stop() {
	_ = s.cmd.Process.Kill()
	_, _ = s.cmd.Process.Wait()
}

// client returns a plain client of the server, for looking at keys.
func (s *redisServer) client(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// openTestRedis opens a store on srv's database 0; a zero timeout means
// testTimeout.
func openTestRedis(t *testing.T, srv *redisServer, timeout time.Duration) Store {
	t.Helper()
	if timeout == 0 {
		timeout = testTimeout
	}
	s, err := OpenStore("redis://"+srv.addr+"/0", Options{Timeout: timeout, Redis: dialRedis})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestRedisKeysExpireAfterAFewWindows(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	e := newEnv(t, openTestRedis(t, srv, 0), fixedCooldown())
	e.trip(t)
	e.clock.Advance(24 * time.Second)
	require.Equal(t, Probe, e.check(t, 1).Verdict)
	_, err := e.b.TakeRunRetry(e.ctx, "run-1", 3)
	require.NoError(t, err)

	c := srv.client(t)
	ttl := func(key string) time.Duration {
		d, err := c.PTTL(e.ctx, key).Result()
		require.NoError(t, err)
		return d
	}
	// Each TTL was set moments ago: it is at most the configured one, and
	// not much less (the slack is for a loaded machine).
	within := func(key string, want time.Duration) {
		t.Helper()
		got := ttl(key)
		assert.LessOrEqual(t, got, want, key)
		assert.Greater(t, got, want-30*time.Second, key)
	}
	cfg := fixedCooldown()
	assert.Greater(t, cfg.ttl(), 2*cfg.Window, "a few windows")
	within("retry:cb:"+e.key, cfg.ttl())
	within("retry:run:run-1", runTTL)
	within("retry:probe:1:"+e.key, cfg.ProbeTimeout)
}

func TestRedisConcurrentClientsLoseNoUpdates(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	const clients, perClient, limit = 64, 10, 100
	cfg := helperConfig()
	ctx := context.Background()

	var wg sync.WaitGroup
	var mu sync.Mutex
	var recorded, failures, taken int
	errs := make(chan error, clients)
	for range clients {
		// Each client has its own store and connection, as separate
		// processes would.
		b, err := New(openTestRedis(t, srv, 0), cfg, nil, nil)
		require.NoError(t, err)
		wg.Go(func() {
			var r hammerReport
			for i := range perClient {
				o := Sample(1 + i%2)
				if _, err := b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: "shared"}}, o); err != nil {
					errs <- err
					return
				}
				r.Recorded++
				if o == Failure {
					r.Failures++
				}
			}
			for range 3 {
				rb, err := b.TakeRunRetry(ctx, "shared-run", limit)
				if err != nil {
					errs <- err
					return
				}
				if rb.Taken {
					r.Taken++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			recorded, failures, taken = recorded+r.Recorded, failures+r.Failures, taken+r.Taken
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	b, err := New(openTestRedis(t, srv, 0), cfg, nil, nil)
	require.NoError(t, err)
	st, err := b.Status(ctx, "shared")
	require.NoError(t, err)
	assert.Equal(t, clients*perClient, recorded)
	assert.Equal(t, recorded, st.Attempts, "every recorded attempt is counted")
	assert.Equal(t, failures, st.Failures)
	assert.Equal(t, limit, taken, "exactly the run budget was handed out")
}

func TestRedisConcurrentClientsGetOneProbe(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	e := newEnv(t, openTestRedis(t, srv, 0), fixedCooldown())
	e.trip(t)
	e.clock.Advance(24 * time.Second)

	const clients = 64
	verdicts := make(chan Verdict, clients)
	var wg sync.WaitGroup
	for range clients {
		b, err := New(openTestRedis(t, srv, 0), fixedCooldown(), e.clock.Now, edgeRand{})
		require.NoError(t, err)
		wg.Go(func() {
			p, err := b.Check(e.ctx, e.key, 1)
			if err != nil {
				verdicts <- 0
				return
			}
			verdicts <- p.Verdict
		})
	}
	wg.Wait()
	close(verdicts)
	count := map[Verdict]int{}
	for v := range verdicts {
		count[v]++
	}
	assert.Equal(t, map[Verdict]int{Probe: 1, Reject: clients - 1}, count)
}

func TestRedisProbeClaimLapsesWhenTheProberDies(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	cfg := fixedCooldown()
	cfg.ProbeTimeout = 2 * time.Second // timed by the server's clock; the next check must come well within it
	e := newEnv(t, openTestRedis(t, srv, 0), cfg)
	e.trip(t)
	e.clock.Advance(24 * time.Second)
	require.Equal(t, Probe, e.check(t, 1).Verdict, "this prober dies without recording")
	require.Equal(t, Reject, e.check(t, 1).Verdict)

	assert.Eventually(t, func() bool { return e.check(t, 1).Verdict == Probe }, 30*time.Second, 20*time.Millisecond,
		"another run probes once the claim lapses")
}

// assertFailsWithin runs every breaker operation against b and checks that
// each fails, and fails within limit.
func assertFailsWithin(t *testing.T, b *Breaker, limit time.Duration) {
	t.Helper()
	ctx := context.Background()
	ops := map[string]func() error{
		"check": func() error { _, err := b.Check(ctx, "k", 1); return err },
		"record": func() error {
			_, err := b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: "k"}}, Failure)
			return err
		},
		"run":    func() error { _, err := b.TakeRunRetry(ctx, "r", 3); return err },
		"status": func() error { _, err := b.Status(ctx, "k"); return err },
		"list":   func() error { _, err := b.List(ctx); return err },
		"reset":  func() error { return b.Reset(ctx, "k") },
	}
	for name, op := range ops {
		start := time.Now()
		err := op()
		elapsed := time.Since(start)
		assert.Error(t, err, name)
		assert.Less(t, elapsed, limit, "%s took %v", name, elapsed)
	}
}

func TestRedisStoppedMidRunFailsWithinTheTimeout(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	e := newEnv(t, openTestRedis(t, srv, DefaultTimeout), fixedCooldown())
	// Mid-run: the store has been used and holds a connection. (Retried,
	// so that a loaded machine cannot fail this setup within 250ms.)
	require.Eventually(t, func() bool {
		_, err := e.b.Record(e.ctx, Permit{Verdict: Allow, Status: Status{Key: e.key}}, Failure)
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)

	srv.stop()
	assertFailsWithin(t, e.b, 2*time.Second)
}

func TestSilentRedisFailsWithinTheTimeout(t *testing.T) {
	t.Parallel()
	// A listener that accepts connections and never answers, like a
	// server that is wedged or a firewall that swallows packets.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var conns sync.WaitGroup
	var open []net.Conn
	var mu sync.Mutex
	conns.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			conns.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		conns.Wait()
	})

	s, err := OpenStore("redis://"+l.Addr().String()+"/0", Options{Redis: dialRedis})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	b, err := New(s, fixedCooldown(), nil, nil)
	require.NoError(t, err)

	start := time.Now()
	_, err = b.Check(context.Background(), "k", 1)
	require.Error(t, err)
	assert.GreaterOrEqual(t, time.Since(start), DefaultTimeout/2, "it waited for the reply, not for nothing")
	assertFailsWithin(t, b, 2*time.Second)
}

func TestUnreachableRedisFailsFastAndKeepsThePasswordSecret(t *testing.T) {
	t.Parallel()
	port, err := freePort() // nobody listens there now
	require.NoError(t, err)
	s, err := OpenStore(fmt.Sprintf("redis://:hunter2@127.0.0.1:%d/0", port), Options{Redis: dialRedis})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	b, err := New(s, fixedCooldown(), nil, nil)
	require.NoError(t, err)

	_, err = b.Check(context.Background(), "k", 1)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Contains(t, err.Error(), "xxxxx", "the password is redacted")
	assertFailsWithin(t, b, 2*time.Second)
}

func TestOpenStoreRejectsABadRedisURL(t *testing.T) {
	t.Parallel()
	_, err := OpenStore("redis://:pw@127.0.0.1:6379/notadb", Options{Redis: dialRedis})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), ":pw@")
}

func TestRedisStateWithoutAClientSaysThisBuildHasNone(t *testing.T) {
	t.Parallel()
	_, err := OpenStore("redis://:pw@127.0.0.1:6379/0", Options{})
	require.ErrorIs(t, err, ErrNoRedisClient)
	assert.NotContains(t, err.Error(), ":pw@")
	assert.Contains(t, err.Error(), "127.0.0.1:6379", "the message names the store")
}

// dialRedis is the client the retry-redis build uses.
func dialRedis(url string, timeout time.Duration) (RedisClient, error) {
	return redisclient.Dial(url, timeout)
}

func TestARedisURLThatDoesNotParseKeepsItsPasswordSecret(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{
		"redis://:hun%zzter@127.0.0.1:6379/0", // an escape that is not one
		"redis://user:s3cr%t@127.0.0.1:6379/0",
	} {
		_, err := OpenStore(spec, Options{Redis: dialRedis})
		require.Error(t, err, spec)
		assert.NotContains(t, err.Error(), "hun", spec)
		assert.NotContains(t, err.Error(), "s3cr", spec)
		assert.Contains(t, err.Error(), "percent-encoded", "it says what would be right")
	}
}

func TestRedactHidesOnlyARedisPassword(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "redis://:xxxxx@h:6379/0", Redact("redis://:pw@h:6379/0"))
	assert.Equal(t, "/var/lib/a%zz", Redact("/var/lib/a%zz"), "a directory is shown as it is")
	assert.NotContains(t, Redact("rediss://:p%zz@h:1/0"), "p%zz")
}
