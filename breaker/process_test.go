package breaker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// procs is how many processes hammer one key at once.
const procs = 64

// helperConfig is the breaker configuration the helper processes share:
// a long window so that every attempt of a test stays counted, and a
// short cooldown so that the probe test goes through many half-open
// periods.
func helperConfig() Config {
	cfg := fixedCooldown()
	cfg.Window = time.Hour
	cfg.Cooldown = 5 * time.Millisecond
	cfg.ProbeTimeout = time.Hour
	return cfg
}

// helperBreaker opens the file store in dir with a timeout long enough
// that contention never fails an update: these helpers test atomicity.
func helperBreaker(dir string) (*Breaker, error) {
	s, err := OpenStore(dir, Options{Timeout: time.Minute})
	if err != nil {
		return nil, err
	}
	return New(s, helperConfig(), nil, nil)
}

// hammerReport is what one hammer process did.
type hammerReport struct {
	Recorded, Failures, Taken int
}

// probeReport lists the generations one process probed.
type probeReport struct {
	Gens []uint64
}

func processHelpers() map[string]helperFunc {
	return map[string]helperFunc{
		// hammer waits for stdin to close, then records N outcomes
		// (every other one a failure) and tries to take 3 retries from
		// run budget Key of Limit.
		"hammer": func(a helperArgs) int {
			b, err := helperBreaker(a.Dir)
			if err != nil {
				return fail(err)
			}
			_, _ = os.Stdin.Read(make([]byte, 1))
			ctx := context.Background()
			var r hammerReport
			for i := range a.N {
				o := Success
				if i%2 == 1 {
					o = Failure
					r.Failures++
				}
				if _, err := b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: a.Key}}, o); err != nil {
					return fail(err)
				}
				r.Recorded++
			}
			for range 3 {
				rb, err := b.TakeRunRetry(ctx, a.Key, a.Limit)
				if err != nil {
					return fail(err)
				}
				if rb.Taken {
					r.Taken++
				}
			}
			return report(r)
		},
		// probe waits for stdin to close, then checks Key N times; when
		// granted a probe it fails it, which reopens the circuit for a
		// few milliseconds and starts the next half-open period.
		"probe": func(a helperArgs) int {
			b, err := helperBreaker(a.Dir)
			if err != nil {
				return fail(err)
			}
			_, _ = os.Stdin.Read(make([]byte, 1))
			ctx := context.Background()
			var r probeReport
			for range a.N {
				p, err := b.Check(ctx, a.Key, 1)
				if err != nil {
					return fail(err)
				}
				if p.Verdict != Probe {
					continue
				}
				r.Gens = append(r.Gens, p.gen)
				if _, err := b.Record(ctx, p, Failure); err != nil {
					return fail(err)
				}
			}
			return report(r)
		},
		// churn records and takes run retries until it is killed.
		"churn": func(a helperArgs) int {
			b, err := helperBreaker(a.Dir)
			if err != nil {
				return fail(err)
			}
			ctx := context.Background()
			for i := 0; ; i++ {
				o := Sample(1 + i%2)
				if _, err := b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: a.Key}}, o); err != nil {
					return fail(err)
				}
				if _, err := b.TakeRunRetry(ctx, a.Key, 1<<30); err != nil {
					return fail(err)
				}
			}
		},
	}
}

// fail ends a helper with err on stderr.
func fail(err error) int {
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// startTogether starts n helpers that wait for their stdin to close, then
// releases them all at once, and returns their reports.
func startTogether[R any](t *testing.T, n int, name string, args helperArgs) []R {
	t.Helper()
	gate, release, err := os.Pipe()
	require.NoError(t, err)
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	errs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = helperCmd(t, name, args)
		outs[i], errs[i] = &bytes.Buffer{}, &bytes.Buffer{}
		cmds[i].Stdin, cmds[i].Stdout, cmds[i].Stderr = gate, outs[i], errs[i]
		require.NoError(t, cmds[i].Start())
	}
	require.NoError(t, gate.Close())
	require.NoError(t, release.Close())

	reports := make([]R, n)
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "helper %d: %s", i, errs[i])
		require.NoError(t, json.Unmarshal(outs[i].Bytes(), &reports[i]), "helper %d wrote %q", i, outs[i])
	}
	return reports
}

func TestConcurrentProcessesLoseNoUpdates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const perProc, limit = 10, 100
	reports := startTogether[hammerReport](t, procs, "hammer", helperArgs{Dir: dir, Key: "shared", N: perProc, Limit: limit})

	var recorded, failures, taken int
	for _, r := range reports {
		recorded += r.Recorded
		failures += r.Failures
		taken += r.Taken
	}
	require.Equal(t, procs*perProc, recorded)
	b, err := helperBreaker(dir)
	require.NoError(t, err)
	st, err := b.Status(context.Background(), "shared")
	require.NoError(t, err)
	assert.Equal(t, recorded, st.Attempts, "every recorded attempt is counted")
	assert.Equal(t, failures, st.Failures)
	assert.Equal(t, limit, taken, "%d processes asked for 3 retries each; exactly the budget was handed out", procs)
	rb, err := b.TakeRunRetry(context.Background(), "shared", limit)
	require.NoError(t, err)
	assert.Equal(t, RunBudget{Taken: false, Used: limit, Limit: limit}, rb)
}

func TestConcurrentProcessesGetOneProbePerHalfOpenPeriod(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Open the circuit an hour ago, so it is half-open when the
	// processes start.
	s, err := OpenStore(dir, Options{Timeout: testTimeout})
	require.NoError(t, err)
	clock := &fakeClock{now: time.Now().Add(-time.Hour)}
	b, err := New(s, helperConfig(), clock.Now, nil)
	require.NoError(t, err)
	e := &env{b: b, store: s, clock: clock, key: "flaky", ctx: context.Background()}
	e.trip(t)

	reports := startTogether[probeReport](t, procs, "probe", helperArgs{Dir: dir, Key: "flaky", N: 10})
	probers := map[uint64]int{}
	for _, r := range reports {
		for _, gen := range r.Gens {
			probers[gen]++
		}
	}
	require.NotEmpty(t, probers, "the half-open circuit was probed")
	for gen, n := range probers {
		assert.Equal(t, 1, n, "generation %d was probed by %d processes", gen, n)
	}
	t.Logf("%d half-open periods, each probed once", len(probers))
}

func TestKilledWritersLeaveReadableState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rounds, writers = 5, 8
	b, err := helperBreaker(dir)
	require.NoError(t, err)
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))

	for round := range rounds {
		before, err := b.Status(ctx, "crash")
		require.NoError(t, err)
		cmds := make([]*exec.Cmd, writers)
		for i := range cmds {
			cmds[i] = helperCmd(t, "churn", helperArgs{Dir: dir, Key: "crash"})
			require.NoError(t, cmds[i].Start())
		}
		// Wait for progress, then kill every writer wherever it is.
		require.Eventually(t, func() bool {
			st, err := b.Status(ctx, "crash")
			return err == nil && st.Attempts >= before.Attempts+writers
		}, 30*time.Second, 5*time.Millisecond)
		var wg sync.WaitGroup
		for _, cmd := range cmds {
			delay := time.Duration(rnd.Int64N(int64(20 * time.Millisecond)))
			wg.Go(func() {
				timer := time.NewTimer(delay)
				defer timer.Stop()
				<-timer.C
				_ = cmd.Process.Signal(syscall.SIGKILL)
				_ = cmd.Wait()
			})
		}
		wg.Wait()

		for _, kind := range []Kind{Circuit, Run} {
			data, err := b.store.Get(ctx, kind, "crash")
			require.NoError(t, err)
			require.NotNil(t, data)
			assert.True(t, json.Valid(data), "round %d: %s record is whole: %q", round, kind, data)
		}
		st, err := b.Status(ctx, "crash")
		require.NoError(t, err)
		require.NoError(t, st.Warning, "round %d", round)
		assert.Greater(t, st.Attempts, before.Attempts)
		_, err = b.Record(ctx, Permit{Verdict: Allow, Status: Status{Key: "crash"}}, Success)
		require.NoError(t, err, "round %d: the dead writers' lock was released", round)
	}
}
