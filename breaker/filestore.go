package breaker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"retry/internal/statefile"
)

// fileStore keeps one JSON file per record in a directory only its owner
// can write. Readers read without locking: every file is replaced whole by
// rename, so a reader sees the old record or the new one. Writers take an
// exclusive flock on the record's own lock file for one read-modify-write,
// so runs of different keys never wait for each other.
type fileStore struct {
	dir     string
	timeout time.Duration
}

// maxFileSize bounds what is read from a state file; a larger one is
// garbage.
const maxFileSize = 1 << 20

// openFiles opens the state directory dir, creating it (and any missing
// parents) with mode 0700.
func openFiles(dir string, timeout time.Duration) (*fileStore, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("state dir %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	s := &fileStore{dir: abs, timeout: timeout}
	if err := s.checkDir(); err != nil {
		return nil, err
	}
	return s, nil
}

// checkDir refuses a state directory that is a symlink, is not a
// directory, belongs to another user or can be written by others: any of
// these would let someone else plant or redirect state files.
func (s *fileStore) checkDir() error {
	fi, err := os.Lstat(s.dir)
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("state dir %s: is a symlink; refusing to follow it", s.dir)
	case !fi.IsDir():
		return fmt.Errorf("state dir %s: not a directory", s.dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("state dir %s: mode %v lets others write; want 0700", s.dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("state dir %s: owned by uid %d, not by us (uid %d)", s.dir, st.Uid, os.Geteuid())
	}
	return nil
}

func (s *fileStore) path(name string) string { return filepath.Join(s.dir, name) }

// Get reads a record without locking.
func (s *fileStore) Get(ctx context.Context, kind Kind, id string) ([]byte, error) {
	if err := s.checkDir(); err != nil {
		return nil, err
	}
	return s.read(recordFile(kind, id))
}

// read returns the content of the state file name, or nil if it does not
// exist. It refuses symlinks and anything but a regular file; the open is
// non-blocking so a FIFO planted in its place cannot hang it.
func (s *fileStore) read(name string) ([]byte, error) {
	f, err := os.OpenFile(s.path(name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("state file %s: is a symlink; refusing to follow it", s.path(name))
	case err != nil:
		return nil, fmt.Errorf("state file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("state file %s: not a regular file", s.path(name))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	if data == nil {
		data = []byte{} // present but empty: garbage, not absent
	}
	return data, nil
}

// lock takes the exclusive lock of the record file name within the
// store's timeout and returns the function that releases it (see
// statefile.Lock: a lock file that sweep removed while this process waited
// on it is no longer the record's lock, and the new one is taken).
func (s *fileStore) lock(ctx context.Context, name string) (unlock func(), err error) {
	if err := s.checkDir(); err != nil {
		return nil, err
	}
	return statefile.Lock(ctx, s.path(lockFile(name)), 0o600, lockWait(ctx, s.timeout))
}

// Update runs one read-modify-write under the lock.
func (s *fileStore) Update(ctx context.Context, kind Kind, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	name := recordFile(kind, id)
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := s.read(name)
	if err != nil {
		return err
	}
	data, err := fn(old)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(data, old) {
		return nil
	}
	if err := s.write(name, data); err != nil {
		return err
	}
	if old == nil {
		// A new file is rare (once per key or run): sweep out the
		// files of its kind that nobody has touched for ttl.
		s.sweep(kind, ttl)
	}
	return nil
}

// write replaces the state file name with data atomically (see
// statefile.Replace). The caller holds the lock.
func (s *fileStore) write(name string, data []byte) error {
	if err := statefile.Replace(s.path(name), data, 0o600); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}

// sweep removes the records of kind not modified for ttl, with their probe
// claims and lock files, as Redis expires keys. Each is removed under its
// own lock, taken only if free: a record in use is not stale. Errors are
// ignored: a file that stays is only untidy.
func (s *fileStore) sweep(kind Kind, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-ttl)
	prefix := string(kind) + "-"
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, ".json")
		if !ok || !strings.HasPrefix(name, prefix) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			s.remove(base, cutoff)
		}
	}
}

// remove deletes the record with file base base, its probe claim and its
// lock file, if its lock is free and it is still older than cutoff.
func (s *fileStore) remove(base string, cutoff time.Time) {
	lockPath := s.path(base + ".lock")
	unlock, ok, err := statefile.TryLock(lockPath, 0o600)
	if err != nil || !ok {
		return
	}
	defer unlock()
	fi, err := os.Lstat(s.path(base + ".json"))
	if err != nil || !fi.ModTime().Before(cutoff) {
		return
	}
	_ = os.Remove(s.path(base + ".json"))
	_ = os.Remove(s.path(base + ".probe"))
	// Last, so that a run waiting on this lock file finds it gone once
	// it has it, and takes the new one.
	_ = os.Remove(lockPath)
}

// Claim takes a probe claim under the lock; the claim lives in its own
// file next to the circuit's record.
func (s *fileStore) Claim(ctx context.Context, id string, gen uint64, now time.Time, ttl time.Duration) (bool, time.Duration, error) {
	unlock, err := s.lock(ctx, recordFile(Circuit, id))
	if err != nil {
		return false, 0, err
	}
	defer unlock()
	name := claimFile(id)
	old, err := s.read(name)
	if err != nil {
		return false, 0, err
	}
	next, granted, wait := claimProbe(decodeClaim(old), gen, now, ttl)
	if !granted {
		return false, wait, nil
	}
	data, err := encodeClaim(next)
	if err != nil {
		return false, 0, err
	}
	if err := s.write(name, data); err != nil {
		return false, 0, err
	}
	return true, 0, nil
}

// List reads every record of kind without locking.
func (s *fileStore) List(ctx context.Context, kind Kind) ([]Item, error) {
	if err := s.checkDir(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	var items []Item
	prefix := string(kind) + "-"
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := s.read(name)
		if data != nil || err != nil {
			items = append(items, Item{Where: s.path(name), Data: data, Err: err})
		}
	}
	return items, nil
}

// Close does nothing: the store holds no open files between operations.
func (s *fileStore) Close() error { return nil }
