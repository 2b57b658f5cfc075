//go:build unix

package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ReaderWait is how long a report or metrics written into a FIFO waits for
// a reader to open it, and then for the reader to take the data: a FIFO
// nobody reads costs a run at most this long (twice, for both files), then
// a warning.
const ReaderWait = 2 * time.Second

// fifoPollInterval is how often a FIFO without a reader is tried again.
const fifoPollInterval = 10 * time.Millisecond

// maxLinks bounds the symbolic links followed from a report or metrics
// path, as the kernel's own limit does (ELOOP).
const maxLinks = 40

// A target is what a --report or --metrics-file path leads to. A regular
// file, or a path that does not exist yet, is replaced atomically (see
// statefile.ReplaceShared). A symbolic link is written into, never
// replaced: what it leads to is (a regular file replaced atomically in its
// own directory, a file created where a dangling link points), and the
// link stays. A link that Linux's fs.protected_symlinks would not follow
// (in a sticky, world-writable directory such as /tmp, owned by neither us
// nor the directory's owner) is refused, so that root never writes through
// a link someone else planted in a shared directory. Anything else is a
// stream and is written into, never replaced: a character device, a FIFO,
// a socket, or a file descriptor (/dev/fd/N, /proc/self/fd/N, and links to them such
// as /dev/stderr), whatever the descriptor refers to. A block device is
// refused.
type target struct {
	path string
	// stream is set when the path is written into, not replaced.
	stream bool
	// fd is the descriptor of ours the path names, -1 for none.
	fd int
	// kind is the type of what the path leads to, for a stream that is
	// not one of our descriptors: fs.ModeNamedPipe, fs.ModeSocket,
	// fs.ModeDevice (with fs.ModeCharDevice for a character device), or 0
	// for another process's descriptor, which may be a regular file.
	kind fs.FileMode
}

// lookTarget finds what path leads to, following symbolic links one at a
// time, so that a link into /proc/PID/fd is seen for the descriptor it is
// rather than for what the descriptor refers to.
func lookTarget(path string) (target, error) {
	p := path
	for range maxLinks {
		// What is replaced is where the links led: the path itself
		// when there were none.
		replace := target{path: p, fd: -1}
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if errors.Is(err, fs.ErrNotExist) {
			return replace, nil // creating the file will say what is missing
		}
		if err != nil {
			return target{}, err
		}
		name := filepath.Base(p)
		p = filepath.Join(dir, name)
		if pid, fd, ok := procFD(dir, name); ok {
			if _, err := os.Lstat(p); err != nil {
				if pid == os.Getpid() {
					return target{}, fmt.Errorf("file descriptor %d is not open", fd)
				}
				return target{}, err
			}
			if pid == os.Getpid() {
				return target{path: path, stream: true, fd: fd}, nil
			}
			return target{path: p, stream: true, fd: -1}, nil
		}
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return replace, nil // a new file, or where a link leads nowhere: created
		}
		if err != nil {
			return target{}, err
		}
		switch t := info.Mode().Type(); {
		case t == fs.ModeSymlink:
			if err := protectedLink(dir, info); err != nil {
				return target{}, err
			}
			link, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(dir, link)
			}
			p = link
		case t == 0:
			return replace, nil
		case t == fs.ModeDir:
			return target{}, errors.New("it is a directory")
		case t == fs.ModeDevice:
			// A report written over a disk's first blocks, through a link
			// planted in a shared directory, would be a disaster.
			return target{}, errors.New("it is a block device; give a file, a FIFO, a character device or a descriptor")
		default:
			return target{path: p, stream: true, fd: -1, kind: t}, nil
		}
	}
	return target{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// protectedLink refuses to follow the link described by info in dir when
// Linux's fs.protected_symlinks would: dir is sticky and world-writable
// (/tmp) and the link belongs neither to us nor to dir's owner.
func protectedLink(dir string, info fs.FileInfo) error {
	d, err := os.Stat(dir)
	if err != nil {
		return err
	}
	dm := d.Mode()
	if dm&fs.ModeSticky == 0 || dm.Perm()&0o002 == 0 {
		return nil
	}
	ls, lok := info.Sys().(*syscall.Stat_t)
	ds, dok := d.Sys().(*syscall.Stat_t)
	if !lok || !dok || ls.Uid == uint32(os.Geteuid()) || ls.Uid == ds.Uid {
		return nil
	}
	return fmt.Errorf("it is a link in the shared directory %s that belongs to user %d: not followed (give the path it leads to)", dir, ls.Uid)
}

// procFD reports whether dir/name is a descriptor's entry in /proc: dir is
// /proc/PID/fd or /proc/PID/task/TID/fd, with links resolved, and name is
// a number.
func procFD(dir, name string) (pid, fd int, ok bool) {
	rest, found := strings.CutPrefix(dir, "/proc/")
	if !found {
		return 0, 0, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 2 && !(len(parts) == 4 && parts[1] == "task") || parts[len(parts)-1] != "fd" {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, false
	}
	fd, err = strconv.Atoi(name)
	if err != nil || fd < 0 {
		return 0, 0, false
	}
	return pid, fd, true
}

// sink is an open stream.
type sink interface {
	io.WriteCloser
	SetWriteDeadline(time.Time) error
}

// write writes data into the stream t. A FIFO is given ReaderWait to find
// a reader, and a reader ReaderWait to take the data, where the stream can
// be waited on; writes into one of our descriptors wait as long as
// retry's own lines on it would.
func (t target) write(ctx context.Context, data []byte) error {
	s, err := t.open(ctx)
	if err != nil {
		return err
	}
	_ = s.SetWriteDeadline(time.Now().Add(ReaderWait)) // not every stream has deadlines
	_, err = s.Write(data)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("the reader took no data for %s", Duration(ReaderWait))
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// open opens the stream t for writing, without creating or truncating
// anything.
func (t target) open(ctx context.Context) (sink, error) {
	switch {
	case t.fd >= 0:
		// Our own descriptor, shared as a shell's >&N would share it:
		// reopening it through /proc could not reach a socket or a pipe's
		// other end the same way, and would start a regular file at 0.
		fd, err := unix.FcntlInt(uintptr(t.fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "dup", Path: t.path, Err: err}
		}
		return os.NewFile(uintptr(fd), t.path), nil
	case t.kind == fs.ModeSocket:
		return dialUnix(t.path)
	case t.kind == fs.ModeNamedPipe:
		return openFIFO(ctx, t.path)
	case t.kind == 0:
		// Another process's descriptor: it may be a regular file (a log),
		// which is added to, never overwritten from its start.
		return os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|syscall.O_NOCTTY, 0)
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	return f, mustBe(f, t.kind)
}

// dialUnix connects to the Unix socket at path, a stream socket or else a
// datagram one (a syslog-style listener). The connection is non-blocking,
// so a write can have a deadline.
func dialUnix(path string) (*os.File, error) {
	for _, typ := range []int{unix.SOCK_STREAM, unix.SOCK_DGRAM} {
		// SOCK_CLOEXEC is not everywhere: hold off forks until the
		// descriptor is marked close-on-exec, as package net does.
		syscall.ForkLock.RLock()
		fd, err := unix.Socket(unix.AF_UNIX, typ, 0)
		if err == nil {
			unix.CloseOnExec(fd)
		}
		syscall.ForkLock.RUnlock()
		if err != nil {
			return nil, &fs.PathError{Op: "socket", Path: path, Err: err}
		}
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		if err == nil {
			if err := unix.SetNonblock(fd, true); err != nil {
				_ = unix.Close(fd)
				return nil, &fs.PathError{Op: "connect", Path: path, Err: err}
			}
			return os.NewFile(uintptr(fd), path), nil
		}
		_ = unix.Close(fd)
		if !errors.Is(err, unix.EPROTOTYPE) {
			return nil, &fs.PathError{Op: "connect", Path: path, Err: err}
		}
	}
	return nil, &fs.PathError{Op: "connect", Path: path, Err: unix.EPROTOTYPE}
}

// openFIFO opens the FIFO at path for writing once a reader has it open,
// trying again every fifoPollInterval for ReaderWait: opening a FIFO
// without a reader would otherwise block for as long as none comes.
func openFIFO(ctx context.Context, path string) (sink, error) {
	giveUp := time.NewTimer(ReaderWait)
	defer giveUp.Stop()
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, mustBe(f, fs.ModeNamedPipe)
		}
		if !errors.Is(err, syscall.ENXIO) { // ENXIO: no reader yet
			return nil, err
		}
		poll := time.NewTimer(fifoPollInterval)
		select {
		case <-poll.C:
		case <-giveUp.C:
			poll.Stop()
			return nil, fmt.Errorf("no reader opened the FIFO within %s", Duration(ReaderWait))
		case <-ctx.Done():
			poll.Stop()
			return nil, fmt.Errorf("waiting for a reader of the FIFO: %w", ctx.Err())
		}
	}
}

// mustBe closes f and fails unless it is of type kind: a path swapped for
// a regular file between looking at it and opening it is left alone.
func mustBe(f *os.File, kind fs.FileMode) error {
	info, err := f.Stat()
	if err == nil && info.Mode().Type() != kind {
		err = errors.New("it changed while it was opened; left it alone")
	}
	if err != nil {
		_ = f.Close()
	}
	return err
}
