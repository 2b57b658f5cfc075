package runner

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopJob stops our process group with SIGTSTP, as a shell's job is
// stopped by Ctrl-Z, and returns once it has been continued. The signal
// goes to the group (a tee that retry's output is piped into stops too)
// and to this thread: a signal sent to the group alone is taken by any of
// our threads, and this one could run on, lending the terminal back
// before the stop; one sent to the calling thread stops it before the
// call returns.
func stopJob() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = syscall.Kill(0, syscall.SIGTSTP)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), syscall.SIGTSTP)
}
