package runner

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"retry/exitcodes"
)

// Command is one attempt's process as the Starter should start it.
type Command struct {
	// Args is the argv; Args[0] is the program, looked up in PATH.
	Args []string
	// Env is the complete environment of the child.
	Env []string
	// Dir is the working directory; empty means ours.
	Dir string
	// Stdin, Stdout and Stderr are handed to the child as they are.
	Stdin, Stdout, Stderr *os.File
	// Signal is sent to leftover members of the process group after the
	// child exits, and KillAfter later SIGKILL if any remain.
	Signal    syscall.Signal
	KillAfter time.Duration
}

// Starter starts the process of one attempt. The real one (Exec) starts an
// operating-system process in its own process group; tests substitute fakes.
type Starter interface {
	Start(ctx context.Context, c Command) (Process, error)
}

// Process is a started attempt.
type Process interface {
	// Signal sends sig to the attempt's whole process group.
	Signal(sig syscall.Signal) error
	// Wait blocks until the attempt has ended and nothing of it is left
	// running, and reports how it ended.
	Wait() exitcodes.Exit
}

// StartError is returned by a Starter when the program could not be
// started; Kind says whether it was missing or not executable.
type StartError struct {
	Program string
	Kind    exitcodes.Start
	Err     error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("start %q: %v", e.Program, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// pidSet is a set of process ids, safe for concurrent use.
type pidSet struct {
	mu   sync.Mutex
	pids map[int]bool
}

func newPidSet() *pidSet { return &pidSet{pids: map[int]bool{}} }

func (s *pidSet) add(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pids[pid] = true
}

func (s *pidSet) remove(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pids, pid)
}

func (s *pidSet) has(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids[pid]
}
