package runner

import (
	"os"
	"syscall"
)

// askPidfd makes the fork that attr starts return a pidfd for the child
// (clone's CLONE_PIDFD) in the int it returns, which stays -1 when the
// kernel gives none (before Linux 5.2).
func askPidfd(attr *syscall.SysProcAttr) *int {
	fd := -1
	attr.PidFD = &fd
	return &fd
}

// waitPidfd is waitPid for a child whose pidfd (or -1) retry holds: it
// waits in the runtime's poller for the pidfd to read as ready, which it
// does once the child has exited, as a pipe's read waits. A blocking
// wait4 holds a thread for as long as the child runs, and the runtime
// starts another for the goroutines left, which costs every start of
// retry (docs/benchmarks.md). Where the pidfd cannot be polled, it waits
// as waitPid does. pidfd is closed.
func waitPidfd(pid, pidfd int) (syscall.WaitStatus, bool) {
	if pidfd < 0 {
		return waitPid(pid)
	}
	if err := syscall.SetNonblock(pidfd, true); err != nil {
		syscall.Close(pidfd)
		return waitPid(pid)
	}
	f := os.NewFile(uintptr(pidfd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return waitPid(pid)
	}
	var ws syscall.WaitStatus
	reaped, ok := false, false
	err = rc.Read(func(uintptr) bool {
		for {
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil: // ECHILD: something else took the status
				reaped = true
			case got == pid:
				reaped, ok = true, true
			}
			return reaped // false: still running, wait for the pidfd
		}
	})
	if err != nil && !reaped {
		return waitPid(pid)
	}
	return ws, ok
}
