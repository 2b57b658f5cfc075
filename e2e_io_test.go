package main

// End-to-end tests of I/O fidelity: stdin replayed to every attempt, stdout
// once and only once, command strings, hooks, nesting, --cwd and --env.

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryIn runs the binary with stdin and returns the result.
func retryIn(t *testing.T, stdin io.Reader, env []string, args ...string) result {
	t.Helper()
	return runRetry(t, "", stdin, env, args...)
}

func TestEveryAttemptReadsTheSameStdin(t *testing.T) {
	t.Parallel()
	r := retryIn(t, strings.NewReader("abc"), nil, "--fast-delay", "1ms", "--",
		"sh", "-c", `read x; [ "$x" = abc ] && [ "$RETRY_ATTEMPT" = 3 ]`)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "succeeded on attempt 3")
}

func TestFiftyMegabytesOfStdinAreReplayedIntact(t *testing.T) {
	t.Parallel()
	input := make([]byte, 50<<20)
	_, err := rand.Read(input)
	require.NoError(t, err)
	sum := sha256.Sum256(input)
	dir := t.TempDir()
	// A pipe, not a file: retry must record and replay. The first attempt
	// reads only a little before failing.
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write(input)
		pw.Close()
	}()
	r := retryIn(t, pr, nil, "--fast-delay", "1ms", "--", "sh", "-c",
		`if [ "$RETRY_ATTEMPT" = 1 ]; then head -c 1000 >/dev/null; exit 1; fi
		 sha256sum | cut -d" " -f1 > "$0/sum.$RETRY_ATTEMPT"; [ "$RETRY_ATTEMPT" -ge 3 ]`, dir)
	require.Equal(t, 0, r.code, r.stderr)
	for _, n := range []string{"2", "3"} {
		got, err := os.ReadFile(filepath.Join(dir, "sum."+n))
		require.NoError(t, err)
		assert.Equal(t, hex.EncodeToString(sum[:]), strings.TrimSpace(string(got)), "attempt %s saw the whole input", n)
	}
}

func TestRegularFileOnStdinIsGivenToEveryAttemptFromItsStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "input")
	require.NoError(t, os.WriteFile(path, []byte("from a file\n"), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := retryIn(t, f, nil, "--fast-delay", "1ms", "--", "sh", "-c",
		`readlink /proc/self/fd/0; cat; [ "$RETRY_ATTEMPT" = 2 ]`)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, path+"\nfrom a file\n"+path+"\nfrom a file\n", r.stdout, "no copy: the attempt reads the file itself")
}

func TestStdinNullAndInherit(t *testing.T) {
	t.Parallel()
	r := retryIn(t, strings.NewReader("data"), nil, "--stdin", "null", "--", "cat")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)

	// inherit: the second attempt reads on where the first one stopped.
	r = retryIn(t, strings.NewReader("1\n2\n"), nil, "--stdin", "inherit", "--fast-delay", "1ms", "--",
		"sh", "-c", `read x; echo "got $x"; [ "$RETRY_ATTEMPT" = 2 ]`)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "got 1\n")
}

func TestEndlessStdinIsReadOnlyAsFarAsAttemptsRead(t *testing.T) {
	t.Parallel()
	yes := exec.Command("yes")
	out, err := yes.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, yes.Start())
	defer func() {
		_ = yes.Process.Kill()
		_ = yes.Wait()
	}()
	r := retryIn(t, out, nil, "-n", "2", "--", "head", "-c", "10")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "y\ny\ny\ny\ny\n", r.stdout)
	assert.Less(t, r.elapsed, 20*time.Second)
}

func TestBufferedStdoutEmitsOnlyTheSuccessfulAttemptOnce(t *testing.T) {
	t.Parallel()
	script := `echo "out $RETRY_ATTEMPT"; [ "$RETRY_ATTEMPT" = 3 ]`
	r := retryIn(t, nil, nil, "--stdout", "buffer", "--fast-delay", "1ms", "--", "sh", "-c", script)
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "out 3\n", r.stdout, "exactly one copy, from the attempt that succeeded")
	assert.Contains(t, r.stderr, "retry: output of failed attempt 1:\nout 1\n")
	assert.Contains(t, r.stderr, "retry: output of failed attempt 2:\nout 2\n")

	r = retryIn(t, nil, nil, "--stdout", "buffer", "--drop-failed-output", "--fast-delay", "1ms", "--", "sh", "-c", script)
	assert.Equal(t, "out 3\n", r.stdout)
	assert.NotContains(t, r.stderr, "out 1", "dropped on purpose")

	r = retryIn(t, nil, nil, "-n", "2", "--stdout", "buffer", "--fast-delay", "1ms", "--", "sh", "-c", `echo "out $RETRY_ATTEMPT"; exit 1`)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "retry: output of failed attempt 2:\nout 2\n", "the last failure's output is not lost either")
}

func TestBufferedStdoutBeyondMemorySpillsAndArrivesWhole(t *testing.T) {
	t.Parallel()
	r := retryIn(t, nil, nil, "--stdout", "buffer", "--", "head", "-c", "20000000", "/dev/zero")
	assert.Equal(t, 0, r.code)
	assert.Len(t, r.stdout, 20000000)
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

func TestCommandStringIsSplitLikeAShellWithoutOne(t *testing.T) {
	t.Parallel()
	r := retry(t, []string{"HOME=/nowhere"}, "-c", `printf '%s|' "a b" c\ d '$HOME' $HOME`)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "a b|c d|$HOME|/nowhere|", r.stdout, "variables expanded as a shell would, quotes respected, no shell")

	r = retry(t, nil, "--shell", "-c", "echo a b | tr a-z A-Z")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "A B\n", r.stdout)

	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-c", `echo "unclosed`}, `retry: -c: "echo \"unclosed": unbalanced quotes`},
		{[]string{"-c", `echo a | tr a b`}, `"|" is shell syntax; add --shell`},
		{[]string{"-c", "echo a", "--", "echo", "b"}, "give the command either as -c STRING or after the flags, not both"},
		{[]string{"--shell", "--", "echo"}, "retry: --shell: needs -c STRING"},
		{[]string{"-c", "   "}, "no command in the string"},
	} {
		r := retry(t, nil, tc.args...)
		assert.Equal(t, 125, r.code, tc.args)
		assert.Contains(t, r.stderr, tc.says)
	}
}

func TestOnRetryHookRunsBeforeEachRetryWithTheLastResult(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "3", "--fast-delay", "1ms",
		"--on-retry", `echo "hook $RETRY_ATTEMPT $RETRY_LAST_EXIT $RETRY_LAST_CLASS"`, "--", "sh", "-c", "exit 5")
	assert.Equal(t, 5, r.code)
	assert.Equal(t, 1, strings.Count(r.stderr, "hook 2 5 transient\n"), r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "hook 3 5 transient\n"))
	assert.NotContains(t, r.stdout, "hook", "hook output goes to stderr, not into the command's stdout")
}

func TestFailingHookIsReportedAndStopsOnlyWhenItMustSucceed(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "3", "--fast-delay", "1ms", "--on-retry", "exit 3", "--", "sh", "-c", "exit 5")
	assert.Equal(t, 5, r.code)
	assert.Contains(t, r.stderr, "retry: --on-retry command failed before attempt 2: exit 3\n")
	assert.Contains(t, r.stderr, "after 3 attempts", "the retries go on")

	r = retry(t, nil, "-n", "3", "--fast-delay", "1ms", "--on-retry", "exit 3", "--on-retry-must-succeed", "--", "sh", "-c", "exit 5")
	assert.Equal(t, 5, r.code, "the command's own failure is what is reported")
	assert.Contains(t, r.stderr, "after 1 attempt")
	assert.Contains(t, r.stderr, "the --on-retry command failed")
}

func TestNestedRetryWarnsOrMakesOneAttempt(t *testing.T) {
	t.Parallel()
	outer := []string{"RETRY_ATTEMPT=2"}
	r := retry(t, outer, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "exit 1")
	assert.Equal(t, 1, strings.Count(r.stderr, "retry: warning: running inside another retry"), "warned once")
	assert.Contains(t, r.stderr, "after 2 attempts")

	r = retry(t, outer, "--nested", "single", "--", "sh", "-c", "exit 1")
	assert.NotContains(t, r.stderr, "warning")
	assert.Contains(t, r.stderr, "after 1 attempt")
}

func TestCwdAndEnvReachTheCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := retry(t, nil, "--cwd", dir, "--env", "GREETING=hi there", "--env", "EMPTY=", "--", "sh", "-c", `pwd; echo "$GREETING"; echo "[${EMPTY-unset}]"`)
	assert.Equal(t, 0, r.code, r.stderr)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, real+"\nhi there\n[]\n", r.stdout)

	r = retry(t, nil, "--cwd", filepath.Join(dir, "missing"), "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "retry: --cwd: ")
	r = retry(t, nil, "--env", "NOEQUALS", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, `retry: --env: "NOEQUALS": want KEY=VALUE`)
}
