package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/exitcodes"
	"retry/policy"
)

// step is how one fake attempt behaves.
type step struct {
	exit exitcodes.Exit
	// takes is how long the attempt runs before it exits by itself.
	takes time.Duration
	// ignore lists signals the attempt survives (SIGKILL always works).
	ignore []syscall.Signal
}

// fakeStarter plays back steps in virtual time; it records what it was
// asked to start and every signal it received.
type fakeStarter struct {
	steps []step

	mu      sync.Mutex
	started []Command
	signals []string // "attempt N: SIGNAME"
}

func (f *fakeStarter) Start(_ context.Context, c Command) (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.started)
	f.started = append(f.started, c)
	s := f.steps[min(n, len(f.steps)-1)]
	return &fakeProcess{owner: f, n: n + 1, step: s, sig: make(chan syscall.Signal, 16)}, nil
}

func (f *fakeStarter) attempts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.started)
}

type fakeProcess struct {
	owner *fakeStarter
	n     int
	step  step
	sig   chan syscall.Signal
}

func (p *fakeProcess) Signal(sig syscall.Signal) error {
	p.owner.mu.Lock()
	p.owner.signals = append(p.owner.signals, "attempt "+itoa(p.n)+": "+exitcodes.SignalName(sig))
	p.owner.mu.Unlock()
	p.sig <- sig
	return nil
}

func (p *fakeProcess) Wait(func() bool) Ended {
	t := time.NewTimer(p.step.takes)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return Ended{Exit: p.step.exit}
		case sig := <-p.sig:
			ignored := false
			for _, s := range p.step.ignore {
				ignored = ignored || s == sig
			}
			if sig == syscall.SIGKILL || !ignored {
				return Ended{Exit: exitcodes.Signaled(sig)}
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func fails(code int, takes time.Duration) step {
	return step{exit: exitcodes.Exit{Code: code}, takes: takes}
}

func ok(takes time.Duration) step { return step{takes: takes} }

// config is a run of the default policy with a fixed seed.
func config(f *fakeStarter) Config {
	return Config{
		Args:      []string{"prog", "secret"},
		Policy:    policy.Default(),
		Rand:      rand.New(rand.NewPCG(7, 7)),
		Signal:    syscall.SIGTERM,
		KillAfter: 5 * time.Second,
		Starter:   f,
	}
}

// waitsOf returns the wait after each attempt of the result.
func waitsOf(r Result) []time.Duration {
	var w []time.Duration
	for _, o := range r.Attempts {
		w = append(w, o.Next.Wait)
	}
	return w
}

func TestSuccessOnThirdAttemptStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, time.Second), fails(1, time.Second), ok(time.Second)}}
		cfg := config(f)
		start := time.Now()
		res := Run(t.Context(), cfg)

		assert.Equal(t, Succeeded, res.Stop)
		require.Len(t, res.Attempts, 3)
		assert.Equal(t, exitcodes.Success, res.Last().Verdict.Class)
		// The waits are exactly the seed's draws from the fast phase.
		want := policy.Default()
		r := rand.New(rand.NewPCG(7, 7))
		w1 := want.Next(policy.Input{Attempt: 1}, r).Wait
		w2 := want.Next(policy.Input{Attempt: 2}, r).Wait
		assert.Equal(t, []time.Duration{w1, w2, 0}, waitsOf(res))
		assert.Equal(t, 3*time.Second+w1+w2, time.Since(start), "no time passes beyond attempts and waits")
		assert.Equal(t, time.Since(start), res.Elapsed)
	})
}

func TestExhaustionKeepsTheLastAttemptsExitAndNeverWaitsAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0), fails(2, 0), fails(3, 0), fails(4, 0), fails(7, 0)}}
		cfg := config(f)
		cfg.Policy.Jitter = policy.NoJitter
		start := time.Now()
		res := Run(t.Context(), cfg)

		assert.Equal(t, Exhausted, res.Stop)
		assert.Equal(t, 5, f.attempts())
		assert.Equal(t, 7, res.Last().Exit.Code)
		// 50ms + 100ms fast, then 2s + 4s slow; nothing after attempt 5.
		assert.Equal(t, []time.Duration{50e6, 100e6, 2e9, 4e9, 0}, waitsOf(res))
		assert.Equal(t, []policy.Phase{policy.Fast, policy.Fast, policy.Slow, policy.Slow, 0},
			[]policy.Phase{res.Attempts[0].Next.Phase, res.Attempts[1].Next.Phase, res.Attempts[2].Next.Phase, res.Attempts[3].Next.Phase, res.Attempts[4].Next.Phase})
		assert.Equal(t, 6150*time.Millisecond, time.Since(start))
	})
}

func TestTerminalFailureMakesExactlyOneAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(64, 0), ok(0)}}
		res := Run(t.Context(), config(f))
		assert.Equal(t, Terminal, res.Stop)
		assert.Equal(t, 1, f.attempts())
		assert.Equal(t, "sysexits EX_USAGE", res.Last().Verdict.Rule)
	})
}

func TestNeverStartsAWaitThatWouldEndPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 400*time.Millisecond)}}
		cfg := config(f)
		cfg.Policy = policy.Policy{Attempts: 10, Deadline: 3 * time.Second, SlowDelay: 2 * time.Second, SlowMax: 2 * time.Second, Jitter: policy.NoJitter}
		start := time.Now()
		res := Run(t.Context(), cfg)

		// 0.4s run + 2s wait + 0.4s run = 2.8s: the second wait cannot fit.
		assert.Equal(t, Deadline, res.Stop)
		assert.Equal(t, 2, f.attempts())
		assert.False(t, res.Last().DeadlineHit, "the deadline did not stop an attempt")
		assert.Equal(t, policy.WaitPastDeadline, res.Last().Next.Stop)
		assert.Equal(t, 2800*time.Millisecond, time.Since(start), "gave up at once instead of sleeping into the deadline")
	})
}

func TestDeadlineStopsARunningAttemptWithSignalGraceAndKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour, ignore: []syscall.Signal{syscall.SIGTERM}}}}
		cfg := config(f)
		cfg.Policy.Deadline = 10 * time.Second
		cfg.KillAfter = 2 * time.Second
		start := time.Now()
		res := Run(t.Context(), cfg)

		assert.Equal(t, Deadline, res.Stop)
		require.Len(t, res.Attempts, 1)
		assert.True(t, res.Last().DeadlineHit)
		assert.True(t, res.Last().Exit.TimedOut)
		assert.Equal(t, []string{"attempt 1: SIGTERM", "attempt 1: SIGKILL"}, f.signals)
		assert.Equal(t, 12*time.Second, time.Since(start), "deadline, then the grace period, then SIGKILL")
	})
}

func TestTimeoutIsTransientAndRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour}, {takes: time.Hour}, ok(time.Second)}}
		cfg := config(f)
		cfg.Timeout = 5 * time.Second
		res := Run(t.Context(), cfg)

		assert.Equal(t, Succeeded, res.Stop)
		require.Len(t, res.Attempts, 3)
		assert.True(t, res.Attempts[0].Exit.TimedOut)
		assert.Equal(t, 5*time.Second, res.Attempts[0].Duration)
		assert.Equal(t, exitcodes.Transient, res.Attempts[0].Verdict.Class)
		assert.False(t, res.Attempts[0].DeadlineHit)
	})
}

func TestAttemptLimitIsCutToTheTimeLeftBeforeTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 3*time.Second), {takes: time.Hour}}}
		cfg := config(f)
		cfg.Policy = policy.Policy{Attempts: 5, Deadline: 5 * time.Second, FastDelay: time.Second, FastMax: time.Second, Fast: 5, Jitter: policy.NoJitter}
		cfg.Timeout = 10 * time.Second
		res := Run(t.Context(), cfg)

		require.Len(t, res.Attempts, 2)
		assert.Equal(t, time.Second, res.Attempts[1].Duration, "3s + 1s wait leaves 1s, less than --timeout")
		assert.True(t, res.Attempts[1].DeadlineHit)
		assert.Equal(t, Deadline, res.Stop)
	})
}

func TestTimeoutEscalatesToKillAfterTheGracePeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour, ignore: []syscall.Signal{syscall.SIGUSR1}}}}
		cfg := config(f)
		cfg.Policy.Attempts = 1
		cfg.Timeout = time.Second
		cfg.Signal = syscall.SIGUSR1
		cfg.KillAfter = 3 * time.Second
		res := Run(t.Context(), cfg)

		assert.Equal(t, []string{"attempt 1: SIGUSR1", "attempt 1: SIGKILL"}, f.signals)
		assert.Equal(t, 4*time.Second, res.Last().Duration)
		assert.True(t, res.Last().Exit.TimedOut)
		assert.Equal(t, Exhausted, res.Stop)
	})
}

func TestCancelDuringAWaitEndsItAtOnceAndStartsNoAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0)}}
		cfg := config(f)
		cfg.Policy = policy.Policy{Attempts: 3, SlowDelay: time.Hour, SlowMax: time.Hour, Jitter: policy.NoJitter}
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(10 * time.Second) // virtual time: ten seconds into the hour-long wait
			cancel()
		}()
		start := time.Now()
		res := Run(ctx, cfg)

		assert.Equal(t, Cancelled, res.Stop)
		assert.Equal(t, 1, f.attempts())
		assert.Equal(t, 10*time.Second, time.Since(start))
	})
}

func TestCancelDuringAnAttemptLetsItFinishThenStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 3*time.Second), ok(0)}}
		cfg := config(f)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(time.Second)
			cancel() // the signal itself is forwarded by the relay, not by Run
		}()
		res := Run(ctx, cfg)

		assert.Equal(t, Cancelled, res.Stop)
		assert.Equal(t, 1, f.attempts(), "no attempt starts after a cancel")
		assert.Empty(t, f.signals, "the attempt exited by itself within the grace period")
	})
}

func TestCancelledAttemptThatIgnoresTheSignalIsKilledAfterTheGracePeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour}}}
		cfg := config(f)
		cfg.KillAfter = 2 * time.Second
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		start := time.Now()
		res := Run(ctx, cfg)

		assert.Equal(t, Cancelled, res.Stop)
		assert.Equal(t, []string{"attempt 1: SIGKILL"}, f.signals)
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}

func TestAnHourOfBackoffRunsInVirtualTime(t *testing.T) {
	wall := time.Now()
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 100*time.Millisecond)}}
		cfg := config(f)
		cfg.Policy.Attempts = 0
		cfg.Policy.Deadline = time.Hour
		start := time.Now()
		res := Run(t.Context(), cfg)

		assert.Equal(t, Deadline, res.Stop)
		assert.Less(t, time.Since(start), time.Hour)
		assert.Greater(t, f.attempts(), 100, "an hour of waits capped at 30s holds well over 100 attempts")
		for _, o := range res.Attempts {
			require.LessOrEqual(t, o.Next.Wait, 30*time.Second)
		}
	})
	assert.Less(t, time.Since(wall), 5*time.Second, "virtual time, not real time")
}

func TestEveryAttemptSeesItsNumberTheLimitAndOneIdempotencyKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0), fails(1, 0), ok(0)}}
		cfg := config(f)
		cfg.IdempotencyKey = "K1"
		cfg.Policy.Deadline = time.Minute
		cfg.Env = []string{"PATH=/bin", "RETRY_ATTEMPT=9", "RETRY_IDEMPOTENCY_KEY=stale"}
		Run(t.Context(), cfg)

		require.Len(t, f.started, 3)
		for i, c := range f.started {
			assert.Contains(t, c.Env, "PATH=/bin")
			assert.Contains(t, c.Env, "RETRY_ATTEMPT="+itoa(i+1))
			assert.Contains(t, c.Env, "RETRY_MAX_ATTEMPTS=5")
			assert.Contains(t, c.Env, "RETRY_IDEMPOTENCY_KEY=K1")
			assert.NotContains(t, c.Env, "RETRY_ATTEMPT=9", "inherited values are replaced")
			assert.NotContains(t, c.Env, "RETRY_IDEMPOTENCY_KEY=stale")
		}
		assert.Contains(t, f.started[0].Env, "RETRY_DEADLINE_MS=60000")
	})
}

func TestObserverSeesStartsEndsAndTheFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0), ok(0)}}
		cfg := config(f)
		var seen []string
		cfg.Observe = func(e Event) {
			switch e := e.(type) {
			case *AttemptStarted:
				seen = append(seen, "start "+itoa(e.Attempt))
			case *AttemptEnded:
				s := "end " + itoa(e.Attempt.N)
				if e.Final {
					s += " final"
				}
				seen = append(seen, s)
			case *Finished:
				seen = append(seen, "finished "+e.Result.Stop.String())
			}
		}
		Run(t.Context(), cfg)
		assert.Equal(t, []string{"start 1", "end 1", "start 2", "end 2 final", "finished success"}, seen)
	})
}

func TestObserverSeesTheHookStartBeforeItRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0), ok(0)}}
		cfg := config(f)
		cfg.Hook = []string{"/bin/sh", "-c", "echo cleaning up"}
		var seen []string
		cfg.Observe = func(e Event) {
			switch e := e.(type) {
			case *AttemptStarted:
				seen = append(seen, "start "+itoa(e.Attempt))
			case *HookStarted:
				// A renderer holding a line on stderr clears it here, so
				// nothing of the hook may have run yet.
				seen = append(seen, "hook started "+itoa(e.Attempt)+" after "+itoa(f.attempts())+" processes")
			case *HookEnded:
				seen = append(seen, "hook ended "+itoa(e.Attempt))
			}
		}
		Run(t.Context(), cfg)
		assert.Equal(t, []string{"start 1", "hook started 2 after 1 processes", "hook ended 2", "start 2"}, seen)
	})
}

// startFails is a Starter whose program cannot be started.
type startFails struct{ kind exitcodes.Start }

func (s startFails) Start(_ context.Context, c Command) (Process, error) {
	return nil, &StartError{Program: c.Args[0], Kind: s.kind, Err: syscall.ENOENT}
}

func TestProgramThatCannotStartIsTerminalWithItsShellCode(t *testing.T) {
	for kind, code := range map[exitcodes.Start]int{exitcodes.ProgramMissing: 127, exitcodes.ProgramNotExecutable: 126} {
		synctest.Test(t, func(t *testing.T) {
			cfg := config(nil)
			cfg.Starter = startFails{kind}
			res := Run(t.Context(), cfg)
			assert.Equal(t, Terminal, res.Stop)
			require.Len(t, res.Attempts, 1)
			assert.Equal(t, code, res.Last().Exit.Code)
			assert.Error(t, res.Last().Err)
		})
	}
}

// gate is a Gate whose Admit waits for a fixed time before each attempt
// (or refuses), and which remembers what it was asked.
type gate struct {
	admitWait time.Duration
	refuseAt  int // refuse Admit of this attempt; 0: never
	admitted  []int
	deadlines []time.Time
}

func (g *gate) Allow(context.Context, int) error { return nil }
func (g *gate) Done(context.Context, Attempt)    {}
func (g *gate) Admit(ctx context.Context, n int, deadline time.Time) error {
	g.admitted = append(g.admitted, n)
	g.deadlines = append(g.deadlines, deadline)
	if n == g.refuseAt {
		return errors.New("refused")
	}
	t := time.NewTimer(g.admitWait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func TestGateAdmitsEveryAttemptJustBeforeItStartsAndItsWaitCountsAgainstTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, time.Second), ok(time.Second)}}
		cfg := config(f)
		cfg.Policy.Deadline = time.Minute
		g := &gate{admitWait: 10 * time.Second}
		cfg.Gate = g
		start := time.Now()
		res := Run(t.Context(), cfg)

		assert.Equal(t, Succeeded, res.Stop)
		assert.Equal(t, []int{1, 2}, g.admitted)
		assert.WithinDuration(t, start.Add(time.Minute), g.deadlines[0], 0, "the run's own deadline")
		assert.Equal(t, 22*time.Second+res.Attempts[0].Next.Wait, time.Since(start), "two admissions of 10s, two attempts of 1s and the backoff")
	})
}

func TestGateRefusingTheFirstAttemptStopsTheRunWithNoAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{ok(0)}}
		cfg := config(f)
		cfg.Gate = &gate{refuseAt: 1}
		res := Run(t.Context(), cfg)

		assert.Equal(t, Refused, res.Stop)
		assert.EqualError(t, res.Refusal, "refused")
		assert.Empty(t, res.Attempts)
		assert.Zero(t, f.attempts(), "nothing ran")
	})
}

func TestCancellingDuringTheGatesWaitEndsItAtOnceAsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{ok(0)}}
		cfg := config(f)
		cfg.Gate = &gate{admitWait: time.Hour}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(5*time.Second, cancel)
		start := time.Now()
		res := Run(ctx, cfg)

		assert.Equal(t, Cancelled, res.Stop)
		assert.Nil(t, res.Refusal)
		assert.Zero(t, f.attempts())
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}
