package runner

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpoolKeepsSmallDataInMemoryAndSpillsTheRestToAnUnlinkedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newSpool(10, dir)
	defer s.Close()
	_, err := s.Write([]byte("0123456789"))
	require.NoError(t, err)
	assert.Nil(t, s.file, "10 bytes fit in memory")
	_, err = s.Write([]byte("abcdefghijklmno"))
	require.NoError(t, err)
	require.NotNil(t, s.file, "past the limit the bytes move to a file")
	fi, err := s.file.Stat()
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file is private")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the file is unlinked at once: nothing is left behind")

	var b bytes.Buffer
	_, err = s.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, "0123456789abcdefghijklmno", b.String())
	assert.EqualValues(t, 25, s.Size())
}

// countingReader is an endless input that counts what was read of it.
type countingReader struct{ n atomic.Int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	c.n.Add(int64(len(p)))
	return len(p), nil
}

// readAttempt reads up to limit bytes of one attempt's stdin from the
// tape, as a child would, and ends the attempt.
func readAttempt(t *testing.T, tp *tape, limit int64) string {
	t.Helper()
	r, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	data, err := io.ReadAll(io.LimitReader(r, limit))
	require.NoError(t, err)
	done()
	return string(data)
}

func TestTapeGivesEveryAttemptTheWholeInput(t *testing.T) {
	t.Parallel()
	input := strings.Repeat("line of input\n", 10000) // 140 KB, more than a pipe holds
	tp := newTape(strings.NewReader(input), t.TempDir(), 0)
	defer tp.close()

	assert.Equal(t, input[:1000], readAttempt(t, tp, 1000), "the first attempt stops half way")
	assert.Equal(t, input, readAttempt(t, tp, 1<<30), "the second attempt sees the whole input")
	assert.Equal(t, input, readAttempt(t, tp, 1<<30), "and so does the third")
}

func TestTapeReadsNoFasterThanTheAttemptsConsume(t *testing.T) {
	t.Parallel()
	src := &countingReader{}
	tp := newTape(src, t.TempDir(), 0)
	defer tp.close()

	readAttempt(t, tp, 100)
	readAttempt(t, tp, 200)
	// What was read is what the attempts took, plus at most a pipe's
	// buffer and a chunk or two in flight: an endless input is never
	// read to the end.
	assert.Less(t, src.n.Load(), int64(1<<20))
	assert.Less(t, tp.rec.Size(), int64(1<<20))
}

func TestTapeDoesNotBlockOnAnAttemptThatNeverReads(t *testing.T) {
	t.Parallel()
	tp := newTape(&countingReader{}, t.TempDir(), 0)
	defer tp.close()
	_, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	finished := make(chan struct{})
	go func() {
		done() // the feeder is blocked writing into a full pipe
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("ending an attempt that never read its stdin blocked")
	}
}

func TestTapeKeepsInputThatArrivesAfterAnAttemptEnded(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	tp := newTape(pr, t.TempDir(), 0)
	defer tp.close()

	r, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	go func() { _, _ = pw.Write([]byte("first\n")) }()
	buf := make([]byte, 6)
	_, err = io.ReadFull(r, buf)
	require.NoError(t, err)
	done() // a read of the source for more may still be under way

	go func() {
		_, _ = pw.Write([]byte("second\n"))
		pw.Close()
	}()
	assert.Equal(t, "first\nsecond\n", readAttempt(t, tp, 1<<20), "nothing read for the ended attempt is lost")
}

func TestRegularFileStdinIsRewoundNotCopied(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "in")
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString("header\nbody\n")
	require.NoError(t, err)
	_, err = f.Seek(7, io.SeekStart) // the caller had consumed the header
	require.NoError(t, err)

	src := newStdin(StdinReplay, f, "", 0)
	for range 2 {
		in, done, err := src.forAttempt(false)
		require.NoError(t, err)
		assert.Same(t, f, in, "the attempt gets the file itself")
		data, err := io.ReadAll(in)
		require.NoError(t, err)
		assert.Equal(t, "body\n", string(data))
		done()
	}
}

func TestDevNullStdinIsHandedOverNotPiped(t *testing.T) {
	t.Parallel()
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	src := newStdin(StdinReplay, null, "", 0)
	defer src.close()
	for range 2 {
		in, done, err := src.forAttempt(false)
		require.NoError(t, err)
		assert.Same(t, null, in, "the attempt gets /dev/null itself")
		done()
	}

	// Another character device is a stream: it is recorded.
	zero, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer zero.Close()
	src = newStdin(StdinReplay, zero, "", 0)
	defer src.close()
	assert.IsType(t, &tape{}, src)
}

// lines is a LineScanner that records what it sees.
type lines struct {
	mu  sync.Mutex
	got []string
	// gate, when set, blocks every Line call until it is closed.
	gate chan struct{}
}

func (l *lines) Line(b []byte) {
	if l.gate != nil {
		<-l.gate
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, string(b))
}

func TestMatcherSplitsLinesAtNewlinesAndCarriageReturns(t *testing.T) {
	t.Parallel()
	l := &lines{}
	m := newMatcher(l)
	m.push([]byte("one\ntw"))
	m.push([]byte("o\r\n 50%\r 100%\rlast"))
	m.close()
	assert.Zero(t, m.wait())
	assert.Equal(t, []string{"one", "two", " 50%", " 100%", "last"}, l.got)
}

// Most successful attempts print nothing: their matcher starts no
// goroutine, and is done as soon as the stream ends.
func TestMatcherWithoutOutputStartsNoGoroutine(t *testing.T) {
	t.Parallel()
	l := &lines{}
	m := newMatcher(l)
	assert.False(t, m.running, "started before any output")
	m.close()
	assert.Zero(t, m.wait())
	assert.Empty(t, l.got)
}

func TestMatcherCutsLongLinesAtMaxLine(t *testing.T) {
	t.Parallel()
	l := &lines{}
	m := newMatcher(l)
	long := strings.Repeat("x", 3*MaxLine)
	for i := 0; i < len(long); i += 1000 {
		m.push([]byte(long[i:min(i+1000, len(long))]))
	}
	m.push([]byte("\nnext\n"))
	m.close()
	m.wait()
	require.Len(t, l.got, 2)
	assert.Len(t, l.got[0], MaxLine)
	assert.Equal(t, "next", l.got[1])
}

func TestMatcherThatFallsBehindSkipsTheOldestOutputNotTheNewest(t *testing.T) {
	t.Parallel()
	l := &lines{gate: make(chan struct{})}
	m := newMatcher(l)
	chunk := []byte(strings.Repeat("old line\n", 32<<10/9))
	for range 4 * matchQueue / len(chunk) {
		m.push(chunk) // the scanner is stuck: the queue overflows
	}
	m.push([]byte("the error at the end\n"))
	m.close()
	close(l.gate)
	skipped := m.wait()
	assert.Positive(t, skipped)
	assert.Equal(t, "the error at the end", l.got[len(l.got)-1], "the newest output is always matched")
}

func TestSpoolReadsAcrossItsMemoryChunks(t *testing.T) {
	t.Parallel()
	s := newSpool(1<<20, t.TempDir())
	defer s.Close()
	var want []byte
	for i := 0; len(want) < 3*spoolChunk+123; i++ {
		piece := bytes.Repeat([]byte{byte(i)}, 1000+i%7)
		want = append(want, piece...)
		_, err := s.Write(piece)
		require.NoError(t, err)
	}
	require.Nil(t, s.file, "still in memory")
	for _, off := range []int64{0, spoolChunk - 1, spoolChunk, 2*spoolChunk - 10, int64(len(want)) - 5} {
		got := make([]byte, min(int64(spoolChunk+20), int64(len(want))-off))
		n, err := s.ReadAt(got, off)
		require.NoError(t, err)
		assert.Equal(t, want[off:off+int64(n)], got[:n], "at offset %d", off)
		assert.Equal(t, len(got), n)
	}
	var b bytes.Buffer
	_, err := s.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, want, b.Bytes())
}
