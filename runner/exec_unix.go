//go:build unix

package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"retry/exitcodes"
)

// Exec starts real processes, each attempt in a process group of its own so
// that a timeout or a forwarded signal reaches its grandchildren too. When
// our stdin is the terminal and we are in its foreground, the attempt's
// group is made the foreground group for as long as it runs, so the child can
// read the terminal and Ctrl-C reaches it; retry takes the terminal back when
// the attempt ends.
type Exec struct{}

// Start implements Starter.
func (Exec) Start(_ context.Context, c Command) (Process, error) {
	path, err := lookPath(c.Args[0], c.Env)
	if errors.Is(err, exec.ErrDot) {
		err = nil // a relative PATH entry: run it, as a shell would
	}
	if err != nil {
		kind := exitcodes.ProgramMissing
		if errors.Is(err, fs.ErrPermission) {
			kind = exitcodes.ProgramNotExecutable
		}
		return nil, &StartError{Program: c.Args[0], Kind: kind, Err: err}
	}
	cmd := &exec.Cmd{Path: path, Args: c.Args, Env: c.Env, Dir: c.Dir}
	// A nil *os.File must stay a nil interface, which exec turns into
	// /dev/null.
	if c.Stdin != nil {
		cmd.Stdin = c.Stdin
	}
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	attr := &syscall.SysProcAttr{Setpgid: true}
	tty := -1
	if fd, ok := foregroundTerminal(c.Stdin); ok {
		tty = fd
		attr.Foreground, attr.Ctty = true, fd
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		kind := exitcodes.StartFailed
		switch {
		case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOEXEC),
			errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.EISDIR):
			kind = exitcodes.ProgramNotExecutable // a bad interpreter counts as a shell counts it: 126
		}
		return nil, &StartError{Program: c.Args[0], Kind: kind, Err: err}
	}
	return &execProcess{
		cmd:       cmd,
		pgid:      cmd.Process.Pid,
		tty:       tty,
		signal:    c.Signal,
		killAfter: c.KillAfter,
	}, nil
}

type execProcess struct {
	cmd       *exec.Cmd
	pgid      int
	tty       int // the terminal lent to the attempt, or -1
	signal    syscall.Signal
	killAfter time.Duration

	mu        sync.Mutex
	signalled bool // a signal was sent to the group
	killed    bool // SIGKILL was sent to the group
	leftAlone bool // the group of a successful attempt is not ours any more
}

// pidOf returns the process id of p when it is a real process.
func pidOf(p Process) (int, bool) {
	if ep, ok := p.(*execProcess); ok {
		return ep.cmd.Process.Pid, true
	}
	return 0, false
}

// Signal implements Process: it signals the whole process group.
func (p *execProcess) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftAlone {
		return errLeftAlone
	}
	p.signalled = true
	p.killed = p.killed || sig == syscall.SIGKILL
	err := syscall.Kill(-p.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// Wait implements Process. After the child exits, retry takes the terminal
// back; then it leaves the rest of the process group alone if the attempt
// succeeded, and otherwise stops it: the stop signal, then SIGKILL after
// the grace period. The decision and every Signal are made under one
// lock, so a signal sent to the group always means that it is stopped.
func (p *execProcess) Wait(cancelled func() bool) Ended {
	_ = p.cmd.Wait() // the status is in ProcessState
	e := Ended{Exit: exitOf(p.cmd.ProcessState)}
	if p.tty >= 0 {
		reclaimTerminal(p.tty)
	}
	p.mu.Lock()
	p.leftAlone = !p.signalled && succeeded(e.Exit) && !cancelled()
	e.LeftAlone = p.leftAlone
	killed := p.killed
	p.mu.Unlock()
	if !e.LeftAlone {
		e.Stopped = p.clearGroup(killed)
	}
	return e
}

func exitOf(ps *os.ProcessState) exitcodes.Exit {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return exitcodes.Signaled(ws.Signal())
	}
	return exitcodes.Exit{Code: ps.ExitCode()}
}

// clearGroup makes sure no member of the attempt's process group outlives
// it: members still running get the stop signal (SIGKILL at once when
// the group was killed already), then SIGKILL after the grace period.
// Members orphaned into our care (we are a subreaper on Linux) are reaped
// so their zombies do not count as running. It returns how many members
// were running (-1 for some, when the system cannot count them).
func (p *execProcess) clearGroup(killed bool) int {
	if !p.groupAlive() {
		return 0
	}
	running := groupSize(p.pgid)
	sig := p.signal
	if sig == 0 || killed {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.pgid, sig)
	grace := time.NewTimer(p.killAfter)
	defer grace.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	// After SIGKILL the members die at once; give them a second to be
	// reaped before giving up on the group rather than hanging.
	var giveUp <-chan time.Time
	for p.groupAlive() {
		select {
		case <-tick.C:
		case <-grace.C:
			_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
			stop := time.NewTimer(time.Second)
			defer stop.Stop()
			giveUp = stop.C
		case <-giveUp:
			return running
		}
	}
	return running
}

// groupAlive reaps any zombie members that are our children and reports
// whether the group still has members.
func (p *execProcess) groupAlive() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-p.pgid, &ws, syscall.WNOHANG, nil)
		if err != nil || pid <= 0 {
			break
		}
	}
	return syscall.Kill(-p.pgid, 0) == nil
}

// DefaultPath is searched for a program when the environment has no PATH
// at all, as execvp(3) does in glibc, so `env -i retry -- ls` runs ls as
// `env -i ls` does.
const DefaultPath = "/bin:/usr/bin"

// lookPath finds program as a shell would for a command whose environment
// is env: in env's PATH (the last one, as a child would see it), or in
// DefaultPath when env has none. A nil env is our own environment. A name
// with a slash is taken as it is.
func lookPath(program string, env []string) (string, error) {
	if env == nil || strings.Contains(program, "/") {
		return exec.LookPath(program)
	}
	path, set := DefaultPath, false
	for i := len(env) - 1; i >= 0 && !set; i-- {
		path, set = strings.CutPrefix(env[i], "PATH=")
	}
	if !set {
		path = DefaultPath
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "." // an empty entry is the current directory
		}
		candidate := filepath.Join(dir, program)
		if !filepath.IsAbs(dir) {
			candidate = "." + string(filepath.Separator) + candidate
		}
		if found, err := exec.LookPath(candidate); err == nil {
			if !filepath.IsAbs(dir) {
				return found, &exec.Error{Name: program, Err: exec.ErrDot}
			}
			return found, nil
		}
	}
	return "", &exec.Error{Name: program, Err: exec.ErrNotFound}
}

// forward starts a process that copies what comes out of r to w (to
// nowhere when w is nil) until r ends, which is when the last writer of
// the pipe has closed it: `cat`, in a process group of its own, with an
// empty environment. It takes over from retry an output pipe still held
// by what a successful attempt left running, so that its writes keep
// going where they would go without retry, and retry can exit. If w's
// reader goes away, cat dies of SIGPIPE and the writer meets a pipe with
// no reader, as it would have met w. A goroutine waits for it, so that it
// is reaped should it end while retry runs; retry never waits for it.
func forward(r, w *os.File) error {
	path, err := lookPath("cat", os.Environ())
	if err != nil {
		return err
	}
	// Our end may be in non-blocking mode (a pseudo-terminal's is), which
	// cat would take for an error as soon as the pipe is empty.
	if err := syscall.SetNonblock(int(r.Fd()), false); err != nil {
		return err
	}
	cmd := &exec.Cmd{Path: path, Args: []string{"cat"}, Env: []string{}, Stdin: r,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if w != nil {
		cmd.Stdout = w
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// foregroundTerminal returns f's descriptor when f is a terminal whose
// foreground process group is ours.
func foregroundTerminal(f *os.File) (int, bool) {
	if f == nil {
		return 0, false
	}
	fd := int(f.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil {
		return 0, false
	}
	return fd, pgrp == syscall.Getpgrp()
}

// reclaimTerminal makes our process group the terminal's foreground group
// again. We are in the background at that moment, so SIGTTOU is ignored for
// the call, as shells do.
func reclaimTerminal(fd int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, syscall.Getpgrp())
}
