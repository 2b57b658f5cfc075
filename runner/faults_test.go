package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/policy"
)

func TestScannedOutputWithoutStdoutIsDiscardedNotTakenForAClosedReader(t *testing.T) {
	t.Parallel()
	p := policy.Default()
	p.Attempts, p.FastDelay, p.FastMax = 2, time.Millisecond, time.Millisecond
	var seen lines
	res := Run(context.Background(), Config{
		Args:       []string{"sh", "-c", "echo out; echo err >&2; exit 1"},
		Policy:     p,
		Rand:       rand.New(rand.NewPCG(1, 1)),
		Signal:     syscall.SIGTERM,
		KillAfter:  time.Second,
		NewScan:    func() LineScanner { return &seen },
		ScanStdout: true,
	})
	require.Len(t, res.Attempts, 2, "a failure with nowhere to write stdout is retried: %v", res.Stop)
	assert.Equal(t, Exhausted, res.Stop)
	assert.False(t, res.Attempts[0].DownstreamGone)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	assert.Contains(t, seen.got, "out", "stdout was still scanned")
}

func TestStderrEndingMidLineIsKnownOnlyWhenRetryCopiesIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		script  string
		scan    bool
		watch   bool
		midLine bool
	}{
		{"scanned, ends mid-line", "printf err >&2; exit 1", true, false, true},
		{"scanned, ends with a line feed", "echo err >&2; exit 1", true, false, false},
		{"watched, ends mid-line", "printf err >&2; exit 1", false, true, true},
		{"watched, no output", "exit 1", false, true, false},
		{"handed over: retry cannot see it", "printf err >&2; exit 1", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			require.NoError(t, err)
			defer stderr.Close()
			p := policy.Default()
			p.Attempts = 1
			cfg := Config{
				Args: []string{"sh", "-c", tc.script}, Policy: p, Rand: rand.New(rand.NewPCG(1, 1)),
				Signal: syscall.SIGTERM, KillAfter: time.Second, Stderr: stderr, WatchStderr: tc.watch,
			}
			if tc.scan {
				cfg.NewScan = func() LineScanner { return &lines{} }
			}
			res := Run(t.Context(), cfg)
			require.Len(t, res.Attempts, 1)
			assert.Equal(t, tc.midLine, res.Attempts[0].StderrMidLine)
			data, err := os.ReadFile(stderr.Name())
			require.NoError(t, err)
			if strings.Contains(tc.script, "err") {
				assert.True(t, strings.HasPrefix(string(data), "err"), "the output reached stderr: %q", data)
			}
		})
	}
}
