// Package statefile is how retry's processes share a file: they take turns
// with an exclusive flock(2) on a lock file beside it, and replace the file
// whole, so that a reader, or a crash, finds the old content or the new and
// never a part. The breaker's file store and the metrics file both use it.
//
// Two choices were made by measuring many processes updating one file at
// once (BenchmarkContendedUpdate, figures in docs/benchmarks.md): a busy
// lock is waited for by a flock that blocks in the kernel, in a goroutine,
// not by polling; and a new file is synced to disk before it is renamed into
// place, but its directory is not synced after the rename.
package statefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A BusyError says that another process held a lock for all of the wait.
// It matches context.DeadlineExceeded.
type BusyError struct {
	Path string
	Wait time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("lock %s: still held by another process after %v", e.Path, e.Wait)
}

func (e *BusyError) Unwrap() error { return context.DeadlineExceeded }

// Lock takes an exclusive flock(2) on the lock file at path, created with
// mode perm if missing and left in place, and returns the function that
// releases it. It gives up with a *BusyError when another process holds the
// lock for wait, and with ctx's error when ctx ends first: a holder that is
// stopped, or a file system that never answers, costs at most wait. The
// kernel frees the lock of a process that dies.
//
// The wait is a flock that blocks in a goroutine, so that processes waiting
// cost no CPU and the next one starts as soon as the lock is freed. A wait
// that ends first leaves the goroutine in the kernel; it releases the lock
// as soon as it gets it. A lock file that is not a regular file, or is a
// symbolic link, is refused. A lock file removed by its owner while this
// process waited on it (as the breaker sweeps old records) is no longer
// the lock: Lock then takes the file now at path.
func Lock(ctx context.Context, path string, perm fs.FileMode, wait time.Duration) (unlock func(), err error) {
	giveUp := time.NewTimer(wait)
	defer giveUp.Stop()
	for {
		fd, err := open(path, perm)
		if err != nil {
			return nil, err
		}
		if err := flockWithin(ctx, giveUp.C, fd, path, wait); err != nil {
			return nil, err
		}
		if current(fd, path) {
			return func() { _ = unix.Close(fd) }, nil
		}
		_ = unix.Close(fd)
	}
}

// TryLock takes the lock at path as Lock does if it is free, and does not
// wait if it is not: ok is then false.
func TryLock(path string, perm fs.FileMode) (unlock func(), ok bool, err error) {
	fd, err := open(path, perm)
	if err != nil {
		return nil, false, err
	}
	err = flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if err == nil && current(fd, path) {
		return func() { _ = unix.Close(fd) }, true, nil
	}
	_ = unix.Close(fd)
	if err == nil || errors.Is(err, unix.EWOULDBLOCK) {
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("lock %s: %w", path, err)
}

// open opens the lock file at path, creating it with mode perm. The open
// does not follow a symbolic link and does not block, so a FIFO planted in
// the lock file's place cannot hang it.
func open(path string, perm fs.FileMode) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	switch {
	case errors.Is(err, unix.ELOOP):
		return -1, fmt.Errorf("lock %s: is a symlink; refusing to follow it", path)
	case err != nil:
		return -1, fmt.Errorf("lock: %w", &fs.PathError{Op: "open", Path: path, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		_ = unix.Close(fd)
		return -1, fmt.Errorf("lock %s: not a regular file", path)
	}
	return fd, nil
}

// flockWithin locks fd before giveUp fires or ctx ends. On error it has
// closed fd, or left it to the goroutine still waiting, which closes it.
func flockWithin(ctx context.Context, giveUp <-chan time.Time, fd int, path string, wait time.Duration) error {
	err := flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		_ = unix.Close(fd)
		return fmt.Errorf("lock %s: %w", path, err)
	}
	var mu sync.Mutex // guards abandoned and the send on got
	abandoned := false
	got := make(chan error, 1)
	go func() {
		err := flock(fd, unix.LOCK_EX)
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			_ = unix.Close(fd) // releases the lock, if it was taken
			return
		}
		got <- err
	}()
	var gaveUp error
	select {
	case err = <-got:
	case <-giveUp:
		gaveUp = &BusyError{Path: path, Wait: wait}
	case <-ctx.Done():
		gaveUp = fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
	if gaveUp != nil {
		mu.Lock()
		select {
		case err = <-got: // taken just as the wait ended
		default:
			abandoned = true
		}
		mu.Unlock()
		if abandoned {
			return gaveUp
		}
	}
	if err != nil {
		_ = unix.Close(fd)
		return fmt.Errorf("lock %s: %w", path, err)
	}
	return nil
}

// flock is unix.Flock, tried again when a signal interrupts it.
func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// current reports whether the locked fd is still the file at path.
func current(fd int, path string) bool {
	var held, now unix.Stat_t
	if unix.Fstat(fd, &held) != nil || unix.Lstat(path, &now) != nil {
		return false
	}
	return held.Dev == now.Dev && held.Ino == now.Ino
}

// Replace replaces path with data, mode perm, for a caller that holds
// path's lock: it writes the temporary file .BASE.tmp in the same directory
// (replacing one left by a writer that died), syncs it to disk, and renames
// it over path. A reader sees the old file or the whole new one; after a
// crash at any point path holds the old content or the whole new one. The
// directory is not synced after the rename, so a power cut may undo the
// last replacement, never tear it: a directory sync doubles the time the
// lock is held, which every waiting process pays for (docs/benchmarks.md).
// The temporary name starts with a dot and does not end in path's
// extension, so a collector globbing *.prom never reads it. On error the
// temporary file is removed and path is left as it was.
func Replace(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	tmp := filepath.Join(dir, "."+base+".tmp")
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	return finish(f, path, data, perm, false)
}

// ReplaceShared is Replace for a file that concurrent writers replace
// without a lock, the last one winning (a report file): each writer's
// temporary file has a name of its own, .BASE.*.tmp.
func ReplaceShared(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	return finish(f, path, data, perm, false)
}

// finish writes data into the new temporary file f, sets its mode (whatever
// the umask), syncs it and renames it to path, and then syncs the directory
// if syncDir is set (which only the benchmarks do). On error it removes f.
func finish(f *os.File, path string, data []byte, perm fs.FileMode, syncDir bool) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if syncDir {
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return nil
}
