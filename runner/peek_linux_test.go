package runner

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// pipedStdin returns the read end of a pipe that holds input, its writer
// closed: what retry's stdin is in `printf … | retry …`.
func pipedStdin(t *testing.T, input string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	go func() {
		_, _ = io.WriteString(w, input)
		w.Close()
	}()
	return r
}

// handedOver waits until the attempt's pipe holds input.
func handedOver(t *testing.T, attempt *os.File) {
	t.Helper()
	require.Eventually(t, func() bool {
		n, err := unix.IoctlGetInt(int(attempt.Fd()), unix.TIOCINQ)
		return err == nil && n > 0
	}, 30*time.Second, time.Millisecond, "the attempt's pipe got no input")
}

// A command that never reads its stdin takes none of it: the next reader
// of retry's stdin gets it all, as without retry (`seq 3 | while read l;
// do retry -- echo $l; done` printed 1 alone, and a script piped into a
// shell ended at its first retry). Before, the first chunk and a pipe's
// buffer were read ahead.
func TestAPipedStdinThatAnAttemptDoesNotReadStaysForTheNextReader(t *testing.T) {
	t.Parallel()
	src := pipedStdin(t, "line 1\nline 2\n")
	tp := newTape(src, t.TempDir(), 0)
	defer tp.close()
	attempt, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	handedOver(t, attempt)
	done()
	rest, err := io.ReadAll(src)
	require.NoError(t, err)
	assert.Equal(t, "line 1\nline 2\n", string(rest))
}

// An attempt that reads one line takes that line and no more; a retry is
// given the line again and then the rest.
func TestAPipedStdinGivesUpOnlyWhatTheAttemptRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		next func(t *testing.T, src *os.File, tp *tape) string
		want string
	}{
		{"to the next reader", func(t *testing.T, src *os.File, _ *tape) string {
			rest, err := io.ReadAll(src)
			require.NoError(t, err)
			return string(rest)
		}, "b\nc\n"},
		{"to a retry, after the line again", func(t *testing.T, _ *os.File, tp *tape) string {
			return readAttempt(t, tp, 1<<20)
		}, "a\nb\nc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := pipedStdin(t, "a\nb\nc\n")
			tp := newTape(src, t.TempDir(), 0)
			defer tp.close()
			attempt, done, err := tp.forAttempt(false)
			require.NoError(t, err)
			handedOver(t, attempt)
			line := make([]byte, 2)
			_, err = io.ReadFull(attempt, line)
			require.NoError(t, err)
			require.Equal(t, "a\n", string(line))
			done()
			assert.Equal(t, tc.want, tc.next(t, src, tp))
		})
	}
}

// Past preciseLimit the input is read ahead in bulk; every attempt still
// gets all of it, the first ones exactly as they read it.
func TestAPipedStdinPastThePreciseLimitReachesEveryAttemptWhole(t *testing.T) {
	t.Parallel()
	input := strings.Repeat("0123456789abcdef", 3*preciseLimit/16) // three times the limit
	src := pipedStdin(t, input)
	tp := newTape(src, t.TempDir(), 0)
	defer tp.close()
	assert.Equal(t, input[:100], readAttempt(t, tp, 100), "an attempt that stops early")
	assert.Equal(t, input, readAttempt(t, tp, 1<<30), "a retry gets the whole input")
	assert.Equal(t, input, readAttempt(t, tp, 1<<30), "and so does the next")
}

// An attempt that ends at once (a start that fails, a command that exits
// before the input arrives) must not be taken for the input's end: ending
// it closed its pipe while the feeder was about to copy into it, and the
// failed copy read as "no data and no writer", so every later attempt and
// the --fallback got only what was recorded, and then EOF. Found in
// review: 7 fallbacks of 1,000 got an empty input. Many rounds, as the
// window is narrow.
func TestAnAttemptThatEndsAtOnceIsNotTheEndOfTheInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 3000 {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		_, err = io.WriteString(w, "hello\n") // the writer stays open
		require.NoError(t, err)
		tp := newTape(r, dir, 0)
		_, done, err := tp.forAttempt(false)
		require.NoError(t, err)
		done()
		next, done2, err := tp.forAttempt(false)
		require.NoError(t, err)
		w.Close()
		got, err := io.ReadAll(next)
		require.NoError(t, err)
		done2()
		tp.close()
		r.Close()
		require.Equal(t, "hello\n", string(got), "round %d: the next attempt's input", i)
	}
}
