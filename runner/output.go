package runner

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StdoutMode is what happens to each attempt's standard output.
type StdoutMode int

const (
	// StdoutPass hands every attempt our stdout as it is.
	StdoutPass StdoutMode = iota
	// StdoutBuffer holds each attempt's stdout (in memory up to 8 MiB,
	// then in a private temporary file) so that only the successful
	// attempt's output reaches our stdout, once. A failed attempt's output
	// is given to the observer with its Attempt.
	StdoutBuffer
)

// LineScanner receives the output lines of one attempt, without their line
// ends; each line is at most MaxLine bytes (longer lines are cut). It is
// called from one goroutine at a time.
type LineScanner interface {
	Line(line []byte)
}

// MaxLine is the longest line passed to a LineScanner; the rest of a longer
// line is not scanned (it is still copied through).
const MaxLine = 64 << 10

// copyBuffer is how much of an output pipe one read takes: with a 1 MiB
// pipe, large reads keep the writer and our copy from trading turns.
const copyBuffer = 256 << 10

// drainTimeout bounds how long retry waits for an attempt's output pipes to
// close after its process group is gone (a process that left the group may
// hold them open).
const drainTimeout = time.Second

// leftAloneDrain bounds the same wait after a successful attempt whose
// process group was left running: a service it started may hold the pipes
// for as long as it runs, and what it writes later is not lost (see
// copier.handOff), so only a moment is given to members about to end.
const leftAloneDrain = 100 * time.Millisecond

// Captured is an attempt's buffered stdout (StdoutBuffer).
type Captured interface {
	// Size is the number of bytes captured.
	Size() int64
	// WriteTo writes the captured bytes to w.
	WriteTo(w io.Writer) (int64, error)
}

// copier copies one output pipe of an attempt to its destination as bytes
// arrive (no waiting for line ends), and offers them to a matcher.
type copier struct {
	r     *os.File
	dst   io.Writer
	final *os.File // where the stream goes without retry; nil for nowhere
	match *matcher // nil when the stream is not scanned
	done  chan struct{}
	// downstreamGone is set when writing to dst failed, such as a closed
	// pipe after `| head -1`.
	downstreamGone bool
	// cut is set when the copy stopped before the pipe's end: someone
	// still held it open when finish stopped waiting.
	cut bool
	// held is set when r is kept open for handOff.
	held bool
	// written counts the bytes dst took.
	written atomic.Int64
	// lineEnds asks for midLine, which needs the bytes in our memory: no
	// splice(2).
	lineEnds bool
	// midLine is set when the last byte written to dst was not a line
	// feed. Like downstreamGone, it is read once done is closed.
	midLine bool
}

// startCopier starts copying c.r to c.dst; c is filled in but for done.
func startCopier(c *copier) *copier {
	c.done = make(chan struct{})
	go c.run()
	return c
}

func (c *copier) run() {
	defer close(c.done)
	if c.match != nil {
		defer c.match.close()
	}
	if f, ok := c.dst.(*os.File); ok && c.match == nil && !c.lineEnds {
		// Nothing reads the bytes but the destination: the kernel can
		// move them.
		if handled, deadline := c.spliceTo(f); handled {
			if deadline {
				c.cut = true
				c.drain(make([]byte, copyBuffer))
			}
			return
		}
	}
	buf := make([]byte, copyBuffer)
	for {
		n, err := c.r.Read(buf)
		if n > 0 {
			var ok bool
			if buf, ok = c.pass(buf, n); !ok {
				return
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			c.cut = true
			c.drain(buf)
			return
		}
		if err != nil {
			return
		}
	}
}

// pass writes buf[:n] to the destination and hands it to the matcher,
// which takes the buffer as it is (no copy) and gives back another for the
// next read. It reports false when the destination's reader has gone away.
func (c *copier) pass(buf []byte, n int) ([]byte, bool) {
	w, err := c.dst.Write(buf[:n])
	c.written.Add(int64(w))
	if err != nil {
		// Nobody reads our side any more: stop reading the child's, so
		// its next write fails as it would without retry.
		c.downstreamGone = true
		c.r.Close()
		return buf, false
	}
	c.midLine = buf[n-1] != '\n'
	if c.match != nil {
		return c.match.hand(buf[:n]), true
	}
	return buf, true
}

// drain copies what the pipe holds now, without waiting for more: the
// attempt's output still in the pipe when finish stopped waiting for its
// end (a stranger holds it open, or our reader was slow to take what came
// before). It reads at most the pipe's capacity, so a stranger that keeps
// writing cannot keep it going.
func (c *copier) drain(buf []byte) {
	rc, err := c.r.SyscallConn()
	if err != nil || c.r.SetReadDeadline(time.Time{}) != nil {
		return
	}
	left := pipeCapacity(rc)
	for left > 0 {
		var n int
		var rerr error
		// Returning true reads once, never waiting for the pipe to
		// become readable: an empty pipe ends the drain (EAGAIN).
		err := rc.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf[:min(len(buf), left)])
			return true
		})
		if err != nil || rerr != nil || n <= 0 {
			return
		}
		var ok bool
		if buf, ok = c.pass(buf, n); !ok {
			return
		}
		left -= n
	}
}

// endedMidLine reports whether the copy has ended and the last byte it
// wrote was not a line feed. A copy finish had to leave running (a pipe it
// could not wake) counts as ended on a line feed: its last byte is not
// known.
func (c *copier) endedMidLine() bool {
	select {
	case <-c.done:
		return c.midLine
	default:
		return false
	}
}

// finish waits for the copy to reach the end of the pipe, then closes our
// end. If the pipe has not ended by until (drainTimeout after the process
// group is gone), something outside the group holds it open: the copy
// then takes what the pipe holds and stops. Time spent writing to a slow
// reader of ours does not count: the attempt's output is never cut short
// for it.
//
// leftAlone says that the group was left running after a success: then
// until is leftAloneDrain away, and a pipe still held open is kept for
// handOff rather than closed.
func (c *copier) finish(leftAlone bool, until time.Time) {
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		// Our pipes are pollable, so the deadline wakes a blocked read;
		// a read that had data finishes its write first.
		if err := c.r.SetReadDeadline(time.Now()); err != nil {
			c.r.Close()
			return // cannot wake it: leave the goroutine to the pipe's end
		}
		<-c.done
	}
	if leftAlone && c.cut && !c.downstreamGone {
		c.held = true
		return
	}
	c.r.Close()
}

// handOff passes a pipe kept open by finish on to a forwarder (see
// forward) and closes our end. If no forwarder can be started, the pipe
// is closed all the same: its writer then meets a pipe with no reader.
func (c *copier) handOff() {
	if !c.held {
		return
	}
	c.held = false
	_ = forward(c.r, c.final)
	c.r.Close()
}

// matcher splits a stream into lines for a LineScanner on a goroutine of
// its own, so the copy (and the child) never waits for matching. If
// matching falls behind by more than matchQueue bytes, the oldest pending
// bytes are skipped, never the newest: the end of the output, where errors
// are, is always scanned. The goroutine starts with the first output: an
// attempt that prints nothing (most successes) starts none, and a start
// of `retry -- true` is that much shorter (docs/benchmarks.md).
type matcher struct {
	scan LineScanner

	mu      sync.Mutex
	queue   []chunk
	queued  int
	free    [][]byte
	closed  bool
	running bool // run has started, or done was closed without it
	skipped int64
	wake    chan struct{}
	done    chan struct{}

	line    []byte // the line being assembled
	lineCut bool   // the line passed MaxLine; the rest is ignored
}

type chunk struct {
	data []byte
	gap  bool // bytes before this chunk were skipped
}

// matchQueue is the most output waiting to be matched.
const matchQueue = 4 << 20

func newMatcher(scan LineScanner) *matcher {
	return &matcher{scan: scan, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// start starts the goroutine if it has not started; m.mu is held.
func (m *matcher) start() {
	if !m.running && !m.closed {
		m.running = true
		go m.run()
	}
}

// push queues a copy of p for matching.
func (m *matcher) push(p []byte) {
	m.hand(append(make([]byte, 0, len(p)), p...))
}

// hand queues b for matching; the matcher owns it from now on. It returns
// an empty buffer of copyBuffer bytes for the next read, one the matcher is
// done with when it has one.
func (m *matcher) hand(b []byte) []byte {
	m.mu.Lock()
	m.start()
	m.queue = append(m.queue, chunk{data: b})
	m.queued += len(b)
	for m.queued > matchQueue && len(m.queue) > 1 {
		old := m.queue[0]
		m.queue = m.queue[1:]
		m.queued -= len(old.data)
		m.skipped += int64(len(old.data))
		m.queue[0].gap = true
		m.recycle(old.data)
	}
	var next []byte
	if n := len(m.free); n > 0 {
		next, m.free = m.free[n-1][:copyBuffer], m.free[:n-1]
	}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	if next == nil {
		next = make([]byte, copyBuffer)
	}
	return next
}

// recycle keeps a few read buffers for reuse; m.mu is held.
func (m *matcher) recycle(b []byte) {
	if cap(b) >= copyBuffer && len(m.free) < 8 {
		m.free = append(m.free, b[:0])
	}
}

// close says the stream has ended; the queue is still matched.
func (m *matcher) close() {
	m.mu.Lock()
	m.closed = true
	// With nothing handed, the goroutine starts only to end the last
	// line, which is empty: done is closed at once.
	if !m.running {
		m.running = true
		close(m.done)
	}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// wait returns when everything pushed before close has been matched, and
// how many bytes were skipped.
func (m *matcher) wait() int64 {
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.skipped
}

func (m *matcher) run() {
	defer close(m.done)
	for {
		m.mu.Lock()
		if len(m.queue) == 0 {
			closed := m.closed
			m.mu.Unlock()
			if closed {
				m.endLine()
				return
			}
			<-m.wake
			continue
		}
		c := m.queue[0]
		m.queue = m.queue[1:]
		m.queued -= len(c.data)
		m.mu.Unlock()

		if c.gap {
			m.endLine()
		}
		m.split(c.data)

		m.mu.Lock()
		m.recycle(c.data)
		m.mu.Unlock()
	}
}

// Skipper is a LineScanner that can tell, for a run of whole lines at once,
// that none of them could match; those lines are then not fed to Line.
type Skipper interface {
	MayMatch(lines []byte) bool
}

// split feeds p to the line being assembled; \n and \r both end a line, so
// progress bars redrawn with \r are seen state by state. When the scanner
// is a Skipper, the whole lines inside p that it rules out are passed over.
func (m *matcher) split(p []byte) {
	if sk, ok := m.scan.(Skipper); ok {
		first, last := indexLineEnd(p), lastIndexLineEnd(p)
		if first >= 0 && last > first+1 && !sk.MayMatch(p[first+1:last]) {
			m.splitLines(p[:first+1]) // ends the line carried from before
			p = p[last+1:]
		}
	}
	m.splitLines(p)
}

func (m *matcher) splitLines(p []byte) {
	for len(p) > 0 {
		i := indexLineEnd(p)
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if !m.lineCut {
			room := MaxLine - len(m.line)
			if len(part) > room {
				part, m.lineCut = part[:room], true
			}
			m.line = append(m.line, part...)
		}
		if i < 0 {
			return
		}
		m.endLine()
		p = p[i+1:]
	}
}

func (m *matcher) endLine() {
	if len(m.line) > 0 {
		m.scan.Line(m.line)
	}
	m.line, m.lineCut = m.line[:0], false
}

func lastIndexLineEnd(p []byte) int {
	return bytes.LastIndexAny(p, "\r\n")
}

func indexLineEnd(p []byte) int {
	for i, b := range p {
		if b == '\n' || b == '\r' {
			return i
		}
	}
	return -1
}

// lockedScanner lets the stdout and stderr matchers share one scanner.
type lockedScanner struct {
	mu   sync.Mutex
	scan LineScanner
}

// MayMatch passes the question on when the scanner is a Skipper, and
// otherwise says that any line may match.
func (l *lockedScanner) MayMatch(lines []byte) bool {
	sk, ok := l.scan.(Skipper)
	if !ok {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return sk.MayMatch(lines)
}

func (l *lockedScanner) Line(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scan.Line(line)
}
