package runner

import (
	"errors"
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
	// anything else is recorded as the first attempt reads it (up to
	// Config.StdinMax, and not at all when that attempt is the last) and
	// replayed to later attempts before the rest of the stream. When the
	// recording cannot be whole, the attempt reading still gets the whole
	// stream and no later attempt is made (Result.StdinLost).
	StdinReplay
	// StdinNull gives every attempt /dev/null.
	StdinNull
)

// Input is retry's stdin as commands get it, made once for a run so that
// the --fallback command reads what the attempts read (Config.Input).
type Input struct {
	src stdinSource
	// again says that a command follows the attempts (forLast): even the
	// last attempt records what it reads.
	again bool
}

// NewInput makes the input that cfg's Stdin, StdinMode, TempDir and
// StdinMax describe; again says that a --fallback command will read it
// after the attempts. Close it when the run and its fallback are over.
func NewInput(cfg Config, again bool) *Input {
	return &Input{src: newStdin(cfg.StdinMode, cfg.Stdin, cfg.TempDir, cfg.StdinMax), again: again}
}

// forAttempt returns an attempt's stdin (see stdinSource); last is
// ignored when a command reads the input again after the attempts.
func (in *Input) forAttempt(last bool) (*os.File, func(), error) {
	return in.src.forAttempt(last && !in.again)
}

// Close releases what the input holds (a recording's spool).
func (in *Input) Close() { in.src.close() }

// close is Close as a stdinSource: Run leaves that to its caller.
func (in *Input) close() {}

func (in *Input) unreplayable() *StdinLost { return in.src.unreplayable() }

// forLast returns the stdin of a command that no attempt follows, and the
// function to call when it has ended: the whole input again, as the
// attempts had it; no stdin (nil) when there is no input or it can no
// longer be given whole (Unreplayable says why).
func (in *Input) forLast() (*os.File, func(), error) {
	if in == nil || in.src.unreplayable() != nil {
		return nil, func() {}, nil
	}
	return in.src.forAttempt(true)
}

// Unreplayable says why a command after the attempts cannot be given the
// whole input, or nil when it can.
func (in *Input) Unreplayable() *StdinLost { return in.src.unreplayable() }

// stdinSource prepares each attempt's stdin.
type stdinSource interface {
	// forAttempt returns the file to hand the attempt and a function to
	// call when the attempt has ended. last says that no attempt can
	// follow this one.
	forAttempt(last bool) (*os.File, func(), error)
	// unreplayable returns why a next attempt could not be given the
	// whole input, or nil when it can; its Cut says that an attempt was
	// handed the end of its input where reading it failed.
	unreplayable() *StdinLost
	close()
}

// StdinLost says why stdin can no longer be replayed: recording it stopped,
// at the cap (Config.StdinMax) or because the spool could not take more,
// while the attempt that was reading it was given the rest of the stream;
// or reading it failed (ReadErr), and the rest of the stream is out of
// reach.
type StdinLost struct {
	// Recorded is how many bytes were recorded when recording stopped.
	Recorded int64
	// Read is how many bytes of stdin had been read by the end of the
	// last attempt; Whole is set when that was the whole input.
	Read  int64
	Whole bool
	// Max is the cap, when it is what stopped the recording.
	Max int64
	// Err is why the spool could not take more, when that is what
	// stopped the recording.
	Err error
	// ReadErr is why reading stdin failed, when it did (a socket reset,
	// a terminal gone: not its end). Cut is set when an attempt was then
	// handed the end of its input there, as if the stream had ended.
	ReadErr error
	Cut     bool
}

func (e *StdinLost) Error() string {
	if e.ReadErr != nil {
		return fmt.Sprintf("stdin can no longer be replayed: reading it failed after %d bytes: %v", e.Read, e.ReadErr)
	}
	if e.Err != nil {
		return fmt.Sprintf("stdin can no longer be replayed: recording it failed after %d bytes: %v", e.Recorded, e.Err)
	}
	return fmt.Sprintf("stdin can no longer be replayed: it is over the %d-byte cap", e.Max)
}

func (e *StdinLost) Unwrap() error {
	if e.ReadErr != nil {
		return e.ReadErr
	}
	return e.Err
}

// newStdin chooses the source for mode and our stdin f. A stream is
// recorded in tempDir (empty: the system's default) up to max bytes (0: no
// limit).
func newStdin(mode StdinMode, f *os.File, tempDir string, max int64) stdinSource {
	switch {
	case mode == StdinNull || f == nil:
		return nullStdin{}
	case mode == StdinInherit:
		return inheritStdin{f}
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() {
		if start, err := f.Seek(0, io.SeekCurrent); err == nil {
			return &rewindStdin{f: f, start: start}
		}
	}
	if err == nil && (fi.IsDir() || writeOnly(f)) {
		// Reading a directory, or a descriptor open for writing only
		// (`0>&1`), fails at once, the same way for every attempt: the
		// command says so itself, as it would without retry, and one
		// that never reads is not told that its input was cut.
		return inheritStdin{f}
	}
	if err == nil && isDevNull(fi) {
		// Always empty: every attempt sees the same input without a
		// pipe, and sees /dev/null itself, as it would without retry
		// (cron jobs and CI steps run with it).
		return inheritStdin{f}
	}
	return newTape(f, tempDir, max)
}

// isDevNull reports whether fi is the null device.
func isDevNull(fi os.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}

type nullStdin struct{}

func (nullStdin) forAttempt(bool) (*os.File, func(), error) { return nil, func() {}, nil }
func (nullStdin) unreplayable() *StdinLost                  { return nil }
func (nullStdin) close()                                    {}

type inheritStdin struct{ f *os.File }

func (s inheritStdin) forAttempt(bool) (*os.File, func(), error) { return s.f, func() {}, nil }
func (inheritStdin) unreplayable() *StdinLost                    { return nil }
func (inheritStdin) close()                                      {}

// rewindStdin hands a regular file to every attempt, rewound to where it
// stood when retry started: no copy at all.
type rewindStdin struct {
	f     *os.File
	start int64
}

func (s *rewindStdin) forAttempt(bool) (*os.File, func(), error) {
	if _, err := s.f.Seek(s.start, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("rewind stdin: %w", err)
	}
	return s.f, func() {}, nil
}

func (*rewindStdin) unreplayable() *StdinLost { return nil }
func (*rewindStdin) close()                   {}

// tape records a stream as attempts read it, so each attempt can read the
// same input from its start. It reads from the source only when an attempt
// has read everything recorded so far. From a pipe (on Linux), for the
// first preciseLimit bytes, it takes exactly what the attempts read and
// leaves the rest in the pipe (peeker): a command that never reads stdin
// takes none of it, as without retry, and the next reader gets it all.
// Past that, or from anything else, it reads ahead of the attempt by a
// chunk and a pipe's buffer. A child that never reads never blocks retry,
// and an endless input is recorded only as far as an attempt read.
//
// Recording stops at max bytes, when the spool cannot take more (no
// temporary directory, a full disk), and during an attempt that no other
// can follow. The stream still reaches the attempt that is reading it,
// whole: what is read past the recording is handed to that attempt alone.
// From then on lost says why no later attempt can be given the input.
type tape struct {
	src  io.Reader
	peek *peeker // src as a pipe whose waiting data can be looked at; nil if it is not one, or looking failed
	rec  *spool
	max  int64 // record at most this many bytes; 0 means no limit

	mu      sync.Mutex
	reading bool          // a read of src is under way
	grew    chan struct{} // closed when rec grows, live fills or src ends
	eof     bool
	read    int64  // bytes read from src
	live    []byte // read past the recording, for the attempt reading now
	final   bool   // the attempt reading now is the last one
	lost    *StdinLost
	readErr error // why reading src failed, when it did before its end
	cut     bool  // an attempt read up to the end it was handed at readErr
}

func newTape(src io.Reader, tempDir string, max int64) *tape {
	memory := int64(SpoolMemory)
	if max > 0 {
		memory = min(memory, max)
	}
	return &tape{src: src, peek: newPeeker(src), rec: newSpool(int(memory), tempDir), max: max, grew: make(chan struct{})}
}

// preciseLimit is how much of a piped stdin attempts are fed exactly as
// they read it. Each page then takes a round trip through retry (some
// 100 MB/s); a command that has read this much is a reader, whose last
// read past what it needed costs what it would cost without retry.
const preciseLimit = 64 << 10

// forAttempt returns a pipe whose read end the attempt gets; a goroutine
// feeds it the recording, then the rest of the stream, until the attempt
// ends (done) or the input does. When last is set, no attempt follows this
// one, so the rest of the stream is passed on without being recorded.
func (t *tape) forAttempt(last bool) (*os.File, func(), error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stdin pipe: %w", err)
	}
	if last {
		t.mu.Lock()
		t.final = true
		t.mu.Unlock()
	}
	var precise *peekFeed
	t.mu.Lock()
	if t.peek != nil && t.read < preciseLimit && !t.eof {
		precise = t.peek.forPipe(r, w)
	}
	t.mu.Unlock()
	stop := make(chan struct{})
	fed := make(chan struct{})
	var handed int64
	var cut bool
	go func() {
		defer close(fed)
		defer w.Close()
		handed, cut = t.feed(w, precise, stop)
	}()
	return r, func() {
		close(stop) // stop waiting for more input
		if precise != nil {
			precise.ended()
		}
		w.Close() // wake a write blocked on a child that stopped reading
		<-fed
		if precise != nil {
			precise.close()
		}
		// The attempt was handed the end of its input where reading
		// failed; it read up to there if it left nothing in the pipe.
		// With nothing handed, a command that never reads cannot be told
		// from one that read an empty input: neither counts as cut.
		if cut && handed > 0 {
			if n, ok := pipeUnread(r); !ok || n == 0 {
				t.mu.Lock()
				t.cut = true
				t.mu.Unlock()
			}
		}
		r.Close() // our copy; the child's is closed with the child
	}, nil
}

// feed writes the tape to w from the start, then what is read past the
// recording, reading more of the source as needed, until the source ends,
// w fails or stop is closed. With precise, the source is read only as far
// as the attempt read it, until preciseLimit. It returns how many bytes it
// wrote, and whether it ended at a read error rather than the input's end.
func (t *tape) feed(w io.Writer, precise *peekFeed, stop <-chan struct{}) (handed int64, cut bool) {
	buf := make([]byte, 32<<10)
	var pos int64
	for {
		n, _ := t.rec.ReadAt(buf, pos)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return handed, false // the attempt stopped reading or ended
			}
			pos += int64(n)
			handed += int64(n)
			continue
		}
		if precise != nil {
			taken, done, eof, err := precise.next(buf)
			t.mu.Lock()
			t.read += int64(len(taken))
			pos += int64(len(taken) - len(t.record(taken))) // already handed over
			handed += int64(len(taken))
			t.eof = t.eof || eof
			if err != nil {
				t.peek = nil // read ahead from here on, for every attempt
			}
			bulk := err != nil || t.read >= preciseLimit
			t.mu.Unlock()
			switch {
			case done, eof:
				return handed, false
			case bulk:
				// Read ahead from here on, as for any other input.
				precise.widen()
				precise = nil
			}
			continue
		}
		live, grew, eof := t.demand(pos)
		if len(live) > 0 {
			if _, err := w.Write(live); err != nil {
				return handed, false
			}
			handed += int64(len(live))
			continue
		}
		if eof {
			// Closing w gives the attempt its EOF.
			t.mu.Lock()
			defer t.mu.Unlock()
			return handed, t.readErr != nil
		}
		select {
		case <-grew:
		case <-stop:
			return handed, false
		}
	}
}

// demand asks for input beyond pos, the end of what the caller has read of
// the recording. It returns input read past the recording, which the caller
// now owns; or a channel that is closed when there is more (at once if
// there already is), and whether the input has ended at pos.
func (t *tape) demand(pos int64) ([]byte, <-chan struct{}, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec.Size() > pos {
		return nil, closedChan(), false
	}
	if live := t.live; len(live) > 0 {
		t.live = nil
		return live, nil, false
	}
	if t.eof {
		return nil, nil, true
	}
	if !t.reading {
		t.reading = true
		go t.readMore()
	}
	return nil, t.grew, false
}

// readMore reads one chunk of the source and records it, or as much of it
// as may be recorded; the rest is left in live for the attempt reading now.
// It runs apart from any attempt: if the attempt ends while the read is
// blocked, the data still lands on the tape for the next attempt.
func (t *tape) readMore() {
	buf := make([]byte, 32<<10)
	n, err := t.src.Read(buf)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reading = false
	t.read += int64(n)
	if rest := t.record(buf[:n]); len(rest) > 0 {
		t.live = rest
	}
	if err != nil {
		// The end of the input, or an error reading it: either way the
		// attempts see the end of their input here; an error is kept, so
		// that no attempt's success on a cut input passes for a whole
		// one, and no later attempt is made.
		t.eof = true
		if !errors.Is(err, io.EOF) {
			t.readErr = err
		}
	}
	close(t.grew)
	t.grew = make(chan struct{})
}

// record appends what it may of p to the recording and returns the rest.
// The first time something cannot be recorded it sets lost, unless no
// attempt can follow.
func (t *tape) record(p []byte) []byte {
	if t.lost != nil || t.final || len(p) == 0 {
		return p
	}
	size := t.rec.Size()
	fits := p
	if t.max > 0 && size+int64(len(p)) > t.max {
		fits = p[:max(t.max-size, 0)]
	}
	n, err := t.rec.Write(fits)
	switch {
	case err != nil:
		t.lost = &StdinLost{Err: err}
	case n < len(p):
		t.lost = &StdinLost{Max: t.max}
	}
	if t.lost != nil {
		t.lost.Recorded = size + int64(n)
	}
	return p[n:]
}

// unreplayable returns why a next attempt cannot be given the whole input,
// or nil when it can.
func (t *tape) unreplayable() *StdinLost {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lost == nil && t.readErr == nil {
		return nil
	}
	var lost StdinLost
	if t.lost != nil {
		lost = *t.lost
	} else {
		lost.Recorded = t.rec.Size()
	}
	lost.Read, lost.Whole = t.read, t.eof && t.readErr == nil
	lost.ReadErr, lost.Cut = t.readErr, t.cut
	return &lost
}

func (t *tape) close() { t.rec.Close() }

func closedChan() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
