package runner

import (
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
