package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/resetsock"
	"retry/policy"
)

// bigInput is n bytes of varied content, so a lost or repeated chunk shows.
func bigInput(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestTapeThatCannotRecordStillGivesTheAttemptTheWholeStream(t *testing.T) {
	t.Parallel()
	input := bigInput(SpoolMemory + 3<<20) // past memory: the spool must spill
	for _, tc := range []struct {
		name    string
		tempDir string
		max     int64
		check   func(t *testing.T, lost *StdinLost)
	}{
		{"no temporary directory", filepath.Join(t.TempDir(), "missing"), 0, func(t *testing.T, lost *StdinLost) {
			assert.ErrorIs(t, lost, os.ErrNotExist)
			assert.EqualValues(t, SpoolMemory, lost.Recorded, "memory held all it could")
			assert.Zero(t, lost.Max)
		}},
		{"a file in place of the directory", writeFile(t, "not a dir"), 0, func(t *testing.T, lost *StdinLost) {
			assert.ErrorIs(t, lost, syscall.ENOTDIR)
		}},
		{"past the cap", t.TempDir(), 1 << 20, func(t *testing.T, lost *StdinLost) {
			assert.NoError(t, lost.Err)
			assert.EqualValues(t, 1<<20, lost.Max)
			assert.EqualValues(t, 1<<20, lost.Recorded, "recorded up to the cap exactly")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tp := newTape(bytes.NewReader(input), tc.tempDir, tc.max)
			defer tp.close()
			got := readAttempt(t, tp, 1<<30)
			assert.Equal(t, len(input), len(got), "the attempt got every byte")
			assert.True(t, string(input) == got, "the attempt got the stream in order")
			lost := tp.unreplayable()
			require.NotNil(t, lost, "a later attempt cannot be given the whole input")
			assert.EqualValues(t, len(input), lost.Read)
			assert.True(t, lost.Whole)
			tc.check(t, lost)
		})
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestTapeRecordsNothingForTheLastAttempt(t *testing.T) {
	t.Parallel()
	input := bigInput(SpoolMemory + 1<<20)
	tp := newTape(bytes.NewReader(input), filepath.Join(t.TempDir(), "missing"), 0)
	defer tp.close()
	r, done, err := tp.forAttempt(true)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	done()
	assert.True(t, bytes.Equal(input, got), "the attempt got the whole stream")
	assert.Zero(t, tp.rec.Size(), "nothing was kept: no attempt follows")
	assert.Nil(t, tp.unreplayable(), "nothing was refused either")
}

func TestTapeBelowTheCapStaysReplayable(t *testing.T) {
	t.Parallel()
	input := strings.Repeat("x", 100<<10)
	tp := newTape(strings.NewReader(input), t.TempDir(), int64(len(input)))
	defer tp.close()
	assert.Equal(t, input, readAttempt(t, tp, 1<<30))
	assert.Nil(t, tp.unreplayable(), "an input of exactly the cap is whole")
	assert.Equal(t, input, readAttempt(t, tp, 1<<30))
}

func TestAttemptRunningWhenRecordingStopsGetsTheWholeStream(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	tp := newTape(pr, t.TempDir(), 10)
	defer tp.close()

	go func() { _, _ = pw.Write([]byte("abcde")) }()
	assert.Equal(t, "abcde", readAttempt(t, tp, 5), "the first attempt read what there was")
	assert.Nil(t, tp.unreplayable())

	// The second attempt is replaying when the cap is passed.
	go func() {
		_, _ = pw.Write([]byte("fghijklmnop"))
		_, _ = pw.Write([]byte("qrst"))
		pw.Close()
	}()
	assert.Equal(t, "abcdefghijklmnopqrst", readAttempt(t, tp, 1<<20))
	lost := tp.unreplayable()
	require.NotNil(t, lost)
	assert.EqualValues(t, 10, lost.Recorded)
	assert.EqualValues(t, 20, lost.Read)
}

// pipeOf returns the read end of a pipe that is fed data and closed.
func pipeOf(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	go func() {
		_, _ = w.Write(data)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRunRefusesARetryWhoseStdinCanNoLongerBeReplayed(t *testing.T) {
	t.Parallel()
	input := bigInput(3 << 20)
	sum := sha256.Sum256(input)
	dir := t.TempDir()
	p := policy.Default()
	p.FastDelay, p.FastMax = time.Millisecond, time.Millisecond
	gate := &countingGate{}
	res := Run(context.Background(), Config{
		Args:      []string{"sh", "-c", `sha256sum | cut -d" " -f1 > "$0/sum.$RETRY_ATTEMPT"; exit 3`, dir},
		Gate:      gate,
		Stdin:     pipeOf(t, input),
		StdinMode: StdinReplay,
		StdinMax:  1 << 20,
		Policy:    p,
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Signal:    syscall.SIGTERM,
		KillAfter: time.Second,
	})
	assert.Equal(t, StdinUnreplayable, res.Stop)
	require.Len(t, res.Attempts, 1, "no attempt after the input was lost")
	assert.Equal(t, 3, res.Last().Exit.Code)
	assert.False(t, res.Last().Next.Retry, "no wait is announced")
	assert.Equal(t, 1, gate.done, "the gate is told how the attempt ended")
	assert.Zero(t, gate.allow, "but not asked for a retry that will not run: no budget is spent on it")
	require.NotNil(t, res.StdinLost)
	assert.EqualValues(t, 1<<20, res.StdinLost.Max)
	assert.EqualValues(t, len(input), res.StdinLost.Read)
	got, err := os.ReadFile(filepath.Join(dir, "sum.1"))
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(sum[:]), strings.TrimSpace(string(got)), "the first attempt read the whole input")
}

// countingGate counts the calls a Gate receives and allows every retry.
type countingGate struct{ admit, done, allow int }

func (g *countingGate) Admit(context.Context, int, time.Time) error { g.admit++; return nil }
func (g *countingGate) Allow(context.Context, int) error            { g.allow++; return nil }
func (g *countingGate) Done(context.Context, Attempt)               { g.done++ }

// failingReader returns err once its data is read, as a socket that was
// reset or a terminal that went away does.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestTapeHandsTheEndOfInputWhereReadingFailedAndSaysItWasCut(t *testing.T) {
	t.Parallel()
	tp := newTape(&failingReader{data: []byte("hello\n"), err: syscall.ECONNRESET}, t.TempDir(), 0)
	defer tp.close()
	r, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err, "the attempt sees the end of its input: a pipe cannot carry the error")
	done()
	assert.Equal(t, "hello\n", string(got))
	lost := tp.unreplayable()
	require.NotNil(t, lost, "the rest of the input is out of reach: no attempt may follow")
	assert.ErrorIs(t, lost.ReadErr, syscall.ECONNRESET)
	assert.True(t, lost.Cut, "the attempt was handed the end of its input where reading failed")
	assert.EqualValues(t, 6, lost.Read)
	assert.False(t, lost.Whole)
}

func TestTapeAtItsRealEndIsNeitherCutNorLost(t *testing.T) {
	t.Parallel()
	tp := newTape(&failingReader{data: []byte("hello\n"), err: io.EOF}, t.TempDir(), 0)
	defer tp.close()
	r, done, err := tp.forAttempt(false)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	done()
	assert.Equal(t, "hello\n", string(got))
	assert.Nil(t, tp.unreplayable())
}

func cutStdinConfig(t *testing.T, script, data string) Config {
	p := policy.Default()
	p.FastDelay, p.FastMax = time.Millisecond, time.Millisecond
	return Config{
		Args:      []string{"sh", "-c", script},
		Stdin:     resetsock.Stdin(t, data),
		StdinMode: StdinReplay,
		Policy:    p,
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Signal:    syscall.SIGTERM,
		KillAfter: time.Second,
	}
}

func TestRunDoesNotPassOnASuccessOnAStdinCutByAReset(t *testing.T) {
	t.Parallel()
	res := Run(context.Background(), cutStdinConfig(t, "cat >/dev/null", "hello\n"))
	assert.Equal(t, StdinReadFailed, res.Stop)
	require.Len(t, res.Attempts, 1)
	assert.Equal(t, 0, res.Last().Exit.Code, "cat took the end of its input for the end")
	require.NotNil(t, res.StdinLost)
	assert.ErrorIs(t, res.StdinLost.ReadErr, syscall.ECONNRESET)
	assert.True(t, res.StdinLost.Cut)
	assert.EqualValues(t, 6, res.StdinLost.Read)
}

func TestACommandThatNeverReadsAFailingStdinIsNotCut(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{"after data": "hello\n", "at once": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := Run(context.Background(), cutStdinConfig(t, "exit 0", data))
			assert.Equal(t, Succeeded, res.Stop, "it read nothing, so nothing was cut")
		})
	}
}

func TestRunDoesNotRetryAfterReadingStdinFailed(t *testing.T) {
	t.Parallel()
	res := Run(context.Background(), cutStdinConfig(t, "cat >/dev/null; exit 3", "hello\n"))
	assert.Equal(t, StdinUnreplayable, res.Stop)
	require.Len(t, res.Attempts, 1, "no attempt after the input was cut")
	assert.Equal(t, 3, res.Last().Exit.Code)
	require.NotNil(t, res.StdinLost)
	assert.ErrorIs(t, res.StdinLost.ReadErr, syscall.ECONNRESET)
}

func TestRunHandsAWriteOnlyStdinToEveryAttemptAsItIs(t *testing.T) {
	t.Parallel()
	w, err := os.OpenFile(filepath.Join(t.TempDir(), "w"), os.O_WRONLY|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer w.Close()
	p := policy.Default()
	p.Attempts, p.FastDelay, p.FastMax = 2, time.Millisecond, time.Millisecond
	res := Run(context.Background(), Config{
		Args:      []string{"sh", "-c", "cat || exit 9"},
		Stdin:     w,
		StdinMode: StdinReplay,
		Policy:    p,
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Signal:    syscall.SIGTERM,
		KillAfter: time.Second,
	})
	assert.Equal(t, Exhausted, res.Stop, "each attempt fails reading, as without retry; no cut input is made of it")
	assert.Equal(t, 9, res.Last().Exit.Code)
}

func TestRunHandsADirectoryAsStdinToEveryAttemptAsItIs(t *testing.T) {
	t.Parallel()
	dir, err := os.Open(t.TempDir())
	require.NoError(t, err)
	defer dir.Close()
	errs, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer errs.Close()
	p := policy.Default()
	p.Attempts, p.FastDelay, p.FastMax = 2, time.Millisecond, time.Millisecond
	res := Run(context.Background(), Config{
		Args:      []string{"cat"},
		Stdin:     dir,
		Stderr:    errs,
		StdinMode: StdinReplay,
		Policy:    p,
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Signal:    syscall.SIGTERM,
		KillAfter: time.Second,
	})
	assert.Equal(t, Exhausted, res.Stop)
	require.Len(t, res.Attempts, 2)
	assert.Equal(t, 1, res.Last().Exit.Code, "cat fails on the directory itself, as it would without retry")
	said, err := os.ReadFile(errs.Name())
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(said), "Is a directory"), "each attempt says so: %s", said)
}
