package main

// retry as PID 1 of a PID namespace, as in a container: signals still
// reach it (from outside and from inside the namespace), orphans are
// reaped, and when it exits nothing of the namespace is left.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pid1 is retry started as PID 1 of a new PID namespace by unshare.
type pid1 struct {
	*fileRun
	// pid is retry's process id outside the namespace; ns names the
	// namespace (the target of /proc/PID/ns/pid).
	pid int
	ns  string
}

// startPID1 runs retry with args as PID 1 of a new PID namespace, or skips
// the test where this machine does not allow one.
func startPID1(t *testing.T, args ...string) *pid1 {
	t.Helper()
	if out, err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "true").CombinedOutput(); err != nil {
		t.Skipf("retry as PID 1 needs unshare --pid --fork --mount-proc, not permitted here: %v: %s", err, out)
	}
	r := &pid1{}
	r.fileRun = startProgramToFiles(t, nil, "unshare", append([]string{"--pid", "--fork", "--mount-proc", retryBin}, args...)...)
	unshare := r.cmd.Process.Pid
	require.Eventually(t, func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if st, ok := readStat(pid); ok && st.ppid == unshare {
				if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); exe == retryBin {
					r.pid = pid
					return true
				}
			}
		}
		return false
	}, eventLimit, 5*time.Millisecond, "retry started under unshare")
	var err error
	r.ns, err = os.Readlink("/proc/" + strconv.Itoa(r.pid) + "/ns/pid")
	require.NoError(t, err)
	return r
}

// inNamespace returns the processes of the namespace that are not zombies.
func (r *pid1) inNamespace() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && ns == r.ns && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestRetryAsPID1HandlesSignalsFromOutsideAndInside(t *testing.T) {
	t.Parallel()
	t.Run("from outside", func(t *testing.T) {
		t.Parallel()
		ready := filepath.Join(t.TempDir(), "ready")
		r := startPID1(t, "-k", "300ms", "--", "sh", "-c", `echo $$ > "$0"; exec sleep 60`, ready)
		awaitLines(t, ready, 1)
		require.NoError(t, syscall.Kill(r.pid, syscall.SIGTERM))
		res := r.wait(t)
		assert.Equal(t, 143, res.code, res.stderr)
		assert.Less(t, res.elapsed, 20*time.Second)
		assert.Empty(t, r.inNamespace())
	})
	t.Run("from inside", func(t *testing.T) {
		t.Parallel()
		// In its namespace PID 1 gets only the signals it handles; retry
		// handles SIGTERM, forwards it to the attempt and stops. The
		// attempt waits until the test has found retry, which could
		// otherwise be gone before a loaded machine's first look.
		found := filepath.Join(t.TempDir(), "found")
		r := startPID1(t, "-k", "300ms", "--", "sh", "-c", `while [ ! -e "$0" ]; do sleep 0.01; done; kill -TERM 1; exec sleep 60`, found)
		require.NoError(t, os.WriteFile(found, nil, 0o600))
		res := r.wait(t)
		assert.Equal(t, 143, res.code, res.stderr)
		assert.Contains(t, res.stderr, "received SIGTERM")
		assert.Less(t, res.elapsed, 20*time.Second)
	})
}

func TestRetryAsPID1ReapsOrphansAndTakesEverythingWithIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Orphans that exit when told to while the attempt runs, one in the
	// attempt's group and one that left it; and a daemon that never exits.
	orphan := `echo $$ >> "$0/pids"; while [ ! -e "$0/go" ]; do sleep 0.01; done`
	script := `(sh -c '` + orphan + `' "$0" &); (setsid sh -c '` + orphan + `' "$0" &); ` +
		`(setsid sleep 600 >/dev/null 2>&1 &); echo x > "$0/ready"; while [ ! -e "$0/end" ]; do sleep 0.01; done; exit 0`
	r := startPID1(t, "-k", "200ms", "--", "sh", "-c", script, dir)
	awaitLines(t, filepath.Join(dir, "ready"), 1)
	awaitLines(t, filepath.Join(dir, "pids"), 2)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	assert.Eventually(t, func() bool { return len(zombieChildren(r.pid)) == 0 && len(r.inNamespace()) <= 4 },
		eventLimit, 5*time.Millisecond, "PID 1 reaped the orphans: left are retry, the attempt, its sleep and the daemon")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "end"), nil, 0o600))
	res := r.wait(t)
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Empty(t, r.inNamespace(), "the daemon that left the group ended with its namespace")
}
