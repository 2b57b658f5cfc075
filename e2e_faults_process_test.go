package main

// Fault injection with real processes: children that ignore SIGTERM,
// grandchildren that keep the output pipes open or leave the process group,
// orphans, and attempts that exit with output still in their pipes.

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignalledChildThatIgnoresSIGTERMIsKilledWhenTheGracePeriodEnds(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	s := startRetry(t, "-k", "500ms", "--", "sh", "-c",
		`trap "" TERM; echo $$ >> "$0"; sleep 60 & echo $! >> "$0"; echo ready; wait`, pidfile)
	s.await(t, "ready")
	sent := time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, s.exit(t))
	took := time.Since(sent)
	assert.GreaterOrEqual(t, took, 500*time.Millisecond, "the child had its grace period")
	assert.Less(t, took, 20*time.Second, "SIGKILL followed the grace period, not the child's 60s")
	assertGone(t, pidsIn(t, pidfile))
}

func TestGrandchildHoldingTheOutputPipesCannotHangRetry(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"stderr scanned", []string{"--retry-if", "x"}},
		{"stdout and stderr scanned", []string{"--retry-if", "x", "--match-stdout"}},
		{"stdout buffered", []string{"--stdout", "buffer"}},
	} {
		for _, gc := range []struct {
			name    string
			spawn   string
			escapes bool
		}{
			// Stays in the attempt's process group but ignores SIGTERM:
			// SIGKILL after --kill-after ends it, and the pipes close.
			{"in the group ignoring SIGTERM", `(trap "" TERM; echo $$ >> "$0"; exec sleep 60) &`, false},
			// Leaves the group: out of retry's reach, so retry stops
			// waiting for the pipes to close after a bounded drain.
			{"escaped with setsid", `setsid sh -c 'echo $$ >> "$0"; exec sleep 60' "$0" &`, true},
		} {
			t.Run(mode.name+"/"+gc.name, func(t *testing.T) {
				t.Parallel()
				pidfile := filepath.Join(t.TempDir(), "pids")
				script := gc.spawn + ` while [ ! -s "$0" ]; do sleep 0.01; done; echo out; echo err >&2; exit 3`
				args := append(append([]string{"-n", "1", "-k", "300ms"}, mode.args...), "--", "sh", "-c", script, pidfile)
				r := runToFiles(t, nil, args...)
				pids := pidsIn(t, pidfile)
				if gc.escapes {
					killOnCleanup(t, pids...)
				}
				assert.Equal(t, 3, r.code, r.stderr)
				assert.Less(t, r.elapsed, 20*time.Second, "retry did not wait for the grandchild's 60s")
				assert.Contains(t, r.stdout+r.stderr, "out\n", "output written before the exit is kept")
				assert.Contains(t, r.stderr, "err\n")
				if gc.escapes {
					assert.True(t, alive(pids[0]), "a process that left the group is outside retry's reach (documented)")
				} else {
					assertGone(t, pids)
				}
			})
		}
	}
}

func TestOrphansAreReapedWhileTheAttemptStillRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Two orphans adopted by retry (a child subreaper): one left in the
	// attempt's process group, one that left it with setsid. Each exits
	// when told to, while the attempt goes on.
	orphan := `echo $$ >> "$0/pids"; while [ ! -e "$0/go" ]; do sleep 0.01; done`
	script := `(sh -c '` + orphan + `' "$0" &); (setsid sh -c '` + orphan + `' "$0" &); echo ready; exec sleep 60`
	s := startRetry(t, "-k", "200ms", "--", "sh", "-c", script, dir)
	s.await(t, "ready")
	pids := awaitPids(t, filepath.Join(dir, "pids"), 2)
	killOnCleanup(t, pids...)
	for _, pid := range pids {
		require.Eventually(t, func() bool {
			st, ok := readStat(pid)
			return ok && st.ppid == s.cmd.Process.Pid
		}, eventLimit, 5*time.Millisecond, "retry adopted orphan %d", pid)
	}

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	for _, pid := range pids {
		assert.Eventually(t, func() bool { _, ok := readStat(pid); return !ok }, eventLimit, 5*time.Millisecond,
			"orphan %d was reaped, not left a zombie of retry until the attempt ends", pid)
	}
	assert.Empty(t, zombieChildren(s.cmd.Process.Pid))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, s.exit(t))
}

// The reaper starts only once a run has gone on for a while (most are
// over sooner); orphans that exited before it are reaped by its first
// sweep, not left zombies until the attempt ends.
func TestOrphansThatExitBeforeTheReaperStartsAreReapedToo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `(sh -c 'echo $$ >> "$0/pids"' "$0" &); (setsid sh -c 'echo $$ >> "$0/pids"' "$0" &); echo ready; exec sleep 60`
	s := startRetry(t, "-k", "200ms", "--", "sh", "-c", script, dir)
	s.await(t, "ready")
	pids := awaitPids(t, filepath.Join(dir, "pids"), 2)
	for _, pid := range pids {
		assert.Eventually(t, func() bool { _, ok := readStat(pid); return !ok }, eventLimit, 5*time.Millisecond,
			"orphan %d was reaped, not left a zombie of retry until the attempt ends", pid)
	}
	assert.Empty(t, zombieChildren(s.cmd.Process.Pid))
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, s.exit(t))
}

func TestDaemonThatLeavesTheProcessGroupOutlivesRetry(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pid")
	// The documented limit: setsid takes a process out of the attempt's
	// process group, so neither the group's stop signal nor retry's exit
	// reaches it.
	r := runToFiles(t, nil, "-k", "200ms", "--", "sh", "-c",
		`(setsid sh -c 'echo $$ > "$0"; exec sleep 60' "$0" >/dev/null 2>&1 &); while [ ! -s "$0" ]; do sleep 0.01; done`, pidfile)
	pids := pidsIn(t, pidfile)
	killOnCleanup(t, pids...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.True(t, alive(pids[0]), "the daemon still runs after retry exited")
}
