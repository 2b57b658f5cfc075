package runner

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/policy"
)

func TestLimitsGiveEachAttemptItsOwnLimitFromTheOneBefore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour}, {takes: time.Hour}, ok(3 * time.Second)}}
		cfg := config(f)
		cfg.Timeout = time.Minute // the hook's; Limits replaces it for attempts
		var seen []Attempt
		cfg.Limits = func(n int, last Attempt) Limit {
			seen = append(seen, last)
			if last.Exit.TimedOut {
				return Limit{D: 2 * last.Limit.D, From: "learned"}
			}
			return Limit{D: time.Second, From: "learned"}
		}
		res := Run(t.Context(), cfg)

		assert.Equal(t, Succeeded, res.Stop)
		require.Len(t, res.Attempts, 3)
		assert.Equal(t, []Limit{{time.Second, "learned"}, {2 * time.Second, "learned"}, {4 * time.Second, "learned"}},
			[]Limit{res.Attempts[0].Limit, res.Attempts[1].Limit, res.Attempts[2].Limit})
		assert.Equal(t, time.Second, res.Attempts[0].Duration)
		assert.Equal(t, 2*time.Second, res.Attempts[1].Duration)
		require.Len(t, seen, 3)
		assert.Zero(t, seen[0].N, "the first attempt has none before it")
		assert.Equal(t, 1, seen[1].N)
		assert.Equal(t, 2, seen[2].N)
	})
}

func TestLimitsAreCutToTheDeadlineAndSaySo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{{takes: time.Hour}}}
		cfg := config(f)
		cfg.Policy = policy.Policy{Attempts: 5, Deadline: 5 * time.Second, Fast: 4, FastDelay: time.Second, FastMax: time.Second, Jitter: policy.NoJitter}
		cfg.Limits = func(int, Attempt) Limit { return Limit{D: 3 * time.Second, From: "learned"} }
		res := Run(t.Context(), cfg)

		require.Len(t, res.Attempts, 2)
		assert.Equal(t, Limit{D: 3 * time.Second, From: "learned"}, res.Attempts[0].Limit)
		assert.Equal(t, Limit{D: time.Second, From: LimitDeadline}, res.Attempts[1].Limit, "3s + 1s wait leaves 1s")
		assert.True(t, res.Attempts[1].DeadlineHit)
	})
}

func TestEveryAttemptRecordsTheTimeoutItRanUnder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{steps: []step{fails(1, 0), ok(0)}}
		cfg := config(f)
		res := Run(t.Context(), cfg)
		require.Len(t, res.Attempts, 2)
		assert.Equal(t, Limit{}, res.Attempts[0].Limit, "no --timeout, no deadline: no limit")

		f = &fakeStarter{steps: []step{fails(1, 0), ok(0)}}
		cfg = config(f)
		cfg.Timeout = 7 * time.Second
		res = Run(t.Context(), cfg)
		require.Len(t, res.Attempts, 2)
		assert.Equal(t, Limit{D: 7 * time.Second, From: LimitTimeout}, res.Attempts[1].Limit)
	})
}
