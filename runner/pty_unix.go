//go:build unix

package runner

import (
	"os"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// openPTY opens a pseudo-terminal for a child whose stream would have been
// the terminal like: the child gets the terminal side (in raw mode, so its
// bytes reach us unchanged and our own terminal does the line handling, and
// with like's window size); we get the other side, non-blocking so that a
// read can be ended by a deadline.
func openPTY(like *os.File) (ours, theirs *os.File, err error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	_ = pty.InheritSize(like, master) // no size known is not a failure
	if _, err := term.MakeRaw(int(slave.Fd())); err != nil {
		return fail(err)
	}
	// Close-on-exec, as every descriptor of ours: a plain dup would hand
	// our side to the attempt, and to whatever it leaves running.
	fd, err := unix.FcntlInt(master.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return fail(err)
	}
	master.Close()
	return os.NewFile(uintptr(fd), "/dev/ptmx"), slave, nil
}

// readerGone reports whether f is a pipe or socket whose reader has gone
// away (`retry ... | head -1` after head exited): a poll for writing then
// reports an error or a hang-up. Then no retry can help.
func readerGone(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return gone
}
