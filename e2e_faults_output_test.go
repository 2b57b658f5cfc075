package main

// Output under a fault only Go injects: a reader that stalls while the
// attempt exits. Output that is not text, passed through byte for byte,
// is a script in testdata/script.

import (
	"crypto/rand"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

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
