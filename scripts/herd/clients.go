package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// killGrace is how long a client has to exit after the harness sends
// SIGTERM to its process group at its deadline, before SIGKILL.
const killGrace = 2 * time.Second

// clientResult is what the harness saw of one client process.
type clientResult struct {
	// Slot is when the client was due to start; Launched and Exited are
	// when it did start and end. All are times since the run began.
	Slot, Launched, Exited time.Duration
	// ExitCode is the process's exit code, -1 when a signal ended it.
	ExitCode int
	// Killed is set when the client outlived its deadline.
	Killed bool
	// Lingered is set when the client exited but its stderr stayed open
	// for killGrace after, held by a descendant or unread on a starved
	// machine; the harness then stopped waiting for it.
	Lingered bool
	// CPU is the user and system time the client and the processes it
	// waited for (curl, sh) used.
	CPU time.Duration
	// Attempts is the number of requests the client reports having made:
	// one error line per failed fetch, plus one if it succeeded.
	Attempts int
	// Tail is the end of the client's stderr, for diagnostics.
	Tail string
	// Err is set when the process could not be started.
	Err error
}

// runClient starts argv in its own process group at once, waits for it
// and reports what happened. At the deadline (timeout) the whole group gets
// SIGTERM, then SIGKILL after killGrace. Times are measured from epoch.
func runClient(ctx context.Context, epoch time.Time, argv, env []string, timeout time.Duration) clientResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
	out := &fetchLog{}
	cmd.Stderr = out

	res := clientResult{Launched: time.Since(epoch)}
	if err := cmd.Start(); err != nil {
		res.Err = err
		res.ExitCode = -1
		res.Exited = time.Since(epoch)
		return res
	}
	err := cmd.Wait()
	res.Exited = time.Since(epoch)
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	res.Killed = ctx.Err() != nil
	res.Lingered = !res.Killed && errors.Is(err, exec.ErrWaitDelay)
	if res.Killed || res.Lingered {
		// Whatever of the group survived is ours to end; the group is
		// gone already if nothing did.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res.Attempts, res.Tail = out.result()
	if res.ExitCode == 0 {
		res.Attempts++
	}
	return res
}

// fetchLog is a client's stderr: it counts the lines in which curl (or
// the fallback client) reports a failed request, and keeps the last bytes
// for diagnostics. It holds no more than a line and a short tail.
type fetchLog struct {
	mu       sync.Mutex
	line     []byte
	failures int
	tail     []byte
}

// maxLine and maxTail bound the memory of a fetchLog.
const (
	maxLine = 4 << 10
	maxTail = 512
)

// Write counts the failure lines in p.
func (f *fetchLog) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tail = append(f.tail, p...)
	if len(f.tail) > maxTail {
		f.tail = append([]byte(nil), f.tail[len(f.tail)-maxTail:]...)
	}
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			f.line = append(f.line, rest[:min(len(rest), maxLine-len(f.line))]...)
			break
		}
		f.line = append(f.line, rest[:min(i, maxLine-len(f.line))]...)
		if isFetchFailure(string(f.line)) {
			f.failures++
		}
		f.line = f.line[:0]
		rest = rest[i+1:]
	}
	return len(p), nil
}

// result returns the failure count, the unterminated last line included,
// and the tail of the output.
func (f *fetchLog) result() (failures int, tail string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	failures = f.failures
	if len(f.line) > 0 && isFetchFailure(string(f.line)) {
		failures++
	}
	return failures, strings.TrimSpace(string(f.tail))
}

// isFetchFailure reports whether line is the one line curl -sS prints when
// a request fails, as in "curl: (22) The requested URL returned error: 503",
// or the fallback client's line of the same shape.
func isFetchFailure(line string) bool {
	name, rest, ok := strings.Cut(line, ": (")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return false
	}
	code, _, ok := strings.Cut(rest, ")")
	if !ok || code == "" {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
