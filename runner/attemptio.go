package runner

import (
	"fmt"
	"io"
	"os"
	"time"
)

// attemptIO is the plumbing of one attempt: the files the child gets, and
// what retry runs on its side of them. Nothing is added when no feature
// needs the bytes: then the child gets our own descriptors.
type attemptIO struct {
	stdin, stdout, stderr *os.File // the child's
	childEnds             []*os.File
	stdinDone             func()
	copiers               []*copier
	stderrCopy            *copier // nil when the child has our stderr
	matchers              []*matcher
	captured              *spool
	hold                  *holder // nil unless StdoutBuffer
	// out and errs count what the attempt writes to our stdout and
	// stderr.
	out, errs tally
}

// tally counts what an attempt writes to one of our output streams: by the
// copy the stream goes through, or by the mark of the file handed over as
// it is. Neither set: not counted.
type tally struct {
	copied *copier
	file   *fileMark
	held   bool
	// withStderr: stderr goes to the same place, as it is, and is
	// counted here.
	withStderr bool
}

func (t tally) count() Written {
	w := Written{Held: t.held, WithStderr: t.withStderr}
	switch {
	case t.copied != nil:
		w.Bytes, w.Known = t.copied.written.Load(), true
	case t.file != nil:
		w.Bytes, w.Known = t.file.written()
	}
	if !w.Known {
		w.Bytes = 0
	}
	return w
}

// openIO prepares attempt's stdio. scan is the attempt's scanner, nil when
// no output rule applies; last says no attempt can follow this one.
func (r *run) openIO(scan LineScanner, last bool) (a *attemptIO, err error) {
	a = &attemptIO{stdinDone: func() {}}
	defer func() {
		if err != nil {
			a.abort()
		}
	}()
	if a.stdin, a.stdinDone, err = r.stdin.forAttempt(last); err != nil {
		return a, err
	}
	if scan != nil {
		scan = &lockedScanner{scan: scan}
	}

	// What our streams are decides how the attempt's output is counted:
	// a file by its offset or size, a pipe only by a copy, made when a
	// retry may follow (a repeat is then possible, and is said).
	outID, errID := identify(r.cfg.Stdout), identify(r.cfg.Stderr)
	shared := outID.same(errID)

	a.stdout, a.stderr = r.cfg.Stdout, r.cfg.Stderr
	scanStdout := scan != nil && r.cfg.ScanStdout
	// Stderr goes through a copy of ours when it is scanned or watched
	// for where its last line ended.
	pipedErr := scan != nil || r.cfg.WatchStderr && r.cfg.Stderr != nil
	// `2>&1 |` or `> out 2>&1` with stderr copied: two pipes would let
	// the copies reorder the two streams' writes (and split a line
	// written a byte at a time), so both go through the one pipe, in the
	// order they were made, and what is scanned holds stdout's lines too.
	merged := shared && pipedErr && r.cfg.StdoutMode != StdoutBuffer
	switch {
	case merged:
		if err := a.pipe(&a.stderr, r.cfg.Stderr, r.cfg.Stderr, scan != nil, scan, false); err != nil {
			return a, fmt.Errorf("stderr pipe: %w", err)
		}
		a.stdout = a.stderr
		a.stderrCopy = a.copiers[len(a.copiers)-1]
		a.out.copied, a.out.withStderr = a.stderrCopy, true
		return a, nil
	case r.cfg.StdoutMode == StdoutBuffer || scanStdout:
		// A nil *os.File must not become a non-nil io.Writer: writes to
		// it fail, which would read as a reader that went away.
		var dst io.Writer = io.Discard
		switch {
		case r.cfg.StdoutMode == StdoutBuffer:
			a.captured = newSpool(SpoolMemory, r.cfg.TempDir)
			var final io.Writer = io.Discard
			if r.cfg.Stdout != nil {
				final = r.cfg.Stdout
			}
			a.hold = &holder{spool: a.captured, out: final}
			dst = a.hold
			a.out.held = true
		case r.cfg.Stdout != nil:
			dst = r.cfg.Stdout
		}
		if err := a.pipe(&a.stdout, dst, r.cfg.Stdout, scanStdout, scan, false); err != nil {
			return a, fmt.Errorf("stdout pipe: %w", err)
		}
		a.out.copied = a.copiers[len(a.copiers)-1]
	case outID.kind == streamPipe && !last:
		if err := a.pipe(&a.stdout, r.cfg.Stdout, r.cfg.Stdout, false, nil, false); err != nil {
			return a, fmt.Errorf("stdout pipe: %w", err)
		}
		a.out.copied = a.copiers[len(a.copiers)-1]
		if shared && !pipedErr {
			// `2>&1 |`: both streams through the one pipe, so their
			// writes reach the reader in the order they were made.
			a.stderr, a.out.withStderr = a.stdout, true
		}
	case outID.kind == streamFile:
		a.out.file = markFile(r.cfg.Stdout)
		a.out.withStderr = shared && !pipedErr
	}

	switch {
	case pipedErr:
		var dst io.Writer = io.Discard
		if r.cfg.Stderr != nil {
			dst = r.cfg.Stderr
		}
		if err := a.pipe(&a.stderr, dst, r.cfg.Stderr, scan != nil, scan, isTerminal(r.cfg.Stderr)); err != nil {
			return a, fmt.Errorf("stderr pipe: %w", err)
		}
		a.stderrCopy = a.copiers[len(a.copiers)-1]
		a.errs.copied = a.stderrCopy
	case a.out.withStderr:
		// counted with stdout
	case errID.kind == streamFile:
		a.errs.file = markFile(r.cfg.Stderr)
	}
	return a, nil
}

// stderrMidLine reports whether the stderr retry copied ended without a
// line feed; it is valid after finish.
func (a *attemptIO) stderrMidLine() bool {
	return a.stderrCopy != nil && a.stderrCopy.endedMidLine()
}

// pipe gives the child a new pipe (a pseudo-terminal when terminal is set,
// so the child still sees a terminal) in *child, and copies what comes out
// to dst, scanning it when scanned is set. final is where the stream goes
// without retry (nil for nowhere): a process that a successful attempt
// left running and that still writes to the pipe is passed on to it. The
// copy of stderr tracks where its last line ended (stderrMidLine).
func (a *attemptIO) pipe(child **os.File, dst io.Writer, final *os.File, scanned bool, scan LineScanner, terminal bool) error {
	var ours, theirs *os.File
	var err error
	if terminal {
		ours, theirs, err = openPTY(*child)
	} else {
		ours, theirs, err = os.Pipe()
		if err == nil {
			growPipe(ours)
		}
	}
	if err != nil {
		return err
	}
	var m *matcher
	if scanned {
		m = newMatcher(scan)
		a.matchers = append(a.matchers, m)
	}
	*child = theirs
	a.childEnds = append(a.childEnds, theirs)
	a.copiers = append(a.copiers, startCopier(&copier{r: ours, dst: dst, final: final, match: m, lineEnds: child == &a.stderr}))
	return nil
}

// started closes our copies of the child's ends, so the pipes end when the
// child's side closes.
func (a *attemptIO) started() {
	for _, f := range a.childEnds {
		f.Close()
	}
	a.childEnds = nil
}

// finish waits for the output to be copied and matched and stops feeding
// stdin. It returns whether the downstream reader went away and how many
// output bytes were not matched because matching fell behind. leftAlone
// says that the attempt succeeded and what it left running was left
// alone: such a process may hold an output pipe for as long as it runs,
// so the wait for the pipe's end is short, and a pipe still held is kept
// for handOff.
func (a *attemptIO) finish(leftAlone bool) (downstreamGone bool, unmatched int64) {
	a.started()
	a.stdinDone()
	// One wait for all the pipes: a process that holds one holds them
	// all, and each waiting in turn would add up.
	wait := drainTimeout
	if leftAlone {
		wait = leftAloneDrain
	}
	until := time.Now().Add(wait)
	for _, c := range a.copiers {
		c.finish(leftAlone, until)
		downstreamGone = downstreamGone || c.downstreamGone
	}
	for _, m := range a.matchers {
		unmatched += m.wait()
	}
	if a.unheld() != nil && a.captured != nil {
		// Passed on already: nothing is left to hold.
		a.captured.Close()
		a.captured = nil
	}
	return downstreamGone, unmatched
}

// held returns the attempt's held stdout (StdoutBuffer), or nil, also
// when it could not be held and went to stdout as it came; a may be nil.
func (a *attemptIO) held() *spool {
	if a == nil {
		return nil
	}
	return a.captured
}

// unheld returns why the attempt's stdout could not be held
// (StdoutBuffer), or nil; valid after finish.
func (a *attemptIO) unheld() error {
	if a.hold == nil {
		return nil
	}
	return a.hold.lost
}

// handOff passes each output pipe still held open by a process that a
// successful attempt left running on to a forwarder process, which copies
// what comes out of it to where the stream goes without retry, for as long
// as the pipe has a writer. Its later writes then neither fail nor kill
// it (SIGPIPE) once retry has exited. a may be nil.
func (a *attemptIO) handOff() {
	if a == nil {
		return
	}
	for _, c := range a.copiers {
		c.handOff()
	}
}

// written counts what the attempt wrote to our stdout and stderr; call it
// after finish.
func (a *attemptIO) written() (stdout, stderr Written) {
	stdout, stderr = a.out.count(), a.errs.count()
	if a.unheld() != nil {
		stdout.Held = false // it went downstream as it came
	}
	return stdout, stderr
}

// holder takes a held attempt's stdout: into its spool, and when the spool
// cannot take more (its temporary file cannot be created or written: no
// TMPDIR, a full disk), into out, what was held first and then the rest
// as it comes. The attempt then runs to its end with its whole output
// delivered once, not cut short by a pipe that stopped being read.
type holder struct {
	spool *spool
	out   io.Writer
	// lost is why holding stopped; set by the copier, read after it
	// ended.
	lost error
}

func (h *holder) Write(p []byte) (int, error) {
	if h.lost == nil {
		n, err := h.spool.Write(p)
		if err == nil {
			return n, nil
		}
		h.lost = err
		if _, err := h.spool.WriteTo(h.out); err != nil {
			return 0, err
		}
		k, err := h.out.Write(p[n:])
		return n + k, err
	}
	return h.out.Write(p)
}

// abort undoes a partly opened attemptIO.
func (a *attemptIO) abort() {
	a.finish(false)
	if a.captured != nil {
		a.captured.Close()
	}
}
