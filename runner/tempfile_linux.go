package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// privateTemp opens a new file in dir (os.TempDir when empty) that no name
// points to, readable and writable by its owner only. O_TMPFILE makes the
// file nameless from the start, so no other process can see or open it
// even for an instant, and O_EXCL keeps it from ever being given a name;
// file systems without O_TMPFILE get a named file that is unlinked at once.
func privateTemp(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.OpenFile(dir, unix.O_TMPFILE|unix.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return unlinkedTemp(dir)
	}
	return f, nil
}
