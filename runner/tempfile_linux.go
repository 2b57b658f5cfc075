package runner

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// privateTemp opens a new file in dir (os.TempDir when empty) that no name
// points to, readable and writable by its owner only. O_TMPFILE makes the
// file nameless from the start, so no other process can see or open it
// even for an instant; filesystems without it get a named file that is
// unlinked at once.
func privateTemp(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return unlinkedTemp(dir)
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "retry-spool")), nil
}
