//go:build unix && !linux

package runner

import "syscall"

// askPidfd asks for nothing: this system has no pidfd (pidfd_linux.go).
func askPidfd(*syscall.SysProcAttr) *int {
	fd := -1
	return &fd
}

// waitPidfd waits for pid as waitPid does.
func waitPidfd(pid, _ int) (syscall.WaitStatus, bool) { return waitPid(pid) }
