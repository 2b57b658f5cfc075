package main

// End-to-end tests of I/O that a script expresses badly: a reader that
// goes away while retry writes. The other I/O stories (stdin replay,
// buffered stdout, command strings, hooks, --cwd, --env) are scripts in
// testdata/script.

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryIn runs the binary with stdin and returns the result.
func retryIn(t *testing.T, stdin io.Reader, env []string, args ...string) result {
	t.Helper()
	return runRetry(t, "", stdin, env, args...)
}

func TestBufferedStdoutThatCannotBeHeldReachesStdoutWholeAndIsNotRetried(t *testing.T) {
	t.Parallel()
	// Past the 8 MiB held in memory the spool needs TMPDIR. Without one
	// the copy took the failed write for a reader that went away: the
	// attempt was killed by SIGPIPE mid-output, its first 8 MiB were
	// printed to stderr as a failed attempt's, stdout got nothing, and
	// retry said "the reader of stdout went away" with exit 141.
	const size = 12 << 20
	env := []string{"TMPDIR=" + filepath.Join(t.TempDir(), "missing")}
	script := `head -c ` + strconv.Itoa(size) + ` /dev/zero; exit "$0"`
	warning := "retry: warning: --stdout buffer could not hold attempt 1's output past 8 MiB ("
	// The outputs hold megabytes of NUL bytes: compare sizes and look for
	// lines, never print them.
	has := func(s, sub string) bool { return strings.Contains(s, sub) }
	brief := func(s string) string { return s[:min(len(s), 600)] }

	r := retryIn(t, nil, env, "-n", "3", "--stdout", "buffer", "--", "sh", "-c", script, "0")
	assert.Equal(t, 0, r.code)
	assert.Equal(t, size, len(r.stdout), "the whole output, once")
	assert.Less(t, len(r.stderr), 4096, "no output on stderr, only lines of retry's")
	assert.True(t, has(r.stderr, warning), "warned: %q", brief(r.stderr))
	assert.False(t, has(r.stderr, "reader of stdout went away"))

	report := filepath.Join(t.TempDir(), "report.json")
	r = retryIn(t, nil, env, "-n", "3", "--fast-delay", "1ms", "--stdout", "buffer", "--report", report, "--", "sh", "-c", script, "1")
	assert.Equal(t, 1, r.code, "the attempt's own code")
	assert.Equal(t, size, len(r.stdout), "one attempt's output: no retry follows it")
	assert.Less(t, len(r.stderr), 4096, "no output on stderr, only lines of retry's")
	assert.True(t, has(r.stderr, warning), "warned: %q", brief(r.stderr))
	assert.True(t, has(r.stderr, "retry: giving up on sh after 1 attempt in "), "%q", brief(r.stderr))
	assert.True(t, has(r.stderr, "--stdout buffer could not hold the output, which went to stdout as it came, so a retry's would follow it"), "%q", brief(r.stderr))
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"outcome": "stdout-not-held"`)
}

func TestClosedDownstreamPipeEndsRetryQuietly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, script string
		readFirst    bool
	}{
		// The command survives the closed pipe (its own yes dies of it,
		// the shell goes on) and fails: retry must see that its reader is
		// gone rather than retry.
		{"pass", `yes; exit 1`, true},
		// Buffered output reaches stdout only on success; a failure after
		// the reader left must not be retried either.
		{"buffer", `head -c 100000 /dev/zero; exit 1`, false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := exec.Command(retryBin, "--stdout", tc.mode, "--", "sh", "-c", tc.script)
			c.Env = cleanEnv()
			stdout, err := c.StdoutPipe()
			require.NoError(t, err)
			var stderr bytes.Buffer
			c.Stderr = &stderr
			require.NoError(t, c.Start())
			if tc.readFirst {
				_, err = io.ReadFull(stdout, make([]byte, 10))
				require.NoError(t, err)
			}
			stdout.Close() // | head -c 10
			err = c.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 141, ee.ExitCode(), "the usual SIGPIPE status")
			assert.NotContains(t, stderr.String(), "attempt 2", "not a retry storm")
		})
	}
}

func TestRetrysOwnOutputToAGoneReaderEndsItQuietlyWithTheSIGPIPEStatus(t *testing.T) {
	t.Parallel()
	// `retry presets | head -0`: a program whose reader went away ends
	// with the SIGPIPE status and says nothing. retry said "retry:
	// presets: write /dev/stdout: broken pipe" and exited 125.
	for _, args := range [][]string{{"--version"}, {"presets"}, {"presets", "curl"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, r.Close()) // the reader is gone before the first write
			c := exec.Command(retryBin, args...)
			c.Env = cleanEnv()
			c.Stdout = w
			var stderr bytes.Buffer
			c.Stderr = &stderr
			err = c.Run()
			w.Close()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 141, ee.ExitCode(), "128+SIGPIPE, exited, not killed; stderr: %s", stderr.String())
			assert.Empty(t, stderr.String())
		})
	}
}
