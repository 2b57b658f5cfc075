//go:build unix

package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeOnly reports whether f is open for writing only, so that reading
// it fails (EBADF).
func writeOnly(f *os.File) bool {
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return err == nil && flags&unix.O_ACCMODE == unix.O_WRONLY
}
