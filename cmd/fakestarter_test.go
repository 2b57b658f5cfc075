package cmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"retry/exitcodes"
	"retry/runner"
)

// fakeAttempt is how one fake attempt behaves.
type fakeAttempt struct {
	// code is the exit code; signal, when set, kills it instead.
	code   int
	signal syscall.Signal
	// start, when set, is the way the program cannot be started
	// (exitcodes.ProgramMissing, exitcodes.ProgramNotExecutable).
	start exitcodes.Start
	// stdout and stderr are written to the attempt's streams as it starts.
	stdout, stderr string
	// takes is how long it runs before it exits by itself; a signal
	// ends it sooner.
	takes time.Duration
}

func exits(code int) fakeAttempt { return fakeAttempt{code: code} }

// fakeStarter plays back scripted attempts in place of processes, the
// last one again for every attempt past the script, and records each
// Command it was asked to start: the attempts' and the hook's and the
// fallback's alike.
type fakeStarter struct {
	script []fakeAttempt

	mu  sync.Mutex
	got []runner.Command
}

func fake(script ...fakeAttempt) *fakeStarter { return &fakeStarter{script: script} }

func (f *fakeStarter) Start(_ context.Context, c runner.Command) (runner.Process, error) {
	f.mu.Lock()
	n := len(f.got)
	c.Args, c.Env = slices.Clone(c.Args), slices.Clone(c.Env)
	f.got = append(f.got, c)
	f.mu.Unlock()
	a := f.script[min(n, len(f.script)-1)]
	if a.start != exitcodes.Started {
		// As exec's lookup words it.
		err := exec.ErrNotFound
		if a.start == exitcodes.ProgramNotExecutable {
			err = fs.ErrPermission
		}
		return nil, &runner.StartError{Program: c.Args[0], Kind: a.start, Err: &exec.Error{Name: c.Args[0], Err: err}}
	}
	write := func(f *os.File, s string) error {
		if s == "" || f == nil {
			return nil
		}
		_, err := f.WriteString(s)
		return err
	}
	if err := errors.Join(write(c.Stdout, a.stdout), write(c.Stderr, a.stderr)); err != nil {
		return nil, err
	}
	return &fakeProcess{attempt: a, signals: make(chan syscall.Signal, 8)}, nil
}

// commands returns the Commands started so far.
func (f *fakeStarter) commands() []runner.Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// envOf returns the value of name in the environment of the nth Command
// (from 0), the last one set winning as in a process's environment.
func (f *fakeStarter) envOf(t *testing.T, n int, name string) string {
	t.Helper()
	got := f.commands()
	require.Greater(t, len(got), n, "no command %d was started", n)
	return lookupEnv(got[n].Env, name)
}

type fakeProcess struct {
	attempt fakeAttempt
	signals chan syscall.Signal
}

func (p *fakeProcess) Signal(sig syscall.Signal) error {
	select {
	case p.signals <- sig:
	default:
	}
	return nil
}

func (p *fakeProcess) Wait(func() bool) runner.Ended {
	end := runner.Ended{Exit: exitcodes.Exit{Code: p.attempt.code}}
	if p.attempt.signal != 0 {
		end.Exit = exitcodes.Signaled(p.attempt.signal)
	}
	if p.attempt.takes <= 0 {
		return end
	}
	t := time.NewTimer(p.attempt.takes)
	defer t.Stop()
	select {
	case <-t.C:
		return end
	case sig := <-p.signals:
		return runner.Ended{Exit: exitcodes.Signaled(sig)}
	}
}

// faked is how an in-process run of retry with a fakeStarter ended.
type faked struct {
	code           int
	stdout, stderr string
	// dir is the run's scratch directory, the home of its environment.
	dir string
}

// lines returns the stderr lines.
func (r faked) lines() []string {
	return strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
}

// runFaked runs Main with args, env added to a bare one, and f starting
// the attempts. Its streams are temporary files (stdin /dev/null); it
// catches only SIGUSR2, which no test sends. It may run inside a
// synctest bubble: see bubbleReady.
func runFaked(t *testing.T, f *fakeStarter, env []string, args ...string) faked {
	t.Helper()
	return runFakedWith(t, f, env, nil, args...)
}

// runFakedWith is runFaked with adjust, when not nil, changing the Deps
// before Main runs.
func runFakedWith(t *testing.T, f *fakeStarter, env []string, adjust func(*Deps), args ...string) faked {
	t.Helper()
	dir := t.TempDir()
	open := func(name string) *os.File {
		file, err := os.Create(filepath.Join(dir, name))
		require.NoError(t, err)
		t.Cleanup(func() { file.Close() })
		return file
	}
	stdin, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { stdin.Close() })
	deps := Deps{
		Stdin: stdin, Stdout: open("stdout"), Stderr: open("stderr"),
		Env:     append([]string{"PATH=/nonexistent", "HOME=" + dir}, env...),
		Starter: f,
		Signals: []os.Signal{syscall.SIGUSR2},
	}
	if adjust != nil {
		adjust(&deps)
	}
	code := Main(context.Background(), args, deps)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(b)
	}
	return faked{code: code, stdout: read("stdout"), stderr: read("stderr"), dir: dir}
}

// bubbleReady starts os/signal's delivery goroutine outside any synctest
// bubble. It starts with the first signal.Notify of the process; started
// inside a bubble, it would belong to it and never exit. Call it before
// synctest.Test in tests that run Main: Main catches signals.
//
// Tests that run Main in a bubble must not run in parallel with tests
// that start processes: while the bubble waits, Main catches SIGCHLD (to
// reap orphans), and a signal delivered to a bubble's channel from outside
// it is a fatal error.
func bubbleReady() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	signal.Stop(c)
}
