//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startGroup starts script as an attempt, with $0 the name of a file
// for it to write pids to, one a line.
func startGroup(t *testing.T, script string) (Process, string) {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pids")
	p, err := Exec{}.Start(context.Background(), Command{
		Args:      []string{"sh", "-c", script, pidfile},
		Signal:    syscall.SIGTERM,
		KillAfter: 5 * time.Second,
	})
	require.NoError(t, err)
	return p, pidfile
}

// pidsIn reads the pids a script wrote, and kills them when the test ends.
func pidsIn(t *testing.T, pidfile string) []int {
	t.Helper()
	data, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.NotEmpty(t, pids)
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pids
}

func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: a zombie counts
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

const twoSleepers = `sleep 60 & echo $! >> "$0"; sleep 60 & echo $! >> "$0"; `

func TestWaitLeavesTheGroupOfASuccessAloneAndSignalsItNoMore(t *testing.T) {
	t.Parallel()
	p, pidfile := startGroup(t, twoSleepers+`exit 0`)
	e := p.Wait(func() bool { return false })
	assert.True(t, e.LeftAlone)
	assert.Zero(t, e.Stopped)
	assert.ErrorIs(t, p.Signal(syscall.SIGTERM), errLeftAlone)
	for _, pid := range pidsIn(t, pidfile) {
		assert.True(t, running(pid), "process %d of the successful attempt still runs", pid)
	}
}

func TestWaitStopsTheGroupOfAFailureAndCountsWhatItStopped(t *testing.T) {
	t.Parallel()
	p, pidfile := startGroup(t, twoSleepers+`exit 1`)
	e := p.Wait(func() bool { return false })
	assert.False(t, e.LeftAlone)
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		assert.Equal(t, 2, e.Stopped)
	} else {
		assert.Equal(t, -1, e.Stopped, "counted where there is /proc only")
	}
	for _, pid := range pidsIn(t, pidfile) {
		assert.False(t, running(pid), "process %d of the failed attempt was stopped", pid)
	}
}

func TestWaitStopsTheGroupOfASuccessThatWasSignalledOrCancelled(t *testing.T) {
	t.Parallel()
	t.Run("signalled", func(t *testing.T) {
		t.Parallel()
		// The leader exits 0 on the signal; the sleepers die of it.
		p, pidfile := startGroup(t, `trap "exit 0" TERM; `+twoSleepers+`: > "$0.ready"; wait`)
		require.Eventually(t, func() bool { _, err := os.Stat(pidfile + ".ready"); return err == nil },
			30*time.Second, 5*time.Millisecond)
		require.NoError(t, p.Signal(syscall.SIGTERM))
		e := p.Wait(func() bool { return false })
		assert.Zero(t, e.Exit.Code)
		assert.False(t, e.LeftAlone, "a group that was sent a signal is stopped")
		for _, pid := range pidsIn(t, pidfile) {
			assert.False(t, running(pid))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		t.Parallel()
		p, pidfile := startGroup(t, twoSleepers+`exit 0`)
		e := p.Wait(func() bool { return true })
		assert.False(t, e.LeftAlone, "a cancelled run leaves nothing running")
		for _, pid := range pidsIn(t, pidfile) {
			assert.False(t, running(pid))
		}
	})
}
