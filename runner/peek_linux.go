package runner

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// peeker reads a piped stdin no faster than an attempt reads it. It copies
// what waits in the pipe into the attempt's pipe with tee(2), which leaves
// it in the source, and takes from the source only what the attempt read:
// what the attempt left unread stays for the next reader of retry's
// stdin, as it would without retry (a `while read` loop, a script piped
// into a shell).
type peeker struct {
	src int // the piped stdin's descriptor
}

// newPeeker returns a peeker for src when it is a pipe (or a FIFO), else nil.
func newPeeker(src io.Reader) *peeker {
	f, ok := src.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	// The descriptor is used after Control returns: stdin stays open as
	// long as retry runs.
	_ = rc.Control(func(u uintptr) { fd = int(u) })
	if fd < 0 {
		return nil
	}
	return &peeker{src: fd}
}

// peekFeed feeds one attempt's pipe from a peeker.
type peekFeed struct {
	src  int
	w, r syscall.RawConn // the attempt's pipe: our write end, our copy of its read end
	wake int             // an eventfd, written when the attempt has ended
}

// forPipe prepares the attempt's pipe (r, w) to be fed by p: its buffer
// cut to one page, so that the pipe has room exactly when the attempt has
// read everything in it. It returns nil when that cannot be done.
func (p *peeker) forPipe(r, w *os.File) *peekFeed {
	wc, err := w.SyscallConn()
	if err != nil {
		return nil
	}
	rc, err := r.SyscallConn()
	if err != nil {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil
	}
	page := os.Getpagesize()
	var size int
	_ = wc.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, page) })
	if err != nil || size != page {
		_ = unix.Close(wake)
		return nil
	}
	return &peekFeed{src: p.src, w: wc, r: rc, wake: wake}
}

// ended tells a waiting next that the attempt has ended.
func (f *peekFeed) ended() {
	_, _ = unix.Write(f.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
}

func (f *peekFeed) close() { _ = unix.Close(f.wake) }

// widen gives the attempt's pipe its default buffer back, for reading the
// rest of the input in bulk.
func (f *peekFeed) widen() {
	_ = f.w.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 64<<10) })
}

// next hands the attempt what waits in the source, up to len(buf), once
// the attempt has read everything handed to it before, and waits until it
// has read that too or ended. It takes from the source what the attempt
// read, into buf, and returns it. done says that the attempt ended; eof
// that the source has ended. An error says the source cannot be peeked at.
func (f *peekFeed) next(buf []byte) (taken []byte, done, eof bool, err error) {
	if !f.waitRoom() {
		return nil, true, false, nil
	}
	var n int
	for {
		if !f.waitInput() {
			return nil, true, false, nil
		}
		var teeErr error
		if f.w.Control(func(fd uintptr) {
			m, err := unix.Tee(f.src, int(fd), len(buf), unix.SPLICE_F_NONBLOCK)
			n, teeErr = int(m), err
		}) != nil {
			// The attempt's pipe is closed: the attempt ended (done), and
			// nothing was handed over. Not the input's end.
			return nil, true, false, nil
		}
		if errors.Is(teeErr, unix.EAGAIN) || errors.Is(teeErr, unix.EINTR) {
			continue // the pipe's writer is still there, with nothing to say yet
		}
		if teeErr != nil {
			return nil, false, false, teeErr
		}
		if n == 0 {
			return nil, false, true, nil // no data and no writer: the end
		}
		break
	}
	read := n
	if !f.waitRoom() {
		done = true
		var unread int
		_ = f.r.Control(func(fd uintptr) { unread, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
		if err != nil {
			unread = 0 // cannot tell: count it read, as reading ahead did
		}
		read = max(n-unread, 0)
	}
	taken = buf[:read]
	if _, err := io.ReadFull(fdReader(f.src), taken); err != nil {
		return nil, done, false, err
	}
	return taken, done, false, nil
}

// waitRoom waits until the attempt has read everything in its pipe, or
// has ended; it reports the first. A closed pipe is an ended attempt.
func (f *peekFeed) waitRoom() bool {
	room := false
	_ = f.w.Control(func(fd uintptr) {
		room = f.poll(int(fd), unix.POLLOUT)
	})
	return room
}

// waitInput waits until the source has data or has ended, or the attempt
// has ended; it reports whether the source is ready.
func (f *peekFeed) waitInput() bool {
	return f.poll(f.src, unix.POLLIN)
}

// poll waits until fd is ready for events or the attempt has ended, and
// reports the first (fd's error or hang-up counts as ready).
func (f *peekFeed) poll(fd int, events int16) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: events}, {Fd: int32(f.wake), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			return true // let the caller's read or tee say what is wrong
		}
	}
	return fds[0].Revents != 0
}

// fdReader reads a descriptor with read(2).
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if n == 0 && err == nil && len(p) > 0 {
			return 0, io.EOF
		}
		return max(n, 0), err
	}
}
