package report

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"retry/exitcodes"
	"retry/policy"
	"retry/runner"
)

// lockedBuffer is a terminal stand-in that the countdown's goroutine and
// the test may use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// frames splits what was written into what each "\r" redraw showed; an
// erased line shows as "".
func (l *lockedBuffer) frames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, f := range strings.Split(l.b.String(), "\r")[1:] {
		out = append(out, strings.TrimSuffix(f, "\x1b[K"))
	}
	return out
}

// waitingFor is attempt n-1 failing, followed by a wait of d before
// attempt n of 5.
func waitingFor(n int, d time.Duration, phase policy.Phase) *runner.AttemptEnded {
	return &runner.AttemptEnded{Max: 5, Attempt: runner.Attempt{
		N: n - 1, Exit: exitcodes.Exit{Code: 7}, Verdict: exitcodes.Verdict{Class: exitcodes.Transient},
		Next: policy.Decision{Retry: true, Wait: d, Phase: phase, Bound: d},
	}}
}

func countdownLine(n int, left, phase string) string {
	return "retry: attempt " + itoa(n) + "/5 in " + left + " (" + phase + " phase) — Ctrl-C to stop"
}

func itoa(n int) string { return attemptCount(n, 0) }

// All countdown tests run in virtual time: time.Sleep inside a synctest
// bubble returns as soon as every goroutine in it is blocked, with the
// clock moved on exactly.

func TestCountdownRewritesTheLineEachSecondAndErasesItWhenTheNextAttemptStarts(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(4, 12*time.Second, policy.Slow))
		assert.Equal(t, []string{countdownLine(4, "12s", "slow")}, w.frames(), "shown at once")

		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, countdownLine(4, "11s", "slow"), w.frames()[1])

		time.Sleep(time.Second)
		synctest.Wait()
		assert.Len(t, w.frames(), 3, "each second above ten seconds")

		time.Sleep(10 * time.Second) // the wait is over
		c.Observe(&runner.AttemptStarted{Attempt: 4, Max: 5})
		frames := w.frames()
		assert.Len(t, frames, 3+99+1, "then each tenth from 9.9s down to 0.1s, then erased")
		assert.Equal(t, countdownLine(4, "9.9s", "slow"), frames[3])
		assert.Equal(t, countdownLine(4, "100ms", "slow"), frames[len(frames)-2])
		assert.Equal(t, "", frames[len(frames)-1], "erased before the attempt's output")
	})
}

func TestCountdownRoundsUpSoItNeverPromisesLessThanIsLeft(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(2, 2550*time.Millisecond, policy.Hint))
		time.Sleep(60 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{
			countdownLine(2, "2.6s", "retry-after"),
			countdownLine(2, "2.5s", "retry-after"), // at 0.05s
		}, w.frames())
		c.Stop()
	})
}

func TestCountdownShowsTenthsUnderTenSeconds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(2, 1500*time.Millisecond, policy.Slow))
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		frames := w.frames()
		assert.Equal(t, countdownLine(2, "1.5s", "slow"), frames[0], "not rounded up to 2s")
		assert.Equal(t, countdownLine(2, "1s", "slow"), frames[len(frames)-1], "at 0.5s")
		c.Stop()
	})
}

func TestCountdownShowsMinutesForLongWaits(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(3, 90*time.Second, policy.Slow))
		c.Observe(&runner.Finished{})
		assert.Equal(t, []string{countdownLine(3, "1m30s", "slow"), ""}, w.frames())
	})
}

func TestCountdownStopsItsGoroutineWhenTheRunEndsMidWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(2, 30*time.Second, policy.Slow))
		time.Sleep(1500 * time.Millisecond) // Ctrl-C here ends the wait and the run
		c.Observe(&runner.Finished{Result: runner.Result{Stop: runner.Cancelled}})
		shown := w.frames()
		assert.Equal(t, "", shown[len(shown)-1], "the line is erased")

		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Equal(t, shown, w.frames(), "nothing ticks after the run ended")
		// Returning from the bubble with the goroutine still blocked would
		// fail the test as a deadlock: it has ended.
	})
}

func TestCountdownStaysOffForShortWaitsAndAfterTheLastAttempt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Observe(waitingFor(2, time.Second, policy.Fast))
		final := waitingFor(5, 0, 0)
		final.Final, final.Attempt.Next = true, policy.Decision{Stop: policy.Exhausted}
		c.Observe(final)
		c.Observe(&runner.Finished{})
		c.Stop()
		assert.Empty(t, w.frames())
	})
}

func TestCountdownDimsTheLineOnlyWhenAskedTo(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var plain, coloured lockedBuffer
		for _, c := range []*Countdown{{W: &plain}, {W: &coloured, Color: true}} {
			c.Observe(waitingFor(2, 5*time.Second, policy.Slow))
			c.Stop()
		}
		assert.NotContains(t, plain.b.String(), "\x1b[2m")
		assert.Equal(t, "\x1b[2m"+countdownLine(2, "5s", "slow")+"\x1b[0m", coloured.frames()[0])
	})
}

func TestUseColorOnlyOnATerminalWithoutNO_COLOR(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		terminal bool
		env      []string
		want     bool
	}{
		{"terminal", true, []string{"TERM=xterm"}, true},
		{"not a terminal", false, nil, false},
		{"NO_COLOR set", true, []string{"NO_COLOR=1"}, false},
		{"NO_COLOR empty counts as unset", true, []string{"NO_COLOR="}, true},
		{"the last NO_COLOR wins", true, []string{"NO_COLOR=1", "NO_COLOR="}, true},
		{"a longer name is another variable", true, []string{"NO_COLORS=1"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, UseColor(tc.terminal, tc.env))
		})
	}
}

func TestCountdownShowsAWaitThatIsNotABackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var w lockedBuffer
		c := &Countdown{W: &w, Min: time.Second}
		c.Show(`waiting for circuit "db": its next probe`, time.Now().Add(2*time.Second))
		time.Sleep(time.Second)
		synctest.Wait()
		c.Show(`circuit "db" closed; resuming`, time.Now().Add(500*time.Millisecond))
		// Tenths of a second under ten seconds: 2s, 1.9s … 1s.
		var want []string
		for left := 20; left >= 10; left-- {
			want = append(want, `retry: waiting for circuit "db": its next probe in `+Duration(time.Duration(left)*100*time.Millisecond)+` — Ctrl-C to stop`)
		}
		assert.Equal(t, append(want, ""), w.frames(), "a wait of Min or less shows nothing, and the earlier line is erased")
		c.Stop()
	})
}
