package runner

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/policy"
)

// twoFailures runs script twice (both attempts fail unless the script
// says otherwise) with our streams set by the caller.
func twoFailures(t *testing.T, cfg Config, script string) Result {
	t.Helper()
	p := policy.Default()
	p.Attempts, p.FastDelay, p.FastMax = 2, time.Millisecond, time.Millisecond
	cfg.Args = []string{"sh", "-c", script}
	cfg.Policy, cfg.Rand = p, rand.New(rand.NewPCG(1, 1))
	cfg.Signal, cfg.KillAfter = syscall.SIGTERM, time.Second
	res := Run(context.Background(), cfg)
	require.Len(t, res.Attempts, 2, "stop: %v", res.Stop)
	return res
}

func openOut(t *testing.T, name string, flag int) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(t.TempDir(), name), flag|os.O_WRONLY|os.O_CREATE, 0o644)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func known(n int64) Written { return Written{Bytes: n, Known: true} }

func TestWrittenToAFileIsCountedByItsOffsetWithoutACopy(t *testing.T) {
	t.Parallel()
	out, errs := openOut(t, "out", os.O_TRUNC), openOut(t, "err", os.O_TRUNC)
	res := twoFailures(t, Config{Stdout: out, Stderr: errs}, `printf abc; printf de >&2; exit 1`)
	for _, o := range res.Attempts {
		assert.Equal(t, known(3), o.StdoutWritten, "attempt %d", o.N)
		assert.Equal(t, known(2), o.StderrWritten, "attempt %d", o.N)
	}
	data, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	assert.Equal(t, "abcabc", string(data))
}

func TestWrittenToAFileOpenForAppendingIsCountedByItsGrowth(t *testing.T) {
	t.Parallel()
	out := openOut(t, "out", os.O_APPEND)
	_, err := out.WriteString("earlier run\n")
	require.NoError(t, err)
	// Our offset stays where it was whatever the child appends; only the
	// size tells.
	_, err = out.Seek(0, io.SeekStart)
	require.NoError(t, err)
	res := twoFailures(t, Config{Stdout: out}, `printf abcd; exit 1`)
	assert.Equal(t, known(4), res.Attempts[0].StdoutWritten)
	assert.Equal(t, known(4), res.Attempts[1].StdoutWritten)
}

func TestStdoutAndStderrInOneFileAreCountedTogether(t *testing.T) {
	t.Parallel()
	f := openOut(t, "both", os.O_TRUNC)
	res := twoFailures(t, Config{Stdout: f, Stderr: f}, `printf abc; printf de >&2; exit 1`)
	o := res.Attempts[0]
	assert.Equal(t, Written{Bytes: 5, Known: true, WithStderr: true}, o.StdoutWritten, "`> out 2>&1` cannot be told apart without a copy")
	assert.False(t, o.StderrWritten.Known, "counted with stdout")
}

func TestScannedStderrAndStdoutInOneFileGoThroughOnePipeAndOneCount(t *testing.T) {
	t.Parallel()
	f := openOut(t, "both", os.O_TRUNC)
	var seen lines
	res := twoFailures(t, Config{Stdout: f, Stderr: f, NewScan: func() LineScanner { return &seen }},
		`[ "$(readlink /proc/$$/fd/1)" = "$(readlink /proc/$$/fd/2)" ] || echo "two pipes" >&2
printf 'abc\n'; printf 'de\n' >&2; exit 1`)
	o := res.Attempts[0]
	assert.Equal(t, Written{Bytes: 7, Known: true, WithStderr: true}, o.StdoutWritten, "`> out 2>&1`: one copy carries both")
	assert.False(t, o.StderrWritten.Known, "counted with stdout")
	data, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	assert.Equal(t, "abc\nde\nabc\nde\n", string(data), "in the order they were written")
	assert.Contains(t, seen.got, "abc", "what is scanned holds stdout's lines too")
}

func TestWrittenToAPipeIsCountedOnlyWhenARetryMayFollow(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	got := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(r)
		got <- string(data)
	}()
	res := twoFailures(t, Config{Stdout: w}, `printf abc; exit 1`)
	w.Close()
	assert.Equal(t, known(3), res.Attempts[0].StdoutWritten, "copied, so counted: a retry may follow")
	assert.Equal(t, Written{}, res.Attempts[1].StdoutWritten, "the last attempt gets the pipe itself: no copy, no count")
	assert.Equal(t, "abcabc", <-got)
}

func TestStdoutAndStderrOnOnePipeKeepTheirOrderThroughTheCopy(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	got := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(r)
		got <- string(data)
	}()
	res := twoFailures(t, Config{Stdout: w, Stderr: w},
		`for i in 1 2 3 4 5; do echo "out $i"; echo "err $i" >&2; done; exit 1`)
	w.Close()
	assert.Equal(t, Written{Bytes: 60, Known: true, WithStderr: true}, res.Attempts[0].StdoutWritten)
	once := "out 1\nerr 1\nout 2\nerr 2\nout 3\nerr 3\nout 4\nerr 4\nout 5\nerr 5\n"
	assert.Equal(t, once+once, <-got, "`2>&1 |` sees the writes in the order they were made")
}

func TestBufferedStdoutIsCountedAsHeld(t *testing.T) {
	t.Parallel()
	res := twoFailures(t, Config{StdoutMode: StdoutBuffer}, `printf abc; exit 1`)
	assert.Equal(t, Written{Bytes: 3, Known: true, Held: true}, res.Attempts[0].StdoutWritten)
	assert.Equal(t, Written{Bytes: 3, Known: true, Held: true}, res.Attempts[1].StdoutWritten)
}

func TestTerminalOrDeviceOutputIsNotCounted(t *testing.T) {
	t.Parallel()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer null.Close()
	res := twoFailures(t, Config{Stdout: null, Stderr: null}, `printf abc; exit 1`)
	assert.Equal(t, Written{}, res.Attempts[0].StdoutWritten, "a character device is handed over as it is")
	assert.Equal(t, Written{}, res.Attempts[0].StderrWritten)
}
