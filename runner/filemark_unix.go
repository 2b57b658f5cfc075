//go:build unix

package runner

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// streamKind says how what an attempt writes to one of our streams can be
// counted.
type streamKind int

const (
	// streamOther is a terminal, a character device or no stream: only a
	// copy could count it, and none is made for that.
	streamOther streamKind = iota
	// streamFile is a regular file or a block device: counted by its
	// offset or size, without a copy.
	streamFile
	// streamPipe is a pipe or a socket: counted only by a copy.
	streamPipe
)

// streamID is the kind and identity of one of our output streams.
type streamID struct {
	kind     streamKind
	dev, ino uint64
}

// identify says what f is; a stream that cannot be examined is
// streamOther.
func identify(f *os.File) streamID {
	var st unix.Stat_t
	if f == nil || control(f, func(fd int) error { return unix.Fstat(fd, &st) }) != nil {
		return streamID{}
	}
	id := streamID{dev: uint64(st.Dev), ino: st.Ino}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFBLK:
		id.kind = streamFile
	case unix.S_IFIFO, unix.S_IFSOCK:
		id.kind = streamPipe
	}
	return id
}

// same reports whether a and b are one countable file, pipe or socket, as
// stdout and stderr are after `> out 2>&1` or `2>&1 |`.
func (a streamID) same(b streamID) bool {
	return a.kind != streamOther && a == b
}

// fileMark is where a regular file handed to an attempt as it is stood
// before the attempt, so that what the attempt wrote to it can be counted
// afterwards without a copy: by the offset it shares with us, or, when
// the file is open for appending (`>>`, where every write goes to the
// end wherever the offset is), by its size.
type fileMark struct {
	f      *os.File
	append bool
	at     int64
}

// markFile marks f now; nil when f cannot be examined.
func markFile(f *os.File) *fileMark {
	m := &fileMark{f: f}
	err := control(f, func(fd int) error {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		m.append = flags&unix.O_APPEND != 0 && st.Mode&unix.S_IFMT == unix.S_IFREG
		m.at, err = m.position(fd)
		return err
	})
	if err != nil {
		return nil
	}
	return m
}

func (m *fileMark) position(fd int) (int64, error) {
	if m.append {
		var st unix.Stat_t
		err := unix.Fstat(fd, &st)
		return st.Size, err
	}
	return unix.Seek(fd, 0, io.SeekCurrent)
}

// written returns how far the offset (or the size) moved since the mark.
// It reports false when it moved back, truncated or rewound: what went
// downstream is then not known.
func (m *fileMark) written() (int64, bool) {
	var now int64
	err := control(m.f, func(fd int) (err error) {
		now, err = m.position(fd)
		return err
	})
	if err != nil || now < m.at {
		return 0, false
	}
	return now - m.at, true
}

// control runs fn on f's descriptor without changing its mode (as Fd
// would, making it blocking).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
