package main

// Load: many runs back to back and many at once sharing one breaker key.
// No update is lost or counted twice, the state stays small, and neither
// descriptors nor temporary files leak. RETRY_LONG_TESTS=1 runs the full
// sizes (1,000 runs back to back; 64 at once for a minute).

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/slowtest"
)

// longTests reports whether RETRY_LONG_TESTS asks for the full sizes.
func longTests() bool { return os.Getenv("RETRY_LONG_TESTS") != "" }

// loadArgs are the breaker flags of the load tests: a circuit that never
// opens, so that every attempt runs and is counted. The default window
// (60s) holds every run of the default sizes, so `retry breaker status`
// (which counts with the default window) sees them all; the full sizes
// take longer and use a window of an hour, checked in the record itself.
func loadArgs(state string) []string {
	// A window of an hour: a loaded machine took 41 s for the 100 runs
	// back to back, close to the default 60 s, past which the first
	// runs would drop out of the count.
	return []string{"--breaker", "load", "--state", state, "--breaker-min", "1000000", "--breaker-window", "1h", "-n", "1"}
}

// assertCounted checks that the key "load" counts attempts attempts and
// failures failures: in its record, and in `retry breaker status`.
func assertCounted(t *testing.T, state string, attempts, failures int64, msg string) {
	t.Helper()
	data, err := os.ReadFile(recordOf(t, state))
	require.NoError(t, err)
	var rec struct {
		Buckets []struct{ OK, Fail int64 }
	}
	require.NoError(t, json.Unmarshal(data, &rec))
	var ok, fail int64
	for _, b := range rec.Buckets {
		ok, fail = ok+b.OK, fail+b.Fail
	}
	assert.Equal(t, attempts, ok+fail, "%s: attempts in the record", msg)
	assert.Equal(t, failures, fail, "%s: failures in the record", msg)
	if !longTests() {
		st := breakerStatus(t, state, "load", "--breaker-window", "1h")
		assert.EqualValues(t, attempts, st["attempts"], "%s: attempts in the status", msg)
		assert.EqualValues(t, failures, st["failures"], "%s: failures in the status", msg)
	}
}

// assertStateDirTidy checks that state holds the one record, small, and
// its lock file, and nothing else (no temp file of a torn update).
func assertStateDirTidy(t *testing.T, state string) {
	t.Helper()
	entries, err := os.ReadDir(state)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Len(t, names, 2, "%v", names)
	assert.Regexp(t, `^cb-load-[0-9a-f]{32}\.json$`, names[0])
	assert.Equal(t, strings.TrimSuffix(names[0], ".json")+".lock", names[1])
	fi, err := os.Stat(filepath.Join(state, names[0]))
	require.NoError(t, err)
	assert.Less(t, fi.Size(), int64(8<<10), "the record stays small: at most 60 buckets")
}

func TestBackToBackRunsShareOneBreakerWithoutLosingUpdates(t *testing.T) {
	slowtest.Only(t, "100 runs one after another")
	t.Parallel()
	runs := 100
	if longTests() {
		runs = 1000
	}
	dir := t.TempDir()
	state, tmp := filepath.Join(dir, "state"), filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	env := []string{"TMPDIR=" + tmp}
	failed := 0
	for i := range runs {
		program := "true"
		if i%3 == 0 {
			program, failed = "false", failed+1
		}
		r := retry(t, env, append(loadArgs(state), "--", program)...)
		require.NotContains(t, r.stderr, "warning", "run %d", i)
	}
	assertCounted(t, state, int64(runs), int64(failed), "every run counted once")
	assertStateDirTidy(t, state)
	assertEmptyDir(t, tmp)
}

func TestConcurrentRunsShareOneBreakerWithoutLosingUpdates(t *testing.T) {
	slowtest.Only(t, "64 concurrent runs")
	t.Parallel()
	const workers = 64
	duration := 10 * time.Second
	if longTests() {
		duration = time.Minute
	}
	dir := t.TempDir()
	state, tmp := filepath.Join(dir, "state"), filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	env := []string{"TMPDIR=" + tmp}
	// Create the record first: the first update also sweeps the directory.
	retry(t, env, append(loadArgs(state), "--", "true")...)

	var ran, failed, warnedOK, warnedFailed atomic.Int64
	ran.Add(1)
	end := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 0; time.Now().Before(end); i++ {
				fail := (w+i)%4 == 0
				program := "true"
				if fail {
					program = "false"
				}
				r := retry(t, env, append(loadArgs(state), "--", program)...)
				ran.Add(1)
				if fail {
					failed.Add(1)
				}
				// A lock not had within the store's timeout turns the
				// breaker off for that run, with a warning: that run is
				// not counted, by design.
				if strings.Contains(r.stderr, storeWarning) {
					if fail {
						warnedFailed.Add(1)
					} else {
						warnedOK.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d runs by %d workers in %v; %d ran without the breaker (lock busy past the timeout)",
		ran.Load(), workers, duration, warnedOK.Load()+warnedFailed.Load())

	assertCounted(t, state, ran.Load()-warnedOK.Load()-warnedFailed.Load(), failed.Load()-warnedFailed.Load(),
		"no update lost, none counted twice")
	// 64 processes on a 2-core machine: a lock holder waits for a CPU
	// as long as the others wait for the lock, well within the state
	// directory's 5s timeout.
	assert.Zero(t, warnedOK.Load()+warnedFailed.Load(), "runs that went on without the breaker")
	assertStateDirTidy(t, state)
	assertEmptyDir(t, tmp)
}

func TestALongRunLeaksNoDescriptorsOrTemporaryFiles(t *testing.T) {
	t.Parallel()
	const attempts = 40
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	counts := filepath.Join(dir, "fds")
	// Every feature that opens something per attempt: stdin replay, held
	// and scanned output, the hook, the breaker. Each attempt lists
	// retry's descriptors (its parent's) as it starts.
	script := `ls /proc/$PPID/fd | wc -l >> "$0"; head -c 10000 /dev/zero; echo x >&2; exit 1`
	r := retryIn(t, strings.NewReader(strings.Repeat("input\n", 1000)), []string{"TMPDIR=" + tmp},
		"-n", strconv.Itoa(attempts), "--fast", strconv.Itoa(attempts), "--fast-delay", "1ms", "--fast-max", "1ms",
		"--stdout", "buffer", "--drop-failed-output", "--retry-if", "x", "--match-stdout", "--on-retry", "true",
		"--breaker", "fd", "--state", filepath.Join(dir, "state"), "--breaker-min", "1000", "--budget-tokens", "1000",
		"--", "sh", "-c", script, counts)
	assert.Equal(t, 1, r.code, r.stderr)
	lines := awaitLines(t, counts, attempts)
	require.Len(t, lines, attempts)
	// One leaked descriptor per attempt would add 40. Descriptors open
	// for a moment may add a few: the child's pipe ends until retry closes
	// its copies after the start, the orphan reaper reading /proc (a
	// loaded machine once caught 3 of them), the stdout counting pipe and
	// the stderr copy of each attempt (6 once at load 10).
	n := make([]int, attempts)
	for i, l := range lines {
		n[i], _ = strconv.Atoi(l)
	}
	assert.LessOrEqual(t, slices.Max(n)-slices.Min(n), 8, "no growth across attempts: %v", n)
	assert.LessOrEqual(t, slices.Min(n[attempts-10:]), slices.Min(n[:10]), "no growth across attempts: %v", n)
	assertEmptyDir(t, tmp)
}

func TestTwoHundredRunsAtOnceAllKeepTheBreaker(t *testing.T) {
	slowtest.Only(t, "200 concurrent runs")
	t.Parallel()
	// A burst of cron jobs at the top of a minute: 200 runs of one key
	// start at once on a small machine. None may skip the breaker (with
	// the default --state-timeout), and the window counts every one.
	const runs = 200
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	runsDir := filepath.Join(dir, "runs")
	require.NoError(t, os.Mkdir(runsDir, 0o700))
	cmds := make([]*exec.Cmd, runs)
	outs := make([]string, runs)
	for i := range cmds {
		outs[i] = filepath.Join(runsDir, strconv.Itoa(i))
		f, err := os.Create(outs[i])
		require.NoError(t, err)
		cmds[i] = exec.Command(retryBin, append(loadArgs(state), "--", "sh", "-c", "exit 1")...)
		cmds[i].Env = cleanEnv()
		cmds[i].Stderr = f
		require.NoError(t, cmds[i].Start())
		f.Close()
	}
	skipped := 0
	for i, c := range cmds {
		_ = c.Wait()
		assert.Equal(t, 1, exitStatus(c.ProcessState), "run %d", i)
		data, err := os.ReadFile(outs[i])
		require.NoError(t, err)
		if strings.Contains(string(data), "warning") {
			skipped++
			t.Logf("run %d: %s", i, data)
		}
	}
	assert.Zero(t, skipped, "runs that went on without the breaker")
	assertCounted(t, state, runs, runs, "the window holds every run")
}
