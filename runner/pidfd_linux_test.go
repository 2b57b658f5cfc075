package runner

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startWithPidfd starts sh -c script as Exec starts an attempt's process,
// with a pidfd (-1 when the kernel gives none).
func startWithPidfd(t *testing.T, script string) (pid, pidfd int) {
	t.Helper()
	attr := &syscall.SysProcAttr{Setpgid: true}
	fd := askPidfd(attr)
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", script}, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: attr})
	require.NoError(t, err)
	return pid, *fd
}

func TestWaitPidfdReportsHowTheChildEnded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script string
		pidfd  bool
		want   func(t *testing.T, ws syscall.WaitStatus)
	}{
		{"exit 3", true, func(t *testing.T, ws syscall.WaitStatus) { assert.Equal(t, 3, ws.ExitStatus()) }},
		{"exit 3", false, func(t *testing.T, ws syscall.WaitStatus) { assert.Equal(t, 3, ws.ExitStatus()) }},
		{"kill -TERM $$", true, func(t *testing.T, ws syscall.WaitStatus) {
			assert.True(t, ws.Signaled())
			assert.Equal(t, syscall.SIGTERM, ws.Signal())
		}},
		{"sleep 0.2; exit 4", true, func(t *testing.T, ws syscall.WaitStatus) { assert.Equal(t, 4, ws.ExitStatus()) }},
	} {
		pid, pidfd := startWithPidfd(t, tc.script)
		if !tc.pidfd { // as on a kernel without CLONE_PIDFD
			if pidfd >= 0 {
				syscall.Close(pidfd)
			}
			pidfd = -1
		}
		ws, ok := waitPidfd(pid, pidfd)
		require.True(t, ok, "%s: the status was had", tc.script)
		tc.want(t, ws)
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "%s: reaped, no zombie left", tc.script)
	}
}

// threads returns how many threads this process has.
func threads(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.Lines(string(status)) {
		if n, ok := strings.CutPrefix(line, "Threads:"); ok {
			count, err := strconv.Atoi(strings.TrimSpace(n))
			require.NoError(t, err)
			return count
		}
	}
	t.Fatal("no Threads: line in /proc/self/status")
	return 0
}

// Waiting for an attempt holds no thread: a blocking wait4 did, and the
// runtime started another for the goroutines left, which every start of
// retry paid for. Not parallel: other tests' threads would blur the count.
func TestWaitingForChildrenHoldsNoThreads(t *testing.T) {
	const children = 24
	type child struct{ pid, pidfd int }
	var started []child
	for range children {
		pid, pidfd := startWithPidfd(t, "exec sleep 30")
		if pidfd < 0 {
			syscall.Kill(pid, syscall.SIGKILL)
			waitPid(pid)
			t.Skip("this kernel gives no pidfd (CLONE_PIDFD, Linux 5.2): attempts are waited for with wait4")
		}
		started = append(started, child{pid, pidfd})
	}
	before := threads(t)
	done := make(chan struct{}, children)
	for _, c := range started {
		go func() {
			waitPidfd(c.pid, c.pidfd)
			done <- struct{}{}
		}()
	}
	time.Sleep(100 * time.Millisecond) // time for waits that block a thread to have started threads
	during := threads(t)
	for _, c := range started {
		syscall.Kill(c.pid, syscall.SIGKILL)
	}
	for range children {
		<-done
	}
	assert.Less(t, during-before, children/3, "%d children waited for, %d threads before the waits, %d during", children, before, during)
}
