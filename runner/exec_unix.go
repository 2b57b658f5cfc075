//go:build unix

package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
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
	path, err := lookPath(c.Args[0], c.Env, c.Dir)
	if errors.Is(err, exec.ErrDot) {
		err = nil // a relative PATH entry: run it, as a shell would
	}
	if err != nil {
		kind := exitcodes.ProgramMissing
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) {
			// There, but not a program it may run: 126, as a shell says.
			kind = exitcodes.ProgramNotExecutable
		}
		return nil, &StartError{Program: c.Args[0], Kind: kind, Err: err}
	}
	attr := &syscall.SysProcAttr{Setpgid: true}
	// If retry dies while the attempt runs, the attempt's own process
	// gets the stop signal (SIGKILL without one, as clearGroup has it);
	// the rest of its group is not reached, and no SIGKILL follows.
	stop := c.Signal
	if stop == 0 {
		stop = syscall.SIGKILL
	}
	stopWithRetry(attr, stop)
	pidfd := askPidfd(attr)
	tty, lent := -1, false
	if fd, ok := controllingTerminal(c.Stdin); ok {
		// The attempt gets the terminal at once only when retry is a job
		// of its own, as a shell starts it: one of several processes of
		// a foreground job (make -j, xargs -P, a script) lending it would
		// take Ctrl-C from all the others, which then ran on.
		tty, lent = fd, syscall.Getpgrp() == os.Getpid() && foregroundIsOurs(fd)
		attr.Foreground, attr.Ctty = lent, fd
	}
	pid, err := forkExec(path, c, attr)
	if errors.Is(err, syscall.ENOEXEC) {
		pid, err = runScript(bourneShell, path, c, attr, err)
	}
	if err != nil {
		if lent {
			// The child made its group the terminal's foreground before
			// its exec failed: the group is gone, and retry's own lines
			// would stop at SIGTTOU under `stty tostop`.
			reclaimTerminal(tty)
		}
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
		pidfd:     *pidfd,
		tty:       tty,
		lent:      lent,
		signal:    c.Signal,
		killAfter: c.KillAfter,
	}, nil
}

// bourneShell runs a script that names no interpreter, as execvp does.
const bourneShell = "/bin/sh"

// runScript starts the file at path, which the system would not execute
// (err), with shell when it is a script, as execvp, env, timeout, make and
// the shells themselves run a text file without "#!". When it is not, or
// there is no shell to run it (a distroless image), err stays.
func runScript(shell, path string, c Command, attr *syscall.SysProcAttr, err error) (int, error) {
	file := path
	if c.Dir != "" && !filepath.IsAbs(path) {
		file = filepath.Join(c.Dir, path) // the child runs it from there
	}
	script, readErr := isScript(file)
	if readErr != nil {
		// sh would fail to read it; say so rather than the kernel's
		// "exec format error".
		return 0, &os.PathError{Op: "read script", Path: path, Err: readErr}
	}
	if !script {
		return 0, err
	}
	sh := c
	sh.Args = append([]string{shell, path}, c.Args[1:]...)
	pid, shErr := forkExec(shell, sh, attr)
	if errors.Is(shErr, fs.ErrNotExist) {
		return 0, err
	}
	return pid, shErr
}

// isScript reports whether the file at path, which the system would not
// execute, is a script for the shell, by bash's test: not an ELF program
// (one for another machine), and with no NUL byte in its first 80 bytes
// before the end of its first line; and, unlike bash, not one that names
// an interpreter with "#!" (a #! line the system could not use, such as
// one longer than it allows, names a program that is not sh). It returns
// the error that keeps the file from being read.
func isScript(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var head [80]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	sample := head[:n]
	if bytes.HasPrefix(sample, []byte("\x7fELF")) || bytes.HasPrefix(sample, []byte("#!")) {
		return false, nil
	}
	line, _, _ := bytes.Cut(sample, []byte{'\n'})
	return bytes.IndexByte(line, 0) < 0, nil
}

// forkExec starts the program at path as os/exec would start c, and
// fails as it would, but with syscall.ForkExec: os.StartProcess first
// probes, with a throwaway child, whether the system can give it a pidfd,
// which costs a start of retry some 50 µs for a handle we do not need
// (we wait for the pid, see execProcess.Wait). As os/exec does, a nil
// stream is /dev/null (read-only for stdin, write-only for the others),
// a nil environment is ours with PWD set to Dir, and a variable set twice
// is given its last value.
func forkExec(path string, c Command, attr *syscall.SysProcAttr) (int, error) {
	env, err := childEnv(c.Env, c.Dir)
	if err != nil {
		return 0, err
	}
	files := [3]*os.File{c.Stdin, c.Stdout, c.Stderr}
	for i := range files {
		if files[i] != nil {
			continue
		}
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
	// Fd puts a descriptor the runtime polls (a pipe's) back in blocking
	// mode, as the child expects it and as os.StartProcess does.
	fds := []uintptr{files[0].Fd(), files[1].Fd(), files[2].Fd()}
	// c's files are the caller's, open until Start returns; the ones
	// opened here are closed (so kept) after the fork.
	pid, err := syscall.ForkExec(path, c.Args, &syscall.ProcAttr{Dir: c.Dir, Env: env, Files: fds, Sys: attr})
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil
}

// childEnv is the environment os/exec would give a child whose Env is env
// and whose Dir is dir: ours, with PWD set to dir, when env is nil; each
// variable with its last value; an error for a variable holding a NUL.
func childEnv(env []string, dir string) ([]string, error) {
	if env == nil {
		env = os.Environ()
		if dir != "" {
			pwd, err := filepath.Abs(dir)
			if err != nil {
				return nil, err
			}
			env = append(env, "PWD="+pwd)
		}
	}
	out := make([]string, 0, len(env))
	seen := make(map[string]bool, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, errEnvNUL
		}
		eq := strings.IndexByte(kv, '=')
		if eq == 0 { // a name that starts with "=": the first "=" after it ends it
			eq = strings.IndexByte(kv[1:], '=') + 1
		}
		if eq < 0 {
			if kv != "" {
				out = append(out, kv) // not name=value: passed on as it is
			}
			continue
		}
		if seen[kv[:eq]] {
			continue
		}
		seen[kv[:eq]] = true
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, nil
}

// errEnvNUL is os/exec's error for a variable that holds a NUL, which
// would cut it short in the child.
var errEnvNUL = errors.New("exec: environment variable contains NUL")

type execProcess struct {
	pid       int  // also the id of its process group, which it leads
	pidfd     int  // its pidfd, closed by Wait; -1 for none
	tty       int  // our controlling terminal when it is the attempt's stdin, or -1
	lent      bool // the attempt's group is the terminal's foreground group
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
		return ep.pid, true
	}
	return 0, false
}

// Signal implements Process: it signals the whole process group.
// PassOn sends sig to the attempt's own process alone, as it would reach
// the program without retry, and changes nothing of how the attempt is
// judged: SIGUSR1 to reopen logs must not kill the rest of a pipeline
// (`server | tee log`), whose members would die of it.
func (p *execProcess) PassOn(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftAlone {
		return errLeftAlone
	}
	err := syscall.Kill(p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

func (p *execProcess) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftAlone {
		return errLeftAlone
	}
	p.signalled = true
	p.killed = p.killed || sig == syscall.SIGKILL
	err := signalGroup(p.pid, sig)
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
//
// The child is waited for by its pid. No one else takes its status: the
// orphan reaper (reapOrphans) passes over the pids of a run's processes
// and over every process group leader in our session, which the child is
// from before it runs the program, so even before the run knows its pid.
func (p *execProcess) Wait(cancelled func() bool) Ended {
	var e Ended
	if p.tty >= 0 {
		if p.pidfd >= 0 {
			syscall.Close(p.pidfd)
		}
		var ws syscall.WaitStatus
		var ok bool
		ws, ok, p.lent = waitAsAJob(p.pid, p.tty, p.lent)
		e.Exit = exitOf(ws, ok)
		if p.lent {
			reclaimTerminal(p.tty)
		}
	} else {
		e.Exit = exitOf(waitPidfd(p.pid, p.pidfd))
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

// waitPid waits for our child pid to end and returns its status. It
// retries when a signal interrupts the wait; ok is false when the status
// cannot be had (ECHILD: something else took it).
func waitPid(pid int) (ws syscall.WaitStatus, ok bool) {
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == nil {
			return ws, true
		}
		if err != syscall.EINTR {
			return ws, false
		}
	}
}

// exitOf is how a process whose wait status is ws ended: its exit code,
// or the signal that ended it. A status that could not be had reads as
// os.ProcessState reads it, code -1.
func exitOf(ws syscall.WaitStatus, ok bool) exitcodes.Exit {
	switch {
	case !ok:
		return exitcodes.Exit{Code: -1}
	case ws.Signaled():
		return exitcodes.Signaled(ws.Signal())
	}
	return exitcodes.Exit{Code: ws.ExitStatus()}
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
	running := groupSize(p.pid)
	sig := p.signal
	if sig == 0 || killed {
		sig = syscall.SIGKILL
	}
	_ = signalGroup(p.pid, sig)
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
			_ = syscall.Kill(-p.pid, syscall.SIGKILL)
			stop := time.NewTimer(time.Second)
			defer stop.Stop()
			giveUp = stop.C
		case <-giveUp:
			return running
		}
	}
	return running
}

// signalGroup sends sig to process group pgid and then, unless sig
// stops, continues or kills, SIGCONT: a member stopped by SIGSTOP, or by
// SIGTTIN reading the terminal from the background, acts on the signal
// only once it runs again (as timeout(1) does). Without it a stopped
// attempt outlived its --timeout by the whole grace period.
func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	switch sig {
	case syscall.SIGKILL, syscall.SIGCONT, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
	default:
		if err == nil {
			_ = syscall.Kill(-pgid, syscall.SIGCONT)
		}
	}
	return err
}

// groupAlive reaps any zombie members that are our children and reports
// whether the group still has members.
func (p *execProcess) groupAlive() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-p.pid, &ws, syscall.WNOHANG, nil)
		if err != nil || pid <= 0 {
			break
		}
	}
	return syscall.Kill(-p.pid, 0) == nil
}

// DefaultPath is searched for a program when the environment has no PATH
// at all, as execvp(3) does in glibc, so `env -i retry -- ls` runs ls as
// `env -i ls` does.
const DefaultPath = "/bin:/usr/bin"

// lookPath finds program as a shell would for a command whose environment
// is env and whose working directory is dir (empty: ours): in env's PATH
// (the last one, as a child would see it), or in DefaultPath when env has
// none. A nil env is our own environment. A name with a slash is taken as
// it is; a relative one, and a relative PATH entry, from dir, where the
// child looks for it.
func lookPath(program string, env []string, workDir string) (string, error) {
	if strings.Contains(program, "/") {
		if workDir == "" || filepath.IsAbs(program) {
			return exec.LookPath(program)
		}
		if _, err := exec.LookPath(filepath.Join(workDir, program)); err != nil {
			return "", err
		}
		return program, nil // the child, in workDir, runs it by this name
	}
	if env == nil && workDir == "" {
		return exec.LookPath(program)
	}
	if env == nil {
		env = os.Environ()
	}
	path, set := DefaultPath, false
	for i := len(env) - 1; i >= 0 && !set; i-- {
		path, set = strings.CutPrefix(env[i], "PATH=")
	}
	if !set {
		path = DefaultPath
	}
	for _, entry := range filepath.SplitList(path) {
		if entry == "" {
			entry = "." // an empty entry is the current directory
		}
		candidate := filepath.Join(entry, program)
		if filepath.IsAbs(entry) {
			if found, err := exec.LookPath(candidate); err == nil {
				return found, nil
			}
			continue
		}
		candidate = "." + string(filepath.Separator) + candidate
		if _, err := exec.LookPath(filepath.Join(workDir, candidate)); err == nil {
			return candidate, &exec.Error{Name: program, Err: exec.ErrDot}
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
	path, err := lookPath("cat", os.Environ(), "")
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

// controllingTerminal returns f's descriptor when f is our controlling
// terminal.
func controllingTerminal(f *os.File) (fd int, ok bool) {
	if f == nil {
		return 0, false
	}
	fd = int(f.Fd())
	_, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return fd, err == nil
}

// waitAsAJob waits for our child pid, whose process group may use the
// terminal tty (lent says whether it is the foreground group now), as a
// shell waits for a job. When the group stops for the terminal (SIGTTIN,
// SIGTTOU) while our own group has it, retry lends it the terminal and
// continues it. When it stops otherwise (Ctrl-Z, SIGSTOP, or wanting the
// terminal while our group is in the background), retry takes back the
// terminal if it had lent it, and stops its own group with SIGTSTP, so
// that the shell that started retry sees the job stopped and gets the
// terminal: without it, retry waited on, and the
// terminal stayed with a stopped group that Ctrl-C could not reach, or a
// background attempt waited for input forever. Once continued (fg, or
// bg), retry lends the terminal if its group has it, and continues the
// child's group. In a group no shell controls (an orphaned one), SIGTSTP
// does not stop retry, and the child is continued at once. It returns
// whether the terminal is lent when the child has ended.
func waitAsAJob(pid, tty int, lent bool) (ws syscall.WaitStatus, ok, stillLent bool) {
	for {
		_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return ws, false, lent
		case !ws.Stopped():
			return ws, true, lent
		}
		if !lent && wantsTerminal(ws.StopSignal()) && foregroundIsOurs(tty) {
			// It read or wrote the terminal that our job has: lend it
			// now, as a shell would have from the start.
			lendTerminal(tty, pid)
			lent = true
			_ = syscall.Kill(-pid, syscall.SIGCONT)
			continue
		}
		if lent {
			reclaimTerminal(tty)
			lent = false
		}
		stopJob()
		if foregroundIsOurs(tty) {
			lendTerminal(tty, pid)
			lent = true
		}
		_ = syscall.Kill(-pid, syscall.SIGCONT)
	}
}

// stopJob stops our process group with SIGTSTP, as Ctrl-Z stops a
// shell's job, and returns once it has been continued: when SIGCONT
// arrives. Waiting for it matters: a signal sent to the group is taken by
// any of our threads, and this one would otherwise run on and lend the
// terminal back before the stop. A group no shell controls (an orphaned
// one) is not stopped by SIGTSTP; then retry goes on after a second.
func stopJob() {
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	_ = syscall.Kill(0, syscall.SIGTSTP)
	orphaned := time.NewTimer(time.Second)
	defer orphaned.Stop()
	select {
	case <-cont:
	case <-orphaned.C:
	}
}

// wantsTerminal reports whether a process stopped by sig stopped for
// reading (SIGTTIN) or writing (SIGTTOU) a terminal it does not have.
func wantsTerminal(sig syscall.Signal) bool {
	return sig == syscall.SIGTTIN || sig == syscall.SIGTTOU
}

// foregroundIsOurs reports whether our process group is the terminal's
// foreground group.
func foregroundIsOurs(tty int) bool {
	pgrp, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP)
	return err == nil && pgrp == syscall.Getpgrp()
}

// lendTerminal makes process group pgid the terminal's foreground group,
// as the child's start did. SIGTTOU is ignored for the call, as shells do:
// retry may be in the background at that moment.
func lendTerminal(fd, pgid int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid)
}

// reclaimTerminal makes our process group the terminal's foreground group
// again.
func reclaimTerminal(fd int) { lendTerminal(fd, syscall.Getpgrp()) }
