package runner

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyAll writes data into a new pipe whose other end a plain copier
// (no matcher) copies to dst, and waits for the copy to end.
func copyAll(t *testing.T, data []byte, dst io.Writer) *copier {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	c := startCopier(&copier{r: r, dst: dst})
	_, werr := w.Write(data)
	w.Close()
	<-c.done
	r.Close()
	if !c.downstreamGone {
		require.NoError(t, werr)
	}
	return c
}

func TestPlainCopyToAPipeArrivesWholeAndCounted(t *testing.T) {
	t.Parallel()
	data := make([]byte, 8<<20+123) // several pipes' worth, not a multiple of anything
	_, err := rand.Read(data)
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	c := copyAll(t, data, w)
	w.Close()
	assert.True(t, bytes.Equal(data, <-got), "byte for byte")
	assert.EqualValues(t, len(data), c.written.Load())
	assert.False(t, c.downstreamGone)
}

func TestPlainCopyToAFileThatCannotTakeASpliceIsMadeWithReadAndWrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600) // splice(2) refuses O_APPEND
	require.NoError(t, err)
	defer f.Close()
	data := bytes.Repeat([]byte("line\n"), 100000)
	c := copyAll(t, data, f)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, got))
	assert.EqualValues(t, len(data), c.written.Load())
}

func TestPlainCopyStopsWhenItsReaderGoesAway(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	r.Close() // `| head -1` after head exited
	c := copyAll(t, bytes.Repeat([]byte("x"), 4<<20), w)
	assert.True(t, c.downstreamGone, "a closed reader ends the copy, so the child's next write fails as it would without retry")
}

func TestPipesStillHeldAfterASuccessShareOneWait(t *testing.T) {
	t.Parallel()
	// A service the successful attempt left running holds the attempt's
	// pipes (stdout through the counting pipe, stderr through the one the
	// signatures read). Each used to get its own leftAloneDrain, one after
	// the other, so retry's exit waited for the sum of them.
	const pipes = 5
	a := &attemptIO{stdinDone: func() {}}
	for range pipes {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		t.Cleanup(func() { w.Close(); r.Close() }) // w: the service's end, open throughout
		a.copiers = append(a.copiers, startCopier(&copier{r: r, dst: io.Discard}))
	}
	start := time.Now()
	a.finish(true)
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, leftAloneDrain)
	assert.Less(t, took, pipes*leftAloneDrain, "one wait for all the pipes, not one each")
	for _, c := range a.copiers {
		assert.True(t, c.held, "kept for handOff")
	}
}
