package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// StdinMode is how each attempt gets its standard input.
type StdinMode int

const (
	// StdinInherit hands every attempt our stdin as it is: a later attempt
	// reads on from where the earlier one stopped.
	StdinInherit StdinMode = iota
	// StdinReplay gives every attempt the whole input: a regular file is
	// rewound for each attempt; /dev/null is handed over as it is;
	// anything else is recorded as the first
	// attempt reads it and replayed to later attempts before the rest of
	// the stream.
	StdinReplay
	// StdinNull gives every attempt /dev/null.
	StdinNull
)

// stdinSource prepares each attempt's stdin.
type stdinSource interface {
	// forAttempt returns the file to hand the attempt and a function to
	// call when the attempt has ended.
	forAttempt() (*os.File, func(), error)
	close()
}

// newStdin chooses the source for mode and our stdin f.
func newStdin(mode StdinMode, f *os.File, tempDir string) (stdinSource, error) {
	switch {
	case mode == StdinNull || f == nil:
		return nullStdin{}, nil
	case mode == StdinInherit:
		return inheritStdin{f}, nil
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() {
		if start, err := f.Seek(0, io.SeekCurrent); err == nil {
			return &rewindStdin{f: f, start: start}, nil
		}
	}
	if err == nil && isDevNull(fi) {
		// Always empty: every attempt sees the same input without a
		// pipe, and sees /dev/null itself, as it would without retry
		// (cron jobs and CI steps run with it).
		return inheritStdin{f}, nil
	}
	return newTape(f, tempDir), nil
}

// isDevNull reports whether fi is the null device.
func isDevNull(fi os.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

type nullStdin struct{}

func (nullStdin) forAttempt() (*os.File, func(), error) { return nil, func() {}, nil }
func (nullStdin) close()                                {}

type inheritStdin struct{ f *os.File }

func (s inheritStdin) forAttempt() (*os.File, func(), error) { return s.f, func() {}, nil }
func (inheritStdin) close()                                  {}

// rewindStdin hands a regular file to every attempt, rewound to where it
// stood when retry started: no copy at all.
type rewindStdin struct {
	f     *os.File
	start int64
}

func (s *rewindStdin) forAttempt() (*os.File, func(), error) {
	if _, err := s.f.Seek(s.start, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("rewind stdin: %w", err)
	}
	return s.f, func() {}, nil
}

func (*rewindStdin) close() {}

// tape records a stream as attempts read it, so each attempt can read the
// same input from its start. It reads from the source only when an attempt
// has read everything recorded so far: never faster than the attempts
// consume, plus a pipe's buffer. A child that never reads never blocks
// retry, and an endless input is recorded only as far as an attempt read.
type tape struct {
	src io.Reader
	rec *spool

	mu      sync.Mutex
	reading bool          // a read of src is under way
	grew    chan struct{} // closed when rec grows or src ends
	eof     bool
}

func newTape(src io.Reader, tempDir string) *tape {
	return &tape{src: src, rec: newSpool(SpoolMemory, tempDir), grew: make(chan struct{})}
}

// forAttempt returns a pipe whose read end the attempt gets; a goroutine
// feeds it the recording, then the rest of the stream, until the attempt
// ends (done) or the input does.
func (t *tape) forAttempt() (*os.File, func(), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stop := make(chan struct{})
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		defer w.Close()
		t.feed(w, stop)
	}()
	return r, func() {
		r.Close()   // our copy; the child's is closed with the child
		close(stop) // stop waiting for more input
		w.Close()   // wake a write blocked on a child that stopped reading
		<-fed
	}, nil
}

// feed writes the tape to w from the start, reading more of the source
// as needed, until the source ends, w fails or stop is closed.
func (t *tape) feed(w io.Writer, stop <-chan struct{}) {
	buf := make([]byte, 32<<10)
	var pos int64
	for {
		n, _ := t.rec.ReadAt(buf, pos)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return // the attempt stopped reading or ended
			}
			pos += int64(n)
			continue
		}
		grew, eof := t.demand(pos)
		if eof {
			return // closing w gives the attempt its EOF
		}
		select {
		case <-grew:
		case <-stop:
			return
		}
	}
}

// demand asks for input beyond pos. It returns a channel that is closed
// when there is more (at once if there already is), and whether the input
// has ended at pos.
func (t *tape) demand(pos int64) (<-chan struct{}, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec.Size() > pos {
		return closedChan(), false
	}
	if t.eof {
		return nil, true
	}
	if !t.reading {
		t.reading = true
		go t.readMore()
	}
	return t.grew, false
}

// readMore reads one chunk of the source into the recording. It runs
// apart from any attempt: if the attempt ends while the read is blocked, the
// data still lands on the tape for the next attempt.
func (t *tape) readMore() {
	buf := make([]byte, 32<<10)
	n, err := t.src.Read(buf)
	if n > 0 {
		if _, werr := t.rec.Write(buf[:n]); werr != nil {
			err = werr
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reading = false
	if err != nil {
		// The end of the input, or an error reading it: either way the
		// attempts see the end of their input here.
		t.eof = true
	}
	close(t.grew)
	t.grew = make(chan struct{})
}

func (t *tape) close() { t.rec.Close() }

func closedChan() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
