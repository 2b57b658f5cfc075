package runner

import (
	"context"
	"errors"
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
	// Signal sends sig to the attempt's whole process group. Once Wait has
	// left the group alone, it sends nothing and returns an error.
	Signal(sig syscall.Signal) error
	// Wait blocks until the attempt's process has exited and reports how
	// it ended and what became of the rest of its process group: left
	// alone when the attempt succeeded (it exited 0, was sent no signal,
	// and cancelled, asked once it has exited, says false), otherwise
	// stopped (Command.Signal, then SIGKILL after KillAfter) before Wait
	// returns.
	Wait(cancelled func() bool) Ended
}

// Ended is how an attempt's process ended, and what became of the rest
// of its process group.
type Ended struct {
	Exit exitcodes.Exit
	// LeftAlone is set when the attempt succeeded and what it left
	// running in its process group (a service started in the background)
	// was left running.
	LeftAlone bool
	// Stopped counts the processes still running in the group after the
	// attempt's process exited, which were then stopped; -1 when there
	// were some but the system cannot count them.
	Stopped int
}

// errLeftAlone is returned by Signal once the process group of a
// successful attempt has been left alone.
var errLeftAlone = errors.New("the process group of a successful attempt is left alone")

// succeeded reports whether exit is a success, whatever the rules: a
// process that exited 0 of itself.
func succeeded(exit exitcodes.Exit) bool {
	return exitcodes.Classify(exit).Class == exitcodes.Success
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
