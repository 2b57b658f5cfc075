package main

// End-to-end tests of the state shared across runs: circuit breaker, retry
// budgets, fallback; and of the machine outputs: report file, metrics file,
// JSON log, GitHub Actions annotations, countdown.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/slowtest"
)

func TestBreakerKeepsAnOutageFromBeingHammered(t *testing.T) {
	slowtest.Only(t, "an outage of several seconds")
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	// A dependency that fails for 10 s; 50 runs start over those 10 s.
	var hits atomic.Int64
	var healthyAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if time.Now().UnixNano() < healthyAt.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	}))
	defer srv.Close()

	measure := func(runs int, outage time.Duration, extra ...string) float64 {
		hits.Store(0)
		healthyAt.Store(time.Now().Add(outage).UnixNano())
		var wg sync.WaitGroup
		for range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := append(append([]string{"-q"}, extra...), "--", "curl", "-fsS", "-o", "/dev/null", srv.URL)
				retry(t, nil, args...)
			}()
			time.Sleep(200 * time.Millisecond) // spreading the runs over the outage, as CI jobs would be
		}
		wg.Wait()
		return float64(hits.Load()) / float64(runs)
	}
	with := measure(50, 10*time.Second, "--breaker", "registry", "--state", t.TempDir())
	t.Logf("attempts per run during a 10s outage: %.2f with --breaker", with)
	assert.LessOrEqual(t, with, 1.5)
	// Without the breaker, a run that meets only the outage makes all its
	// attempts (the outage outlasts these runs, so none meets the recovery).
	without := measure(10, time.Minute)
	t.Logf("attempts per run during the outage: %.2f without --breaker", without)
	assert.Equal(t, 5.0, without)
}

func TestCountdownShowsOnATerminalForLongWaits(t *testing.T) {
	c, _, output, done := ptyRetry(t, "-n", "2", "--fast", "0", "--jitter", "none", "--slow-delay", "2s", "--", "sh", "-c", "exit 1")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retry did not exit")
	}
	assert.Equal(t, 1, c.ProcessState.ExitCode())
	out := output()
	failed := strings.Index(out, "retry: attempt 1/2 failed")
	countdown := strings.Index(out, "retry: attempt 2/2 in 2s (slow phase) — Ctrl-C to stop")
	require.True(t, failed >= 0 && countdown >= 0, out)
	assert.Less(t, failed, countdown, "the countdown starts below the attempt's line")
	assert.Contains(t, out, "retry: attempt 2/2 in 1s (slow phase)", "it counts down")
	assert.Contains(t, out, "\r\x1b[Kretry: giving up", "the line is erased before the next line")
}
