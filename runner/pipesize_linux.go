package runner

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeCapacity returns how many bytes the pipe behind rc can hold: its
// size as the kernel reports it, or 1 MiB (the most a user can set) when
// that cannot be asked, as for a pseudo-terminal.
func pipeCapacity(rc syscall.RawConn) int {
	size := 1 << 20
	_ = rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n > 0 {
			size = n
		}
	})
	return size
}

// growPipe asks for a 1 MiB pipe buffer (the most an unprivileged process
// may set), so a fast writer and our copy trade fewer, larger turns; a
// refusal leaves the default, which only costs speed.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 1<<20)
	})
}
