package report

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFile writes data to path: it replaces a regular file, or creates
// the file, atomically with mode (see writeFileAtomic), and writes into a
// device, a FIFO, a socket or a file descriptor (see target).
func writeFile(ctx context.Context, path string, data []byte, mode fs.FileMode) error {
	t, err := lookTarget(path)
	if err != nil {
		return err
	}
	if t.stream {
		return t.write(ctx, data)
	}
	return writeFileAtomic(path, data, mode)
}

// writeFileAtomic replaces path with data so that a reader, or a crash,
// sees either the old file or the whole new one, never a part: it writes a
// temporary file in the same directory (so the rename stays on one file
// system), sets its mode, syncs it to disk, renames it over path and syncs
// the directory. The temporary name starts with a dot and does not end in
// the target's extension, so a collector that globs *.prom never reads it.
// On error the temporary file is removed and path is left as it was.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: some file
// systems cannot sync a directory, and the file itself is already whole.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
