package report

import (
	"io"
	"sync"

	"retry/runner"
)

// LineStart keeps retry's own lines at the start of a line on a stream
// the command writes to as well, usually stderr: when what came before
// ended without a line feed (an attempt's stderr, printf 'err' >&2, or
// held output replayed after a failed attempt), the next write starts with
// one. Nothing is added on a clean line.
//
// It knows the end of an attempt's stderr only when the runner copied it
// (runner.Attempt.StderrMidLine); when the child wrote to the stream
// itself, retry does not see its bytes, and a line it left open stays
// open.
//
// Every renderer writes through one LineStart, except the Countdown, whose
// line is erased before anything else is written. Observe must see each
// event before the renderers do. It is safe for concurrent use.
type LineStart struct {
	W io.Writer

	mu      sync.Mutex
	midLine bool
}

// Observe notes where the attempt's copied stderr left the line; it is a
// runner.Config.Observe function.
func (l *LineStart) Observe(e runner.Event) {
	if e, ok := e.(*runner.AttemptEnded); ok && e.Attempt.StderrMidLine {
		l.mu.Lock()
		l.midLine = true
		l.mu.Unlock()
	}
}

// Write writes p, after a line feed when the stream is in the middle of a
// line and p does not start one.
func (l *LineStart) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.midLine && p[0] != '\n' {
		if _, err := io.WriteString(l.W, "\n"); err != nil {
			return 0, err
		}
	}
	n, err := l.W.Write(p)
	if n > 0 {
		l.midLine = p[n-1] != '\n'
	}
	return n, err
}
