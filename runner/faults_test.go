package runner

import (
	"context"
	"math/rand/v2"
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
