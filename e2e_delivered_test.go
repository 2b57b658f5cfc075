package main

// End-to-end tests of output that already went downstream when an attempt
// failed: the one warning line that says the next attempt's output will
// follow it, where it is said and where not, and the per-attempt byte
// counts in the report and the JSON log.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const partialTwice = "partial\npartial\n"

// repeatWarning is the start of the line said when a failed attempt's
// stdout went downstream and a retry follows.
func repeatWarning(attempt int, what string) string {
	return "retry: warning: attempt " + strconv.Itoa(attempt) + " failed after writing " + what + " to stdout; attempt " +
		strconv.Itoa(attempt+1) + "'s output will follow them, so the reader gets both; --stdout buffer passes on only the successful attempt's output\n"
}

// retryTo runs the binary with its stdout on f and returns how it ended,
// with its stderr.
func retryTo(t *testing.T, f *os.File, args ...string) result {
	t.Helper()
	c := exec.Command(retryBin, args...)
	c.Env = cleanEnv()
	var stderr strings.Builder
	c.Stdout, c.Stderr = f, &stderr
	err := c.Run()
	r := result{stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

func TestPipedConsumerIsToldOnStderrThatARetrysOutputFollowsThePartialOne(t *testing.T) {
	t.Parallel()
	// A real pipeline: the consumer is another process reading retry's
	// stdout through a pipe, as in `retry ... | consumer`.
	out := filepath.Join(t.TempDir(), "consumed")
	c := exec.Command("sh", "-c", `"$0" -n 3 --fast-delay 1ms -- sh -c 'echo partial; exit 1' | cat > "$1"`, retryBin, out)
	c.Env = cleanEnv()
	r := runCmd(t, c)
	assert.Equal(t, 0, r.code, "the pipeline's status is cat's")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "partial\npartial\npartial\n", string(got), "the consumer does get every attempt's output")
	assert.Contains(t, r.stderr, repeatWarning(1, "8 bytes"))
	assert.Equal(t, 1, strings.Count(r.stderr, "retry: warning: attempt"), "said once a run, not once an attempt:\n%s", r.stderr)
}

func TestRegularFileHoldingTwoAttemptsOutputIsSaidSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		flag int
		had  string
	}{
		{"truncated (>)", os.O_TRUNC, ""},
		{"appended to (>>)", os.O_APPEND, "an earlier run\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Fields(c.name)[0]+".json")
			require.NoError(t, os.WriteFile(path, []byte(c.had), 0o644))
			f, err := os.OpenFile(path, os.O_WRONLY|c.flag, 0)
			require.NoError(t, err)
			defer f.Close()
			r := retryTo(t, f, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c",
				`[ "$(readlink /proc/$$/fd/1)" = "$0" ] || echo "stdout is not the file" >&2; echo partial; exit 1`, path)
			assert.Equal(t, 1, r.code)
			assert.NotContains(t, r.stderr, "not the file", "the file itself is handed over: no copy")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, c.had+partialTwice, string(got))
			assert.Contains(t, r.stderr, repeatWarning(1, "8 bytes"), "counted by the file's offset or size")
		})
	}
}

func TestNoRepeatLineOnATerminal(t *testing.T) {
	t.Parallel()
	_, _, output, done := ptyRetry(t, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "echo partial; exit 1")
	<-done
	got := output()
	assert.Contains(t, got, "giving up on sh")
	assert.Equal(t, 2, strings.Count(got, "partial"), "a person watching sees both attempts")
	assert.NotContains(t, got, "retry: warning: attempt")
}

func TestNoRepeatLineWithBufferedStdout(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "2", "--stdout", "buffer", "--fast-delay", "1ms", "--", "sh", "-c", "echo partial; exit 1")
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout, "nothing of a failed attempt reaches stdout")
	assert.NotContains(t, r.stderr, "retry: warning: attempt")
}

func TestQuietKeepsOnlyTheGiveUpLineButTheReportStillCounts(t *testing.T) {
	t.Parallel()
	report := filepath.Join(t.TempDir(), "report.json")
	r := retry(t, nil, "-q", "-n", "2", "--fast-delay", "1ms", "--report", report, "--", "sh", "-c", "echo partial; exit 1")
	assert.Equal(t, partialTwice, r.stdout)
	assert.Len(t, r.lines(t), 1, "-q: the give-up line only")
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"stdout_bytes": 8`)
}

func TestNoRepeatLineWhenTheFailedAttemptWroteNothingToStdout(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "3", "--fast-delay", "1ms", "--", "sh", "-c",
		`echo "only on stderr" >&2; [ "$RETRY_ATTEMPT" = 2 ] && echo done`)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "done\n", r.stdout)
	assert.NotContains(t, r.stderr, "retry: warning: attempt")
}

func TestNoRepeatLineWhenNoRetryFollows(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", `echo partial; [ "$RETRY_ATTEMPT" = 1 ] && exit 2; exit 64`)
	assert.Equal(t, 64, r.code, "the second attempt fails terminally")
	assert.Contains(t, r.stderr, repeatWarning(1, "8 bytes"), "before the second attempt")
	r = retry(t, nil, "-n", "1", "--", "sh", "-c", "echo partial; exit 1")
	assert.NotContains(t, r.stderr, "retry: warning: attempt", "one attempt: nothing can follow")
}

func TestStdoutPipeIsHandedOverAsItIsToTheLastAttempt(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	var st syscall.Stat_t
	require.NoError(t, syscall.Fstat(int(pw.Fd()), &st))
	ours := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	read := make(chan string, 1)
	go func() {
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				read <- b.String()
				return
			}
		}
	}()
	r := retryTo(t, pw, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", `readlink /proc/self/fd/1; exit 1`)
	pw.Close()
	assert.Equal(t, 1, r.code)
	lines := strings.Split(strings.TrimSpace(<-read), "\n")
	require.Len(t, lines, 2)
	assert.NotEqual(t, ours, lines[0], "a retry may follow the first attempt: its output is copied, to be counted")
	assert.Equal(t, ours, lines[1], "nothing can follow the last: it gets our own pipe, no copy")
}

func TestReportAndJSONLogCountEachAttemptsBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	out, err := os.Create(filepath.Join(dir, "out"))
	require.NoError(t, err)
	defer out.Close()
	r := retryTo(t, out, "-n", "2", "--fast-delay", "1ms", "--report", report, "--log-format", "json",
		"--retry-if", "try again", "--", "sh", "-c", `echo partial; echo "try again" >&2; exit 1`)
	require.Equal(t, 1, r.code, r.stderr)

	type counts struct {
		Type        string `json:"type"`
		StdoutBytes *int64 `json:"stdout_bytes"`
		StderrBytes *int64 `json:"stderr_bytes"`
	}
	var doc struct{ Attempts []counts }
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Attempts, 2)
	var ends []counts
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // the command's own stderr
		}
		var c counts
		require.NoError(t, json.Unmarshal([]byte(line), &c), line)
		if c.Type == "attempt_end" {
			ends = append(ends, c)
		}
	}
	require.Len(t, ends, 2)
	for i, got := range [][]counts{doc.Attempts, ends} {
		for _, a := range got {
			require.NotNil(t, a.StdoutBytes, "a file's growth is counted (source %d)", i)
			assert.EqualValues(t, 8, *a.StdoutBytes)
			require.NotNil(t, a.StderrBytes, "scanned stderr goes through a copy that counts it")
			assert.EqualValues(t, 10, *a.StderrBytes)
		}
	}

	// A pipe handed to the last attempt as it is cannot be counted: null.
	r = retry(t, nil, "-n", "2", "--fast-delay", "1ms", "--log-format", "json", "--", "sh", "-c", "echo partial; exit 1")
	assert.Equal(t, partialTwice, r.stdout)
	var stdoutBytes []any
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["type"] == "attempt_end" {
			stdoutBytes = append(stdoutBytes, m["stdout_bytes"])
		}
	}
	assert.Equal(t, []any{8.0, nil}, stdoutBytes)
}

func TestStdoutAndStderrMergedKeepTheirOrderWhileStderrIsScanned(t *testing.T) {
	t.Parallel()
	// The signatures read every program's stderr through a pipe of
	// retry's. With `2>&1 |` or `> log 2>&1` a second pipe for stdout
	// let the two copies reorder the writes, and split a line written a
	// byte at a time (curl writes its error so): `cbody 503` then
	// `url: (22) …`.
	script := `[ "$(readlink /proc/$$/fd/1)" = "$(readlink /proc/$$/fd/2)" ] || echo "two pipes" >&2
for i in 1 2 3 4 5 6 7 8; do echo "out $i"; printf 'e'; printf 'rr %s\n' "$i" >&2; done; exit 1`
	once := ""
	for i := 1; i <= 8; i++ {
		once += "out " + strconv.Itoa(i) + "\nerr " + strconv.Itoa(i) + "\n"
	}
	check := func(t *testing.T, got string) {
		t.Helper()
		assert.NotContains(t, got, "two pipes", "stdout and stderr share one pipe")
		var theirs strings.Builder
		for _, l := range strings.SplitAfter(got, "\n") {
			if !strings.HasPrefix(l, "retry: ") {
				theirs.WriteString(l)
			}
		}
		assert.Equal(t, once+once, theirs.String(), "the writes arrive in the order they were made")
	}
	t.Run("pipe", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "consumed")
		c := exec.Command("sh", "-c", `"$0" -n 2 --fast-delay 1ms -- sh -c "$2" 2>&1 | cat > "$1"`, retryBin, out, script)
		c.Env = cleanEnv()
		r := runCmd(t, c)
		assert.Equal(t, 0, r.code)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		check(t, string(got))
		assert.Contains(t, string(got), "retry: warning: attempt 1 failed after writing 96 bytes to stdout and stderr")
	})
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "log")
		f, err := os.Create(path)
		require.NoError(t, err)
		defer f.Close()
		c := exec.Command(retryBin, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", script)
		c.Env = cleanEnv()
		c.Stdout, c.Stderr = f, f
		err = c.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, 1, ee.ExitCode())
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		check(t, string(got))
	})
}
