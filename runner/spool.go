package runner

import (
	"errors"
	"io"
	"os"
	"sync"
)

// SpoolMemory is how many bytes a spool keeps in memory before it moves
// them to a private temporary file.
const SpoolMemory = 8 << 20

// spoolChunk is the unit of a spool's memory: growing by chunks, not by
// doubling one slice, keeps the peak memory near the data itself.
const spoolChunk = 64 << 10

// spool is an append-only store of bytes: in memory up to a limit, then in
// a private temporary file (mode 0600 and nameless, so nothing is left
// behind even if retry is killed). It is safe for one writer
// and many readers at once.
type spool struct {
	limit int
	dir   string // where the temporary file goes; empty means os.TempDir

	mu   sync.Mutex
	mem  [][]byte // chunks of spoolChunk bytes, the last one partly filled
	file *os.File
	size int64
	err  error // the first write error; the spool stops growing after it
}

func newSpool(limit int, dir string) *spool { return &spool{limit: limit, dir: dir} }

// Write appends p. After a failure to spill to disk it keeps failing.
func (s *spool) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	if s.file == nil && s.size+int64(len(p)) > int64(s.limit) {
		if err := s.spill(); err != nil {
			s.err = err
			return 0, err
		}
	}
	if s.file == nil {
		for rest := p; len(rest) > 0; {
			if n := len(s.mem); n == 0 || len(s.mem[n-1]) == spoolChunk {
				s.mem = append(s.mem, make([]byte, 0, spoolChunk))
			}
			last := &s.mem[len(s.mem)-1]
			k := min(len(rest), spoolChunk-len(*last))
			*last = append(*last, rest[:k]...)
			rest = rest[k:]
		}
		s.size += int64(len(p))
		return len(p), nil
	}
	n, err := s.file.WriteAt(p, s.size)
	s.size += int64(n)
	if err != nil {
		s.err = err
	}
	return n, err
}

// spill moves the bytes held in memory to a new temporary file.
func (s *spool) spill() error {
	f, err := privateTemp(s.dir)
	if err != nil {
		return err
	}
	var off int64
	for _, c := range s.mem {
		if _, err := f.WriteAt(c, off); err != nil {
			f.Close()
			return err
		}
		off += int64(len(c))
	}
	s.file, s.mem = f, nil
	return nil
}

// unlinkedTemp creates a temporary file in dir and removes its name at
// once: the open descriptor keeps the data, and no file is left behind
// whatever way retry ends.
func unlinkedTemp(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "retry-spool-*") // CreateTemp uses mode 0600
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Size returns how many bytes have been appended.
func (s *spool) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// ReadAt reads appended bytes from offset off.
func (s *spool) ReadAt(p []byte, off int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if off >= s.size {
		return 0, io.EOF
	}
	if int64(len(p)) > s.size-off {
		p = p[:s.size-off]
	}
	if s.file != nil {
		return s.file.ReadAt(p, off)
	}
	n := 0
	for n < len(p) {
		c := s.mem[off/spoolChunk]
		k := copy(p[n:], c[off%spoolChunk:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// WriteTo copies the whole spool to w.
func (s *spool) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(w, io.NewSectionReader(s, 0, s.Size()))
}

// errSpoolClosed is returned by a spool used after Close.
var errSpoolClosed = errors.New("spool closed")

// Close releases the memory and the temporary file.
func (s *spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem, s.size, s.err = nil, 0, errSpoolClosed
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}
