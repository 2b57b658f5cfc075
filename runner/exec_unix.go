//go:build unix

package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
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
//
// It starts them with syscall.ForkExec, as os/exec does underneath, but
// without os/exec's probe for pidfd support on its first start (a
// throwaway child, some 30 µs of every run, and as long again in waiting):
// an attempt is signalled as a process group, and its process is our child
// until we wait for it, so its pid is as good a handle as a pidfd.
type Exec struct{}

// Start implements Starter.
func (Exec) Start(_ context.Context, c Command) (Process, error) {
	path, err := exec.LookPath(c.Args[0])
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
	attr := &syscall.SysProcAttr{Setpgid: true}
	tty := -1
	if fd, ok := foregroundTerminal(c.Stdin); ok {
		tty = fd
		attr.Foreground, attr.Ctty = true, fd
	}
	pid, err := forkExec(path, c, attr)
	if err != nil {
		kind := exitcodes.StartFailed
		switch {
		case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOEXEC),
			errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.EISDIR):
			kind = exitcodes.ProgramNotExecutable // a bad interpreter counts as a shell counts it: 126
		}
		return nil, &StartError{Program: c.Args[0], Kind: kind, Err: err}
	}
	return &execProcess{
		pid:       pid,
		pgid:      pid,
		tty:       tty,
		signal:    c.Signal,
		killAfter: c.KillAfter,
	}, nil
}

// forkExec starts path with c's arguments, environment, directory and
// streams (a nil one is /dev/null), as os/exec's Cmd.Start would: the
// last value of a variable set twice wins, and a failure reads as
// os.StartProcess's ("fork/exec PATH: ...").
func forkExec(path string, c Command, attr *syscall.SysProcAttr) (int, error) {
	files := []*os.File{c.Stdin, c.Stdout, c.Stderr}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		if f == nil {
			flag := os.O_WRONLY
			if i == 0 {
				flag = os.O_RDONLY
			}
			null, err := os.OpenFile(os.DevNull, flag, 0)
			if err != nil {
				return 0, err
			}
			defer null.Close()
			files[i] = null
		}
		fds[i] = files[i].Fd()
	}
	pid, err := syscall.ForkExec(path, c.Args, &syscall.ProcAttr{Dir: c.Dir, Env: lastWins(c.Env), Files: fds, Sys: attr})
	runtime.KeepAlive(files) // their descriptors must stay open until the child has its copies
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil
}

// lastWins drops every KEY=VALUE pair whose KEY is set again later, as
// os/exec does: a child's getenv may take the first of two.
func lastWins(env []string) []string {
	seen := make(map[string]bool, len(env))
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(env[i], "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, env[i])
	}
	slices.Reverse(out)
	return out
}

type execProcess struct {
	pid       int
	pgid      int
	tty       int // the terminal lent to the attempt, or -1
	signal    syscall.Signal
	killAfter time.Duration
	killed    atomic.Bool
}

// pidOf returns the process id of p when it is a real process.
func pidOf(p Process) (int, bool) {
	if ep, ok := p.(*execProcess); ok {
		return ep.pid, true
	}
	return 0, false
}

// Signal implements Process: it signals the whole process group.
func (p *execProcess) Signal(sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		p.killed.Store(true)
	}
	err := syscall.Kill(-p.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// Wait implements Process. After the child exits, retry takes the terminal
// back, then stops what is left of the process group: the timeout signal,
// then SIGKILL after the grace period.
func (p *execProcess) Wait() exitcodes.Exit {
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(p.pid, &ws, 0, nil)
	for err == syscall.EINTR {
		_, err = syscall.Wait4(p.pid, &ws, 0, nil)
	}
	exit := exitOf(ws, err)
	if p.tty >= 0 {
		reclaimTerminal(p.tty)
	}
	p.clearGroup()
	return exit
}

// exitOf reads the status of a wait. A wait that failed (only possible if
// something else reaped our child) reads as os/exec reports a process
// whose status is unknown: exit code -1.
func exitOf(ws syscall.WaitStatus, err error) exitcodes.Exit {
	switch {
	case err != nil:
		return exitcodes.Exit{Code: -1}
	case ws.Signaled():
		return exitcodes.Signaled(ws.Signal())
	}
	return exitcodes.Exit{Code: ws.ExitStatus()}
}

// clearGroup makes sure no member of the attempt's process group outlives
// it: members still running get the stop signal, then SIGKILL after the
// grace period. Members orphaned into our care (we are a subreaper on Linux)
// are reaped so their zombies do not count as running.
func (p *execProcess) clearGroup() {
	if !p.groupAlive() {
		return
	}
	sig := p.signal
	if sig == 0 || p.killed.Load() {
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
			return
		}
	}
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
