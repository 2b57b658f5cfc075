package main

// Fault injection with real processes: children that ignore SIGTERM,
// grandchildren that keep the output pipes open or leave the process group,
// orphans, and attempts that exit with output still in their pipes.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/slowtest"
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

// The common CI step "start a background service, with retries": what a
// successful attempt deliberately left running in its process group is
// left alone, as a shell (or GNU timeout) leaves it, and retry does not
// wait for it before exiting.
func TestWhatASuccessfulAttemptLeftRunningIsLeftAlone(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"output passed through", nil},
		{"stderr scanned", []string{"--retry-if", "x"}},
		{"stdout and stderr scanned", []string{"--retry-if", "x", "--match-stdout"}},
		{"stdout buffered", []string{"--stdout", "buffer"}},
	} {
		t.Run(mode.name+"/nohup to /dev/null", func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "pid")
			script := `nohup sh -c 'echo $$ > "$0"; exec sleep 600' "$0" >/dev/null 2>&1 & ` +
				`while [ ! -s "$0" ]; do sleep 0.01; done; echo started`
			r := runToFiles(t, nil, append(append([]string{"-k", "200ms"}, mode.args...), "--", "sh", "-c", script, pidfile)...)
			pids := pidsIn(t, pidfile)
			killOnCleanup(t, pids...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "started\n")
			assert.Less(t, r.elapsed, 20*time.Second, "retry did not wait for the service")
			assert.True(t, alive(pids[0]), "the service still runs after retry exited")
		})
		// A service that keeps writing to the output it inherited: when
		// that is a pipe of retry's, its later writes must neither kill it
		// (SIGPIPE) nor be lost: they reach retry's stdout and stderr, as
		// they would without retry. The same goes for one that left the
		// group with setsid (retry used to close the pipe on it after a
		// second, and its next write killed it).
		for _, spawn := range []struct{ name, cmd string }{
			{"in the group", "sh"},
			{"escaped with setsid", "setsid sh"},
		} {
			t.Run(mode.name+"/writing to its output/"+spawn.name, func(t *testing.T) {
				t.Parallel()
				pidfile := filepath.Join(t.TempDir(), "pid")
				script := spawn.cmd + ` -c 'echo $$ > "$0"; while :; do echo tick; echo tock >&2; sleep 0.02; done' "$0" & ` +
					`while [ ! -s "$0" ]; do sleep 0.01; done; echo started`
				r := startToFiles(t, nil, append(append([]string{"-k", "200ms"}, mode.args...), "--", "sh", "-c", script, pidfile)...)
				res := r.wait(t)
				pids := pidsIn(t, pidfile)
				killOnCleanup(t, pids...)
				assert.Equal(t, 0, res.code, res.stderr)
				assert.Less(t, res.elapsed, 20*time.Second, "retry did not wait for the end of the service's output")
				ticks, tocks := strings.Count(res.stdout, "tick"), strings.Count(res.stderr, "tock")
				require.Eventually(t, func() bool {
					return strings.Count(r.read(t, r.stdout), "tick") >= ticks+5 && strings.Count(r.read(t, r.errf), "tock") >= tocks+5
				}, eventLimit, 5*time.Millisecond, "the service's later output reaches retry's stdout and stderr")
				assert.True(t, alive(pids[0]), "the service still runs after retry exited")
				assert.Contains(t, r.read(t, r.stdout), "started\n")
			})
		}
	}
}

// With scanning on and stderr a terminal, the attempt's stderr is a
// pseudo-terminal of retry's: a service left running by a successful
// attempt keeps writing to the real terminal after retry has exited.
func TestServiceLeftRunningKeepsWritingToTheTerminal(t *testing.T) {
	slowtest.Only(t, "waits up to 5 s for the terminal")
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pid")
	script := `sh -c 'echo $$ > "$0"; while :; do echo tock >&2; sleep 0.02; done' "$0" & ` +
		`while [ ! -s "$0" ]; do sleep 0.01; done; echo started`
	c, _, output, done := ptyRetry(t, "--retry-if", "x", "--", "sh", "-c", script, pidfile)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("retry did not exit; terminal:\n%s", output())
	}
	pids := pidsIn(t, pidfile)
	killOnCleanup(t, pids...)
	assert.Equal(t, 0, c.ProcessState.ExitCode(), output())
	tocks := strings.Count(output(), "tock")
	require.Eventually(t, func() bool { return strings.Count(output(), "tock") >= tocks+5 }, eventLimit, 5*time.Millisecond,
		"the service's later output reaches the terminal")
	assert.True(t, alive(pids[0]), "the service still runs after retry exited")
}

// After a failed attempt nothing of it is left running when the next one
// starts, and -v says what was stopped.
func TestWhatAFailedAttemptLeftRunningIsStoppedAndSaid(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "pids")
	script := `sleep 600 & echo $! >> "$0"; sleep 600 & echo $! >> "$0"; ` +
		`[ "$RETRY_ATTEMPT" = 2 ] || exit 1`
	r := runToFiles(t, nil, "-v", "-n", "2", "--fast-delay", "1ms", "-k", "200ms", "--", "sh", "-c", script, pidfile)
	pids := pidsIn(t, pidfile)
	killOnCleanup(t, pids...)
	require.Len(t, pids, 4)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "retry: stopped 2 processes the failed attempt 1 left in its group\n")
	assertGone(t, pids[:2])
	assert.True(t, alive(pids[2]) && alive(pids[3]), "the successful attempt's are left running")
}

// An --on-retry hook that succeeds is a successful command too: what it
// left running keeps running, and, adopted by retry (a child subreaper),
// is reaped when it exits, while the run goes on.
func TestWhatASuccessfulHookLeftRunningIsLeftAloneAndReapedWhenItExits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hook := `sh -c 'echo $$ > "$0/hook"; while [ ! -e "$0/go" ]; do sleep 0.01; done' '` + dir + `' &`
	script := `[ "$RETRY_ATTEMPT" = 2 ] || exit 1; while [ ! -e "$0/end" ]; do sleep 0.01; done`
	r := startToFiles(t, nil, "-n", "2", "--fast-delay", "1ms", "-k", "200ms", "--on-retry", hook, "--", "sh", "-c", script, dir)
	pids := awaitPids(t, filepath.Join(dir, "hook"), 1)
	killOnCleanup(t, pids...)
	require.Eventually(t, func() bool {
		st, ok := readStat(pids[0])
		return ok && st.ppid == r.cmd.Process.Pid
	}, eventLimit, 5*time.Millisecond, "retry adopted what the hook left running")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	assert.Eventually(t, func() bool { _, ok := readStat(pids[0]); return !ok }, eventLimit, 5*time.Millisecond,
		"it exited and was reaped while attempt 2 ran")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "end"), nil, 0o600))
	res := r.wait(t)
	assert.Equal(t, 0, res.code, res.stderr)
}

// The attempt gets the terminal side of retry's pseudo-terminal, never
// retry's side: a process left running would otherwise hold both.
func TestAttemptDoesNotInheritRetrysSideOfThePseudoTerminal(t *testing.T) {
	t.Parallel()
	c, _, output, done := ptyRetry(t, "--retry-if", "x", "--", "sh", "-c", `ls -l /proc/$$/fd/ >&2; echo listed`)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("retry did not exit; terminal:\n%s", output())
	}
	assert.Equal(t, 0, c.ProcessState.ExitCode(), output())
	assert.Contains(t, output(), "listed")
	assert.NotContains(t, output(), "ptmx", "no descriptor of the pseudo-terminal's master side")
}
