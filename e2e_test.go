package main

// End-to-end tests: the real retry binary, built once in TestMain, against
// real processes (small sh scripts) and real signals. Timings are short and
// bounds generous: a bound only fails when retry waits for something it
// should not, never because the machine is slow.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryBin is the binary under test, built by TestMain (script_test.go).
var retryBin string

type result struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// lines returns the stderr lines, each checked to carry the retry: prefix.
func (r result) lines(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimRight(r.stderr, "\n"), "\n") {
		if l == "" {
			continue
		}
		assert.True(t, strings.HasPrefix(l, "retry: "), "every line starts with retry: %q", l)
		out = append(out, l)
	}
	return out
}

// retry runs the binary to completion with args and env added to ours.
func retry(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runRetry(t, "", nil, env, args...)
}

// runRetry runs the binary in dir (empty: ours) with stdin (nil: none) and
// env added to ours, and waits for it, at most a minute.
func runRetry(t *testing.T, dir string, stdin io.Reader, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, retryBin, args...)
	c.Dir, c.Stdin = dir, stdin
	c.Env = append(cleanEnv(), env...)
	c.WaitDelay = 10 * time.Second // a killed retry's orphans may hold the pipes
	r := runCmd(t, c)
	require.NoError(t, ctx.Err(), "retry did not finish within a minute")
	return r
}

// runCmd runs c to its end, capturing stdout and stderr, and says how it
// ended; a command that cannot be run fails the test.
func runCmd(t *testing.T, c *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	err := c.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", c.Args, err)
	}
	return r
}

// cleanEnv is our environment without RETRY_* variables, so a test run
// under retry itself is not confused.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RETRY_") {
			env = append(env, kv)
		}
	}
	return env
}

// started is a retry process running in the background, whose stdout and
// stderr lines can be awaited.
type started struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	out   strings.Builder
	lines chan string
	done  chan struct{}
	start time.Time
}

func startRetry(t *testing.T, args ...string) *started {
	t.Helper()
	c := exec.Command(retryBin, args...)
	c.Env = cleanEnv()
	pr, pw := io.Pipe()
	c.Stdout, c.Stderr = pw, pw
	c.WaitDelay = 5 * time.Second // a killed retry's orphans may hold the pipe
	s := &started{cmd: c, lines: make(chan string, 100), done: make(chan struct{})}
	require.NoError(t, c.Start())
	s.start = time.Now()
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.mu.Lock()
			s.out.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		_ = c.Wait()
		pw.Close()
		<-scanned // done means all retry wrote is in the output
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = c.Process.Kill()
		<-s.done
	})
	return s
}

// await waits for a line containing want.
func (s *started) await(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-s.lines:
			if strings.Contains(l, want) {
				return
			}
		case <-s.done:
			t.Fatalf("retry exited before printing %q; output:\n%s", want, s.output())
		case <-timeout:
			t.Fatalf("no line with %q within 30s; output:\n%s", want, s.output())
		}
	}
}

// exit waits for the process to end and returns its status as a shell
// reports it: 128+n for a death by signal n (exitStatus).
func (s *started) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("retry did not exit within 30s; output:\n%s", s.output())
	}
	return exitStatus(s.cmd.ProcessState)
}

func (s *started) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// pidsIn reads the process ids written one per line to path.
func pidsIn(t *testing.T, path string) []int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.NotEmpty(t, pids)
	return pids
}

// assertGone checks that none of pids is running (a zombie waiting for
// its parent does not count: it runs nothing).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			fields := strings.Fields(string(stat))
			if len(fields) > 2 && fields[2] == "Z" {
				continue
			}
			t.Errorf("process %d is still running: %s", pid, stat)
		}
	}
}

// A deadline below a millisecond is named in µs. It stays in Go, with the
// plain binary, which starts the attempt well within 500µs: the race-built
// test binary a script runs may not, and a run whose deadline passes
// before its first attempt gives up after 0 attempts, with another exit
// status.
func TestSubMillisecondDeadlineIsNamedInMicroseconds(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "1", "--deadline", "500us", "--", "sleep", "1")
	assert.Equal(t, 124, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the 500µs deadline")
}

// A text/template reachable anywhere in the binary (cobra runs one for a
// custom version or help template) makes the linker keep every exported
// method of every type: go-redis's thousands doubled the binary, to 17 MB
// stripped, and every start paid for it.
func TestBinaryLetsTheLinkerDropUnusedMethods(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(retryBin)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(data, []byte("reflect.Value.MethodByName")),
		"reflect.Value.MethodByName is linked in: a template or reflection on method names is reachable")
}

// ptyRetry starts retry on a new pseudo-terminal as its controlling terminal,
// as an interactive shell would, and returns the terminal's output so far.
func ptyRetry(t *testing.T, args ...string) (c *exec.Cmd, tty *os.File, output func() string, done chan struct{}) {
	t.Helper()
	c = exec.Command(retryBin, args...)
	c.Env = cleanEnv()
	tty, output, done = ptyStart(t, c)
	return c, tty, output, done
}

// ptyStart starts c on a new pseudo-terminal as its controlling terminal
// and returns the terminal, its output so far, and a channel closed when c
// has exited and its output is read.
func ptyStart(t *testing.T, c *exec.Cmd) (tty *os.File, output func() string, done chan struct{}) {
	t.Helper()
	tty, err := pty.Start(c)
	require.NoError(t, err)
	var mu sync.Mutex
	var buf strings.Builder
	done = make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		b := make([]byte, 4096)
		for {
			n, err := tty.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once no process holds the terminal and all was read
			}
		}
	}()
	go func() {
		_ = c.Wait()
		// What retry wrote before it exited may still be in the terminal's
		// buffer: done means all of it is in output too, unless a process
		// retry left behind holds the terminal open.
		select {
		case <-read:
		case <-time.After(5 * time.Second):
		}
		close(done)
	}()
	t.Cleanup(func() {
		_ = c.Process.Kill()
		<-done
		tty.Close()
	})
	output = func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
	return tty, output, done
}

func awaitOutput(t *testing.T, output func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal within 30s; got:\n%s", want, output())
		}
		time.Sleep(10 * time.Millisecond) // polling the terminal's output, not timing the product
	}
}

func TestCtrlCInATerminalStopsTheChildAndRetry(t *testing.T) {
	// Ctrl-C goes out once the child has become sleep itself: a shell that
	// catches SIGINT between two commands may hold it back until the next
	// command ends, and that is the shell's doing, not retry's.
	pidfile := filepath.Join(t.TempDir(), "pid")
	c, tty, output, done := ptyRetry(t, "--", "sh", "-c", `echo $$ > "$0"; exec sleep 100`, pidfile)
	awaitExec(t, pidfile, "sleep")
	_, err := tty.Write([]byte{3}) // Ctrl-C
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("retry did not exit after Ctrl-C; terminal:\n%s", output())
	}
	assert.Equal(t, 130, exitStatus(c.ProcessState))
	assert.NotContains(t, output(), "attempt 2")
	assertGone(t, pidsIn(t, pidfile))
}

// Ctrl-Z stops the attempt, which has the terminal; retry then stops too,
// so the interactive shell that started it shows the job stopped and
// takes the terminal back; fg brings both back, and Ctrl-C then reaches
// the attempt. Before, retry waited on, the shell never saw a stopped
// job, and Ctrl-C went to a stopped group: the terminal hung.
func TestCtrlZInATerminalSuspendsRetryAsAJobAndFgResumesIt(t *testing.T) {
	send, output, done := interactiveBash(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	send(retryBin + ` -- sh -c 'echo $$ > "$0"; exec sleep 100' ` + pidfile + "\n")
	awaitExec(t, pidfile, "sleep")
	pid := pidsIn(t, pidfile)[0]
	send("\x1a") // Ctrl-Z
	awaitOutput(t, output, "Stopped")
	assert.Equal(t, "T", procState(t, pid), "the attempt is stopped")
	send("fg; echo fg-rc=$?\n")
	require.Eventually(t, func() bool { return procState(t, pid) == "S" }, 30*time.Second, 10*time.Millisecond, "fg continues the attempt")
	send("\x03") // Ctrl-C
	awaitOutput(t, output, "fg-rc=130")
	assert.Contains(t, output(), "retry: giving up on sh after 1 attempt", "Ctrl-C reached the attempt, which fg gave the terminal again")
	assert.NotContains(t, output(), "received SIGINT", "not retry: it is not the foreground group")
	assertGone(t, []int{pid})
	send("exit\n")
	awaitDone(t, done, output)
}

// An attempt started in the background (retry … &) that reads the
// terminal is stopped by SIGTTIN; retry then stops too, so the shell shows
// the job stopped, and fg gives the attempt the terminal to read. Before,
// the shell showed the job running, and fg left the attempt stopped.
func TestABackgroundAttemptReadingTheTerminalStopsTheJobUntilFg(t *testing.T) {
	send, output, done := interactiveBash(t)
	pidfile := filepath.Join(t.TempDir(), "pid")
	send(retryBin + ` -- sh -c 'echo $$ > "$0"; read x; echo "got=$x"' ` + pidfile + " &\n")
	pid := awaitPids(t, pidfile, 1)[0]
	require.Eventually(t, func() bool { return procState(t, pid) == "T" }, 30*time.Second, 10*time.Millisecond, "reading the terminal from the background stops the attempt")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(output(), "Stopped") {
		require.True(t, time.Now().Before(deadline), "the shell never showed the job stopped; terminal:\n%s", output())
		send("jobs\n")
		time.Sleep(100 * time.Millisecond) // asking the shell again, not timing the product
	}
	send("fg\n")
	require.Eventually(t, func() bool { return procState(t, pid) == "S" }, 30*time.Second, 10*time.Millisecond, "fg continues the attempt")
	send("hello\n")
	awaitOutput(t, output, "got=hello")
	send("exit\n")
	awaitDone(t, done, output)
}

// A program that cannot start on a terminal leaves the terminal with
// retry: the child made its own group the foreground before its exec
// failed. Before, the terminal was left with that dead group, and under
// `stty tostop` retry stopped at SIGTTOU writing its give-up line.
func TestAProgramThatCannotStartOnATerminalGivesItBack(t *testing.T) {
	garbage := filepath.Join(t.TempDir(), "garbage")
	require.NoError(t, os.WriteFile(garbage, []byte("\x7fELF\x02\x01\x01\x00"), 0o755))
	c := exec.Command("sh", "-c", `stty tostop && exec "$0" -n 1 -- "$1"`, retryBin, garbage)
	c.Env = cleanEnv()
	_, output, done := ptyStart(t, c)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("retry did not exit; terminal:\n%s", output())
	}
	assert.Equal(t, 126, c.ProcessState.ExitCode(), output())
	assert.Contains(t, output(), "exec format error (exit 126, terminal)")
}

// Ctrl-C from a terminal stops every retry of a foreground job that runs
// several at once (make -j, xargs -P): each gets the SIGINT and forwards
// it. Before, each lent the terminal to its own attempt, the last one
// kept it, and Ctrl-C stopped that attempt alone while the others ran on.
func TestCtrlCStopsEveryRetryOfAParallelForegroundJob(t *testing.T) {
	if help, _ := exec.Command("xargs", "--help").CombinedOutput(); !bytes.Contains(help, []byte("--open-tty")) {
		t.Skip("no xargs -o (GNU findutils) to give the retries the terminal as stdin")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	require.NoError(t, os.WriteFile(script, []byte(`printf '1\n2\n' | xargs -o -P 2 -I{} "$1" -- sh -c 'echo $$ > "$0"; exec sleep 30' "$2/pid{}"`+"\n"), 0o644))
	c := exec.Command("sh", script, retryBin, dir)
	c.Env = cleanEnv()
	tty, output, done := ptyStart(t, c)
	awaitExec(t, filepath.Join(dir, "pid1"), "sleep")
	awaitExec(t, filepath.Join(dir, "pid2"), "sleep")
	pids := append(pidsIn(t, filepath.Join(dir, "pid1")), pidsIn(t, filepath.Join(dir, "pid2"))...)
	killOnCleanup(t, pids...)
	_, err := tty.Write([]byte{3}) // Ctrl-C
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the job did not end after Ctrl-C; terminal:\n%s", output())
	}
	assertGone(t, pids)
	// Each says what stopped it: SIGINT, or the SIGHUP that the session
	// leader's exit sends the foreground group, whichever came first.
	assert.Equal(t, 2, strings.Count(output(), "retry: stopped sh after 1 attempt"), "both retries were stopped and said so:\n%s", output())
}

// An attempt of a retry that is one process of a foreground job (a
// script's, make's) gets the terminal when it reads it: retry lends it at
// the attempt's SIGTTIN, as it no longer does from the start.
func TestAnAttemptInAForegroundJobGetsTheTerminalWhenItReadsIt(t *testing.T) {
	c := exec.Command("sh", "-c", `"$0" -- sh -c 'read x; echo "got=$x"'; echo "after=$?"`, retryBin)
	c.Env = cleanEnv()
	tty, output, done := ptyStart(t, c)
	_, err := tty.Write([]byte("hello\n"))
	require.NoError(t, err)
	awaitOutput(t, output, "after=0")
	assert.Contains(t, output(), "got=hello")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the script did not end; terminal:\n%s", output())
	}
}

// interactiveBash starts bash as an interactive shell with job control on
// a new pseudo-terminal, and returns a way to type into it, its output so
// far, and a channel closed when it has exited. It skips without bash.
func interactiveBash(t *testing.T) (send func(string), output func() string, done chan struct{}) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for an interactive shell with job control")
	}
	c := exec.Command(bash, "--norc", "--noprofile", "-i")
	c.Env = append(cleanEnv(), "PS1=$ ", "TERM=dumb")
	tty, output, done := ptyStart(t, c)
	send = func(s string) {
		t.Helper()
		_, err := tty.Write([]byte(s))
		require.NoError(t, err)
	}
	return send, output, done
}

// awaitDone waits for the shell to exit, at most 30 seconds.
func awaitDone(t *testing.T, done chan struct{}, output func() string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the shell did not exit; terminal:\n%s", output())
	}
}

// procState is the state letter of process pid (R, S, T, Z…), or "" when
// it is gone.
func procState(t *testing.T, pid int) string {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	if !ok || rest == "" {
		return ""
	}
	return rest[:1]
}

// awaitExec waits until the process whose id is in pidfile runs program.
func awaitExec(t *testing.T, pidfile, program string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, err := os.ReadFile(pidfile); err == nil && strings.TrimSpace(string(data)) != "" {
			comm, _ := os.ReadFile("/proc/" + strings.TrimSpace(string(data)) + "/comm")
			if strings.TrimSpace(string(comm)) == program {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child did not become %s within 30s", program)
		}
		time.Sleep(10 * time.Millisecond) // polling the child's state, not timing the product
	}
}

func TestCtrlCDuringAWaitInATerminalStopsRetry(t *testing.T) {
	c, tty, output, done := ptyRetry(t, "--fast", "0", "--jitter", "none", "--slow-delay", "60s", "--slow-max", "60s", "--", "sh", "-c", "exit 1")
	awaitOutput(t, output, "retrying in 1m0s")
	_, err := tty.Write([]byte{3})
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("retry did not exit after Ctrl-C; terminal:\n%s", output())
	}
	assert.Equal(t, 130, exitStatus(c.ProcessState), "retry has the terminal back between attempts")
}
