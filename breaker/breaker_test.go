package breaker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a virtual clock the tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *fakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// storeCase opens one kind of store for the behaviour tests.
type storeCase struct {
	name string
	open func(t *testing.T) Store
}

// testStores lists every store the behaviour tests run against.
func testStores() []storeCase {
	return []storeCase{
		{"file", func(t *testing.T) Store { s, _ := openTestFiles(t, 0); return s }},
		{"redis", func(t *testing.T) Store { return openTestRedis(t, startRedis(t), 0) }},
	}
}

// env is one behaviour test's breaker, clock and key.
type env struct {
	b     *Breaker
	store Store
	clock *fakeClock
	key   string
	ctx   context.Context
}

func newEnv(t *testing.T, s Store, cfg Config) *env {
	t.Helper()
	clock := newClock()
	b, err := New(s, cfg, clock.Now, edgeRand{})
	require.NoError(t, err)
	return &env{b: b, store: s, clock: clock, key: t.Name(), ctx: context.Background()}
}

// check asks for attempt and requires no error.
func (e *env) check(t *testing.T, attempt int) Permit {
	t.Helper()
	p, err := e.b.Check(e.ctx, e.key, attempt)
	require.NoError(t, err)
	return p
}

// run checks attempt 1 and, if it may run, records o.
func (e *env) run(t *testing.T, o Sample) Permit {
	t.Helper()
	p := e.check(t, 1)
	if p.Verdict == Allow || p.Verdict == Probe {
		_, err := e.b.Record(e.ctx, p, o)
		require.NoError(t, err)
	}
	return p
}

// trip opens the circuit with Min failures spread over MinSpan, as an
// outage would spread them.
func (e *env) trip(t *testing.T) {
	t.Helper()
	for i := range e.b.cfg.Min {
		if i > 0 {
			e.clock.Advance(e.b.cfg.MinSpan / time.Duration(e.b.cfg.Min-1))
		}
		require.Equal(t, Allow, e.run(t, Failure).Verdict)
	}
	require.Equal(t, Open, e.check(t, 1).Status.State)
}

// behaviours are run against every store through the Store interface.
var behaviours = []struct {
	name string
	cfg  func(*Config)
	test func(t *testing.T, e *env)
}{
	{"a fresh key allows first attempts and retries", nil, func(t *testing.T, e *env) {
		p := e.check(t, 1)
		assert.Equal(t, Allow, p.Verdict)
		assert.Equal(t, Status{Key: e.key, State: Closed, Window: time.Minute, Tokens: 10, MaxTokens: 10, RetryAllowed: true}, p.Status)
		assert.Equal(t, Allow, e.check(t, 2).Verdict)
	}},
	{"failures at the ratio open the circuit and say why", nil, func(t *testing.T, e *env) {
		for range 5 {
			e.run(t, Success)
		}
		for range 4 {
			e.clock.Advance(time.Second) // an outage goes on failing
			e.run(t, Failure)
		}
		assert.Equal(t, Allow, e.check(t, 1).Verdict, "4 of 9 failed is below the ratio")
		e.clock.Advance(time.Second)
		e.run(t, Failure)

		p := e.check(t, 1)
		assert.Equal(t, Reject, p.Verdict)
		assert.Equal(t, Open, p.Status.State)
		assert.Equal(t, [2]int{5, 10}, [2]int{p.Status.Failures, p.Status.Attempts})
		assert.Equal(t, time.Minute, p.Status.Window)
		assert.Equal(t, 24*time.Second, p.Status.NextProbe, "the cooldown, drawn at its lowest")
		e.clock.Advance(20 * time.Second)
		assert.Equal(t, 4*time.Second, e.check(t, 1).Status.NextProbe)
	}},
	{"failures of one moment, a blip, do not open the circuit", nil, func(t *testing.T, e *env) {
		for range 20 {
			e.run(t, Failure)
		}
		e.clock.Advance(2 * time.Second)
		for range 5 {
			e.run(t, Failure)
		}
		p := e.check(t, 1)
		assert.Equal(t, Allow, p.Verdict, "25 failures within 3s are a blip, not an outage")
		assert.Equal(t, 25, p.Status.Failures)
		e.clock.Advance(time.Second)
		e.run(t, Failure)
		assert.Equal(t, Reject, e.check(t, 1).Verdict, "failing on past the minimum span is an outage")
	}},
	{"exactly one run probes a half-open circuit", nil, func(t *testing.T, e *env) {
		e.trip(t)
		e.clock.Advance(24 * time.Second)

		first := e.check(t, 1)
		assert.Equal(t, Probe, first.Verdict)
		assert.Equal(t, HalfOpen, first.Status.State)
		for range 3 {
			other := e.check(t, 1)
			assert.Equal(t, Reject, other.Verdict, "others act as if open while the probe runs")
			assert.Equal(t, HalfOpen, other.Status.State)
			assert.Greater(t, other.Status.NextProbe, time.Duration(0))
			assert.LessOrEqual(t, other.Status.NextProbe, e.b.cfg.ProbeTimeout, "at most the probe claim's life")
		}
	}},
	{"a successful probe closes the circuit and clears the window", nil, func(t *testing.T, e *env) {
		e.trip(t)
		e.clock.Advance(24 * time.Second)
		probe := e.check(t, 1)
		require.Equal(t, Probe, probe.Verdict)

		st, err := e.b.Record(e.ctx, probe, Success)
		require.NoError(t, err)
		assert.Equal(t, Closed, st.State)
		assert.Equal(t, [2]int{0, 0}, [2]int{st.Failures, st.Attempts})
		assert.Equal(t, Allow, e.check(t, 1).Verdict)
	}},
	{"a failed probe reopens the circuit for a new cooldown", nil, func(t *testing.T, e *env) {
		e.trip(t)
		e.clock.Advance(24 * time.Second)
		probe := e.check(t, 1)
		require.Equal(t, Probe, probe.Verdict)

		st, err := e.b.Record(e.ctx, probe, Failure)
		require.NoError(t, err)
		assert.Equal(t, Open, st.State)
		assert.Equal(t, 24*time.Second, st.NextProbe)
		assert.Equal(t, Reject, e.check(t, 1).Verdict)

		e.clock.Advance(24 * time.Second)
		assert.Equal(t, Probe, e.check(t, 1).Verdict, "the next half-open period has its own probe")
		assert.Equal(t, Reject, e.check(t, 1).Verdict)
	}},
	{"failed probes double the cooldown up to the maximum; a successful one starts over", func(c *Config) {
		c.FirstCooldown, c.Cooldown = time.Second, 10*time.Second
	}, func(t *testing.T, e *env) {
		e.trip(t)
		var cooldowns []time.Duration
		var failed []int
		for range 5 {
			st, err := e.b.Status(e.ctx, e.key)
			require.NoError(t, err)
			cooldowns, failed = append(cooldowns, st.Cooldown), append(failed, st.FailedProbes)
			e.clock.Advance(st.NextProbe)
			probe := e.check(t, 1)
			require.Equal(t, Probe, probe.Verdict)
			_, err = e.b.Record(e.ctx, probe, Failure)
			require.NoError(t, err)
		}
		// edgeRand draws the low edge of the ±20% jitter.
		assert.Equal(t, []time.Duration{800e6, 1600e6, 3200e6, 6400e6, 8000e6}, cooldowns)
		assert.Equal(t, []int{0, 1, 2, 3, 4}, failed)

		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		e.clock.Advance(st.NextProbe)
		probe := e.check(t, 1)
		_, err = e.b.Record(e.ctx, probe, Success)
		require.NoError(t, err)
		e.clock.Advance(2 * e.b.cfg.Window)
		e.trip(t)
		st, err = e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.Equal(t, 800*time.Millisecond, st.Cooldown, "a new outage starts with the first cooldown")
	}},
	{"the retry budget refuses retries at half the tokens", func(c *Config) { c.Min = 1000 }, func(t *testing.T, e *env) {
		for range 4 {
			e.run(t, Failure)
		}
		p := e.check(t, 2)
		assert.Equal(t, Allow, p.Verdict)
		assert.InDelta(t, 5, p.Status.Tokens, 1e-9, "6 left, and the allowed retry took one")
		_, err := e.b.Record(e.ctx, p, Failure)
		require.NoError(t, err)

		p = e.check(t, 2)
		assert.Equal(t, NoBudget, p.Verdict)
		assert.False(t, p.Status.RetryAllowed)
		assert.Equal(t, Allow, e.check(t, 1).Verdict, "first attempts are always allowed")
		e.run(t, Success)
		assert.Equal(t, Allow, e.check(t, 2).Verdict, "a success refills a tenth of a token")
	}},
	{"retries checked at once take the budget's tokens one by one", func(c *Config) { c.Min = 1000 }, func(t *testing.T, e *env) {
		for range 3 {
			e.run(t, Failure) // 7 tokens of 10 left: two retries above half
		}
		// Many runs check a retry before any of them is recorded: before
		// retries took their token when allowed, every one of them saw
		// the budget unspent and went through (41 within 0.7 s in a herd
		// whose budget had just refilled).
		var allowed []Permit
		for range 10 {
			if p := e.check(t, 2); p.Verdict == Allow {
				allowed = append(allowed, p)
			}
		}
		assert.Len(t, allowed, 2, "only the tokens above half let retries through")
		_, err := e.b.Record(e.ctx, allowed[0], Success)
		require.NoError(t, err)
		assert.Equal(t, Allow, e.check(t, 2).Verdict, "a retry that succeeded gives its token back")
		_, err = e.b.Record(e.ctx, allowed[1], Failure)
		require.NoError(t, err)
		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.InDelta(t, 5.1, st.Tokens, 1e-9, "a failed retry spent its token once, not twice")
	}},
	{"the run budget is shared and exact", nil, func(t *testing.T, e *env) {
		other, err := New(e.store, fixedCooldown(), e.clock.Now, nil)
		require.NoError(t, err)
		var taken []bool
		for i := range 5 {
			b := e.b
			if i%2 == 1 {
				b = other // another invocation in the same run
			}
			rb, err := b.TakeRunRetry(e.ctx, e.key, 3)
			require.NoError(t, err)
			taken = append(taken, rb.Taken)
			assert.Equal(t, 3, rb.Limit)
		}
		assert.Equal(t, []bool{true, true, true, false, false}, taken)
		rb, err := e.b.TakeRunRetry(e.ctx, e.key+"-other-run", 3)
		require.NoError(t, err)
		assert.Equal(t, RunBudget{Taken: true, Used: 1, Limit: 3}, rb)
	}},
	{"a recent failure is seen until it leaves the window", nil, func(t *testing.T, e *env) {
		seen, err := e.b.SeenFailure(e.ctx, e.key)
		require.NoError(t, err)
		assert.False(t, seen)
		e.run(t, Failure)
		assert.True(t, e.check(t, 1).Status.SeenFailure())
		e.clock.Advance(time.Minute)
		seen, err = e.b.SeenFailure(e.ctx, e.key)
		require.NoError(t, err)
		assert.False(t, seen)
	}},
	{"reset closes the circuit and refills the budget", nil, func(t *testing.T, e *env) {
		e.trip(t)
		require.NoError(t, e.b.Reset(e.ctx, e.key))
		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.Equal(t, Status{Key: e.key, Recorded: true, State: Closed, Window: time.Minute, Tokens: 10, MaxTokens: 10, RetryAllowed: true}, st)
	}},
	{"status tells a key never recorded from a fresh one", nil, func(t *testing.T, e *env) {
		st, err := e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.False(t, st.Recorded)
		e.run(t, Success)
		st, err = e.b.Status(e.ctx, e.key)
		require.NoError(t, err)
		assert.True(t, st.Recorded)
	}},
	{"a probe from before a reset does not count as a probe", nil, func(t *testing.T, e *env) {
		e.trip(t)
		e.clock.Advance(24 * time.Second)
		probe := e.check(t, 1)
		require.Equal(t, Probe, probe.Verdict)
		require.NoError(t, e.b.Reset(e.ctx, e.key))
		e.trip(t)
		st, err := e.b.Record(e.ctx, probe, Success)
		require.NoError(t, err)
		assert.Equal(t, Open, st.State, "the late success did not close the reopened circuit")
		assert.Equal(t, [2]int{5, 6}, [2]int{st.Failures, st.Attempts}, "but it counts")
	}},
	{"list shows every circuit sorted by key", nil, func(t *testing.T, e *env) {
		key := e.key
		e.key = key + "/b"
		e.trip(t)
		e.key = key + "/a"
		e.run(t, Success)
		all, err := e.b.List(e.ctx)
		require.NoError(t, err)
		var mine []Status
		for _, st := range all {
			if st.Key == key+"/a" || st.Key == key+"/b" {
				mine = append(mine, st)
			}
		}
		require.Len(t, mine, 2)
		assert.Equal(t, [2]State{Closed, Open}, [2]State{mine[0].State, mine[1].State})
		assert.Equal(t, key+"/a", mine[0].Key)
	}},
	{"an unreadable record is reported once and rewritten", nil, func(t *testing.T, e *env) {
		require.NoError(t, e.store.Update(e.ctx, Circuit, e.key, time.Hour, func([]byte) ([]byte, error) {
			return []byte(`{"version":1,"key":`), nil // truncated
		}))
		p := e.check(t, 1)
		assert.Equal(t, Allow, p.Verdict, "unreadable state never stops the command")
		var corrupt *CorruptError
		require.ErrorAs(t, p.Status.Warning, &corrupt)
		assert.Equal(t, e.key, corrupt.Key)

		p = e.check(t, 1)
		assert.NoError(t, p.Status.Warning, "reported once")
		st, err := e.b.Record(e.ctx, p, Failure)
		require.NoError(t, err)
		assert.NoError(t, st.Warning)
		assert.Equal(t, 1, st.Failures)
	}},
	{"a record in a newer format is an error and left alone", nil, func(t *testing.T, e *env) {
		newer := []byte(`{"version":99,"key":"whatever"}`)
		require.NoError(t, e.store.Update(e.ctx, Circuit, e.key, time.Hour, func([]byte) ([]byte, error) { return newer, nil }))
		_, err := e.b.Check(e.ctx, e.key, 1)
		var verr *VersionError
		require.ErrorAs(t, err, &verr)
		_, err = e.b.Record(e.ctx, Permit{Verdict: Allow, Status: Status{Key: e.key}}, Failure)
		require.ErrorAs(t, err, &verr)
		data, err := e.store.Get(e.ctx, Circuit, e.key)
		require.NoError(t, err)
		assert.Equal(t, newer, data)
	}},
	{"an unreadable run budget starts again from zero with a warning", nil, func(t *testing.T, e *env) {
		require.NoError(t, e.store.Update(e.ctx, Run, e.key, time.Hour, func([]byte) ([]byte, error) { return []byte("\x00garbage"), nil }))
		rb, err := e.b.TakeRunRetry(e.ctx, e.key, 2)
		require.NoError(t, err)
		assert.True(t, rb.Taken)
		assert.Equal(t, 1, rb.Used)
		assert.Error(t, rb.Warning)
		rb, err = e.b.TakeRunRetry(e.ctx, e.key, 2)
		require.NoError(t, err)
		assert.NoError(t, rb.Warning)
		assert.Equal(t, 2, rb.Used)
	}},
}

func TestBreakerBehavesTheSameOnEveryStore(t *testing.T) {
	t.Parallel()
	for _, sc := range testStores() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			s := sc.open(t)
			for _, bt := range behaviours {
				t.Run(bt.name, func(t *testing.T) {
					t.Parallel() // each behaviour has its own key
					cfg := fixedCooldown()
					if bt.cfg != nil {
						bt.cfg(&cfg)
					}
					bt.test(t, newEnv(t, s, cfg))
				})
			}
		})
	}
}

func TestDeadProbersClaimLapsesAfterTheProbeTimeout(t *testing.T) {
	t.Parallel()
	s, _ := openTestFiles(t, 0)
	e := newEnv(t, s, fixedCooldown())
	e.trip(t)
	e.clock.Advance(24 * time.Second)
	require.Equal(t, Probe, e.check(t, 1).Verdict, "this prober dies without recording")

	e.clock.Advance(e.b.cfg.ProbeTimeout - time.Millisecond)
	assert.Equal(t, Reject, e.check(t, 1).Verdict)
	e.clock.Advance(time.Millisecond)
	assert.Equal(t, Probe, e.check(t, 1).Verdict, "the key is not stuck")
}

func TestBreakerRefusesEmptyKeysAndUnknownOutcomes(t *testing.T) {
	t.Parallel()
	s, _ := openTestFiles(t, 0)
	b, err := New(s, fixedCooldown(), nil, nil)
	require.NoError(t, err)
	ctx := context.Background()

	_, err = b.Check(ctx, "", 1)
	assert.Error(t, err)
	_, err = b.Record(ctx, Permit{}, Success)
	assert.Error(t, err)
	_, err = b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: "k"}}, Sample(0))
	assert.Error(t, err)
	_, err = b.TakeRunRetry(ctx, "", 3)
	assert.Error(t, err)
	assert.Error(t, b.Reset(ctx, ""))
	_, err = New(s, Config{}, nil, nil)
	assert.Error(t, err, "the zero Config is invalid; start from Default")
}

func TestAGarbageStateFileIsReportedOnceAndRewritten(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	path := filepath.Join(dir, recordFile(Circuit, "k"))
	require.NoError(t, os.WriteFile(path, []byte("\x00\x01 not json at all"), 0o600))
	e := newEnv(t, s, fixedCooldown())
	e.key = "k"

	p := e.check(t, 1)
	assert.Equal(t, Allow, p.Verdict)
	assert.ErrorContains(t, p.Status.Warning, `state of "k" is unreadable, starting from empty state`)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	_, warn, err := decodeCircuit(data, "k")
	require.NoError(t, err)
	assert.Nil(t, warn, "the file was rewritten: %q", data)
	assert.NoError(t, e.check(t, 1).Status.Warning, "and is not reported again")
}

func TestListShowsAnUnreadableRecordAsAWarning(t *testing.T) {
	t.Parallel()
	s, _ := openTestFiles(t, 0)
	put(t, s, Circuit, "bad", "garbage")
	e := newEnv(t, s, fixedCooldown())
	e.key = "good"
	e.run(t, Success)

	all, err := e.b.List(e.ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Empty(t, all[0].Key)
	assert.ErrorContains(t, all[0].Warning, recordFile(Circuit, "bad"), "names the file to look at")
	assert.Equal(t, "good", all[1].Key)
}

func TestStatusMarshalsToJSON(t *testing.T) {
	t.Parallel()
	st := Status{
		Key: "registry", Recorded: true, State: HalfOpen, Failures: 9, Attempts: 12, Window: time.Minute,
		Tokens: 4.5, MaxTokens: 10, OpenedAt: t0, NextProbe: 23 * time.Second, Cooldown: 4 * time.Second, FailedProbes: 2, RetryIn: 3 * time.Second, Waiting: 7, Admitted: 5,
		Warning: &CorruptError{Key: "registry", Err: assertErr("truncated")},
	}
	data, err := json.Marshal(st)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"key": "registry", "recorded": true, "state": "half-open", "failures": 9, "attempts": 12,
		"tokens": 4.5, "max_tokens": 10, "retry_allowed": false,
		"opened_at": "2030-01-02T03:04:00Z",
		"window_seconds": 60, "next_probe_seconds": 23, "cooldown_seconds": 4, "failed_probes": 2, "retry_in_seconds": 3, "waiting": 7, "admitted": 5,
		"warning": "state of \"registry\" is unreadable, starting from empty state: truncated"
	}`, string(data))

	data, err = json.Marshal(Status{Key: "k"})
	require.NoError(t, err)
	assert.NotContains(t, string(data), "opened_at", "zero times are left out")
	assert.NotContains(t, string(data), "warning")
}

type assertErr string

func (e assertErr) Error() string { return string(e) }

func TestRunIDFollowsTheDocumentedOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"nothing set means no run budget", nil, ""},
		{"RETRY_RUN_ID is taken as it is", map[string]string{"RETRY_RUN_ID": "nightly-42", "GITHUB_RUN_ID": "1", "CI_JOB_ID": "2"}, "nightly-42"},
		{"GitHub Actions", map[string]string{"GITHUB_RUN_ID": "991", "GITHUB_JOB": "build", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_REPOSITORY": "o/r", "CI_JOB_ID": "7"}, "github:o/r:991:build:2"},
		{"GitLab CI", map[string]string{"CI_JOB_ID": "7", "BUILDKITE_JOB_ID": "b"}, "gitlab:7"},
		{"Buildkite", map[string]string{"BUILDKITE_JOB_ID": "0189-ab", "CIRCLE_WORKFLOW_JOB_ID": "c"}, "buildkite:0189-ab"},
		{"CircleCI", map[string]string{"CIRCLE_WORKFLOW_JOB_ID": "5f1c"}, "circleci:5f1c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, RunID(func(k string) string { return tt.vars[k] }))
		})
	}
	assert.Empty(t, RunID(nil))
}
