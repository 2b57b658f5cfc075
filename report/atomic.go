package report

import (
	"context"
	"io/fs"

	"retry/internal/statefile"
)

// writeFile writes data to path: it replaces a regular file, or creates
// the file, atomically with mode (see statefile.ReplaceShared: concurrent
// runs writing one report take no lock, and the last one wins), and writes
// into a device, a FIFO, a socket or a file descriptor (see target).
func writeFile(ctx context.Context, path string, data []byte, mode fs.FileMode) error {
	t, err := lookTarget(path)
	if err != nil {
		return err
	}
	if t.stream {
		return t.write(ctx, data)
	}
	return statefile.ReplaceShared(t.path, data, mode)
}
