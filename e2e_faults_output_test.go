package main

// Output under faults: a reader that stalls while the attempt exits, and
// output that is not text (binary, NUL bytes, invalid UTF-8, one huge
// line), passed through byte for byte with scanning on.

import (
	"crypto/rand"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlowReaderGetsAllOutputOfAnAttemptThatExited(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		stderr bool
	}{
		{"scanned stdout", []string{"--retry-if", "nomatch", "--match-stdout"}, false},
		{"scanned stderr", []string{"--retry-if", "nomatch"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			// 150 kB: more than the pipes between the attempt and the
			// reader hold, so the attempt's pipe is full when it exits.
			blob := make([]byte, 150_000)
			_, err := rand.Read(blob)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "blob"), blob, 0o600))
			redirect := ""
			if tc.stderr {
				redirect = " >&2"
			}
			pidfile := filepath.Join(dir, "pid")
			args := append(append([]string{}, tc.args...), "--", "sh", "-c", `echo $$ > "$0/pid"; exec cat "$0/blob"`+redirect, dir)
			c := exec.Command(retryBin, args...)
			c.Env = cleanEnv()
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pr.Close()
			if tc.stderr {
				c.Stderr = pw
			} else {
				c.Stdout = pw
			}
			require.NoError(t, c.Start())
			pw.Close()
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			t.Cleanup(func() { _ = c.Process.Kill() })

			// The reader stalls until the attempt has exited, and for a
			// while after (a pager waiting for a key press, say): longer
			// than retry waits for a pipe held open by a stranger.
			pid := awaitPids(t, pidfile, 1)[0]
			require.Eventually(t, func() bool { _, ok := readStat(pid); return !ok }, eventLimit, 5*time.Millisecond)
			time.Sleep(3 * time.Second) // the fault: a stalled reader, not a wait for retry

			got, err := io.ReadAll(pr)
			require.NoError(t, err)
			require.NoError(t, <-done)
			assert.Equal(t, len(blob), len(got), "every byte arrives")
			assert.Equal(t, sha256.Sum256(blob), sha256.Sum256(got))
		})
	}
}

// hashReader streams r into a SHA-256 and counts the bytes.
func hashReader(r io.Reader) ([32]byte, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, n, err
}

func TestOutputThatIsNotTextPassesThroughByteForByte(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Binary with NUL bytes and invalid UTF-8, lines ending in \r, \n or
	// nothing; then one line of 100 MiB with the pattern near its start.
	small := make([]byte, 1<<20)
	_, err := rand.Read(small)
	require.NoError(t, err)
	small = append(small, "\x00\xff\xfe needle \xc3\x28\r\n"...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "small"), small, 0o600))
	f, err := os.Create(filepath.Join(dir, "huge"))
	require.NoError(t, err)
	_, err = f.WriteString("needle ")
	require.NoError(t, err)
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte('a' + i%26)
	}
	for range 100 {
		_, err = f.Write(chunk)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"scanned", []string{"--retry-if", "needle", "--match-stdout"}},
		{"held", []string{"--stdout", "buffer"}},
		{"held and scanned", []string{"--stdout", "buffer", "--retry-if", "needle", "--match-stdout"}},
	} {
		for _, file := range []string{"small", "huge"} {
			t.Run(tc.name+"/"+file, func(t *testing.T) {
				t.Parallel()
				want, err := os.ReadFile(filepath.Join(dir, file))
				require.NoError(t, err)
				tmp := t.TempDir()
				// The second attempt succeeds, so held output reaches stdout.
				args := append(append([]string{"-n", "2", "--fast-delay", "1ms"}, tc.args...), "--", "sh", "-c",
					`cat "$0"; [ "$RETRY_ATTEMPT" = 2 ]`, filepath.Join(dir, file))
				c := exec.Command(retryBin, args...)
				c.Env = append(cleanEnv(), "TMPDIR="+tmp)
				stdout, err := c.StdoutPipe()
				require.NoError(t, err)
				stderr := &strings.Builder{}
				c.Stderr = stderr
				require.NoError(t, c.Start())
				sum, n, err := hashReader(stdout)
				require.NoError(t, err)
				require.NoError(t, c.Wait(), stderr.String())

				copies := int64(2) // passed through: both attempts' output
				if slices.Contains(tc.args, "buffer") {
					copies = 1 // held: only the successful attempt's
				}
				assert.Equal(t, copies*int64(len(want)), n, "every byte, no more")
				h := sha256.New()
				for range copies {
					h.Write(want)
				}
				assert.Equal(t, h.Sum(nil), sum[:], "byte for byte")
				if slices.Contains(tc.args, "needle") {
					assert.Contains(t, stderr.String(), `attempt 1/2 failed: exit 1 (transient: --retry-if "needle"`, "matched")
				}
				for _, l := range strings.Split(stderr.String(), "\n") {
					if strings.HasPrefix(l, "retry: ") {
						assert.True(t, utf8.ValidString(l), "retry's own lines stay valid UTF-8: %q", l)
					}
				}
				assertEmptyDir(t, tmp)
			})
		}
	}
}
