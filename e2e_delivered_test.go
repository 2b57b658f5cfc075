package main

// Output that already went downstream when an attempt failed, on a
// terminal: a person watching sees both attempts, so no warning line is
// said. The pipe, file and byte-count stories are scripts in
// testdata/script.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoRepeatLineOnATerminal(t *testing.T) {
	t.Parallel()
	_, _, output, done := ptyRetry(t, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "echo partial; exit 1")
	<-done
	got := output()
	assert.Contains(t, got, "giving up on sh")
	assert.Equal(t, 2, strings.Count(got, "partial"), "a person watching sees both attempts")
	assert.NotContains(t, got, "retry: warning: attempt")
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
