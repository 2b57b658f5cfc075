package runner

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// spliceTo moves what comes out of the copier's pipe to dst inside the
// kernel (splice(2)): the bytes never pass through our memory, which
// keeps a copy made only to count them almost free. handled is false,
// with nothing moved, when dst cannot take a splice; the caller then
// copies with read and write. deadline is set when finish's read deadline
// ended it, leaving what the pipe still holds to be drained.
func (c *copier) spliceTo(dst *os.File) (handled, deadline bool) {
	src, err := c.r.SyscallConn()
	if err != nil {
		return false, false
	}
	out, err := dst.SyscallConn()
	if err != nil {
		return false, false
	}
	moved := false
	for {
		var n int64
		var serr error
		rerr := src.Read(func(sfd uintptr) bool {
			for {
				cerr := out.Control(func(dfd uintptr) {
					m, err := unix.Splice(int(sfd), nil, int(dfd), nil, copyBuffer, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
					n, serr = int64(m), err // an int on 32-bit systems
					if errors.Is(serr, unix.EAGAIN) && readable(int(sfd)) {
						// Our pipe has bytes, so dst is full: wait for
						// room, as a blocking write would.
						waitWritable(int(dfd))
					}
				})
				if cerr != nil {
					serr = cerr
				}
				if !errors.Is(serr, unix.EAGAIN) {
					return true
				}
				if !readable(int(sfd)) {
					return false // nothing to move yet: wait for the child
				}
			}
		})
		switch {
		case rerr != nil:
			return true, errors.Is(rerr, os.ErrDeadlineExceeded)
		case serr == nil && n == 0:
			return true, false // the child's side is closed, all moved
		case serr == nil:
			c.written.Add(n)
			moved = true
		case !moved && (errors.Is(serr, unix.EINVAL) || errors.Is(serr, unix.ENOSYS)):
			return false, false
		default:
			// As in pass: nobody reads our side any more.
			c.downstreamGone = true
			c.r.Close()
			return true, false
		}
	}
}

// readable reports whether the pipe fd has bytes, or its writers are gone.
func readable(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// waitWritable waits until fd can take bytes, or has an error (its reader
// went away).
func waitWritable(fd int) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	for {
		if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
