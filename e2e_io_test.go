package main

// End-to-end tests of I/O that a script expresses badly: a reader that
// goes away while retry writes. The other I/O stories (stdin replay,
// buffered stdout, command strings, hooks, --cwd, --env) are scripts in
// testdata/script.

import (
	"bytes"
	"io"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryIn runs the binary with stdin and returns the result.
func retryIn(t *testing.T, stdin io.Reader, env []string, args ...string) result {
	t.Helper()
	return runRetry(t, "", stdin, env, args...)
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
