//go:build unix && !linux

package runner

import "syscall"

// stopJob stops our process group with SIGTSTP, as a shell's job is
// stopped by Ctrl-Z (jobstop_linux.go). Without a way to signal this
// thread alone, it may run on briefly before the stop.
func stopJob() {
	_ = syscall.Kill(0, syscall.SIGTSTP)
}
