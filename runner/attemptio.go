package runner

import (
	"fmt"
	"io"
	"os"
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
}

// openIO prepares attempt's stdio. scan is the attempt's scanner, nil when
// no output rule applies.
func (r *run) openIO(scan LineScanner) (a *attemptIO, err error) {
	a = &attemptIO{stdinDone: func() {}}
	defer func() {
		if err != nil {
			a.abort()
		}
	}()
	if a.stdin, a.stdinDone, err = r.stdin.forAttempt(); err != nil {
		return a, err
	}
	if scan != nil {
		scan = &lockedScanner{scan: scan}
	}

	a.stdout = r.cfg.Stdout
	scanStdout := scan != nil && r.cfg.ScanStdout
	if r.cfg.StdoutMode == StdoutBuffer || scanStdout {
		// A nil *os.File must not become a non-nil io.Writer: writes to
		// it fail, which would read as a reader that went away.
		var dst io.Writer = io.Discard
		switch {
		case r.cfg.StdoutMode == StdoutBuffer:
			a.captured = newSpool(SpoolMemory, r.cfg.TempDir)
			dst = a.captured
		case r.cfg.Stdout != nil:
			dst = r.cfg.Stdout
		}
		if err := a.pipe(&a.stdout, dst, scanStdout, scan, false); err != nil {
			return a, fmt.Errorf("stdout pipe: %w", err)
		}
	}

	a.stderr = r.cfg.Stderr
	if scan != nil || r.cfg.WatchStderr && r.cfg.Stderr != nil {
		var dst io.Writer = io.Discard
		if r.cfg.Stderr != nil {
			dst = r.cfg.Stderr
		}
		if err := a.pipe(&a.stderr, dst, scan != nil, scan, isTerminal(r.cfg.Stderr)); err != nil {
			return a, fmt.Errorf("stderr pipe: %w", err)
		}
		a.stderrCopy = a.copiers[len(a.copiers)-1]
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
// to dst, scanning it when scanned is set.
func (a *attemptIO) pipe(child **os.File, dst io.Writer, scanned bool, scan LineScanner, terminal bool) error {
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
	a.copiers = append(a.copiers, startCopier(ours, dst, m))
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
// output bytes were not matched because matching fell behind.
func (a *attemptIO) finish() (downstreamGone bool, unmatched int64) {
	a.started()
	a.stdinDone()
	for _, c := range a.copiers {
		c.finish()
		downstreamGone = downstreamGone || c.downstreamGone
	}
	for _, m := range a.matchers {
		unmatched += m.wait()
	}
	return downstreamGone, unmatched
}

// abort undoes a partly opened attemptIO.
func (a *attemptIO) abort() {
	a.finish()
	if a.captured != nil {
		a.captured.Close()
	}
}
