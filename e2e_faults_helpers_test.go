package main

// Helpers of the fault-injection tests (e2e_faults_*_test.go): process
// state read from /proc, runs whose output goes to files, and waits on
// real events (a file's lines, a process's state) rather than on time.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// eventLimit bounds every wait for an event that should come at once: long,
// so that only a hang fails a test, never a slow machine.
const eventLimit = 30 * time.Second

// procStat is what /proc/PID/stat says about a process.
type procStat struct {
	state           byte
	ppid, pgrp, sid int
}

// readStat reads /proc/PID/stat; false means no such process (it exited
// and was reaped).
func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	st.sid, _ = strconv.Atoi(f[3])
	return st, true
}

// zombieChildren returns the children of pid that have exited and wait to
// be reaped.
func zombieChildren(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(child); ok && st.ppid == pid && st.state == 'Z' {
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether pid is running (a zombie is not).
func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z'
}

// killOnCleanup kills pids when the test ends: processes that escaped
// retry's reach on purpose.
func killOnCleanup(t *testing.T, pids ...int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// awaitLines waits until path holds at least n lines and returns them.
func awaitLines(t *testing.T, path string, n int) []string {
	t.Helper()
	var lines []string
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(path)
		lines = strings.Fields(string(data))
		return err == nil && len(lines) >= n
	}, eventLimit, 5*time.Millisecond, "%d lines in %s", n, path)
	return lines
}

// awaitPids waits for n process ids written one per line to path.
func awaitPids(t *testing.T, path string, n int) []int {
	t.Helper()
	var pids []int
	for _, l := range awaitLines(t, path, n) {
		pid, err := strconv.Atoi(l)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// exitStatus is the status a shell reports: the exit code, or 128+n when
// a signal killed the process.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// requireDiedOf requires that the process ended by sig itself, as retry
// does when a signal it caught and forwarded stopped it (signals.Die).
func requireDiedOf(t *testing.T, ps *os.ProcessState, sig syscall.Signal, stderr string) {
	t.Helper()
	ws, ok := ps.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled(), "ended by %v, not %s; stderr:\n%s", sig, ps, stderr)
	require.Equal(t, sig, ws.Signal(), stderr)
}

// fileRun is a retry whose stdout and stderr are files, so that nothing
// an escaped grandchild holds open can keep the test waiting.
type fileRun struct {
	cmd          *exec.Cmd
	stdout, errf string
	done         chan struct{}
	start        time.Time
}

func startToFiles(t *testing.T, env []string, args ...string) *fileRun {
	t.Helper()
	return startProgramToFiles(t, env, retryBin, args...)
}

// startProgramToFiles starts program (retry, or a wrapper of it) with its
// output in files.
func startProgramToFiles(t *testing.T, env []string, program string, args ...string) *fileRun {
	t.Helper()
	dir := t.TempDir()
	r := &fileRun{stdout: filepath.Join(dir, "stdout"), errf: filepath.Join(dir, "stderr"), done: make(chan struct{})}
	out, err := os.Create(r.stdout)
	require.NoError(t, err)
	defer out.Close()
	errf, err := os.Create(r.errf)
	require.NoError(t, err)
	defer errf.Close()
	r.cmd = exec.Command(program, args...)
	r.cmd.Env = append(cleanEnv(), env...)
	r.cmd.Stdout, r.cmd.Stderr = out, errf
	require.NoError(t, r.cmd.Start())
	r.start = time.Now()
	go func() {
		_ = r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

// wait waits for retry to exit and returns what it did.
func (r *fileRun) wait(t *testing.T) result {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(time.Minute):
		t.Fatalf("retry did not exit within a minute; stderr:\n%s", r.read(t, r.errf))
	}
	return result{
		code:    exitStatus(r.cmd.ProcessState),
		stdout:  r.read(t, r.stdout),
		stderr:  r.read(t, r.errf),
		elapsed: time.Since(r.start),
	}
}

func (r *fileRun) read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// runToFiles runs retry to its end with its output in files.
func runToFiles(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return startToFiles(t, env, args...).wait(t)
}

// assertEmptyDir checks that dir holds nothing: no temporary file left.
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Empty(t, names, "left in %s", dir)
}
