package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeUnread returns how many bytes wait in the pipe whose read end is r,
// not yet read; ok is false when the system cannot say.
func pipeUnread(r *os.File) (n int, ok bool) {
	n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
	return n, err == nil
}
