package main

// --report and --metrics-file given something other than a regular file: a
// FIFO, a device, a file descriptor, a link to one (/dev/stderr), and "-".
// They are written into, never replaced, and nothing is left beside them.

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"retry/internal/slowtest"
)

// outputFlags are the two flags that write a file when the run ends, and
// a line each one's content holds.
var outputFlags = []struct{ flag, holds string }{
	{"--report", `"schema_version": 1`},
	{"--metrics-file", `retry_runs_total{name="sh",outcome="success"} 1`},
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

func assertType(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, want, info.Mode().Type(), "%s keeps its type", path)
}

func TestReportAndMetricsAreWrittenIntoAFIFOWithAReader(t *testing.T) {
	t.Parallel()
	for _, of := range outputFlags {
		t.Run(of.flag, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(dir, "out")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			read := make(chan string, 1)
			go func() {
				data, _ := os.ReadFile(fifo) // waits for retry to open, then to close
				read <- string(data)
			}()
			r := retry(t, nil, of.flag, fifo, "--", "sh", "-c", "exit 0")
			assert.Equal(t, 0, r.code)
			assert.Empty(t, r.stderr)
			select {
			case got := <-read:
				assert.Contains(t, got, of.holds)
			case <-time.After(eventLimit):
				t.Fatal("nothing reached the FIFO's reader")
			}
			assertType(t, fifo, fs.ModeNamedPipe)
			assert.Equal(t, []string{"out"}, entries(t, dir), "no lock or temporary file beside it")
		})
	}
}

func TestReportAndMetricsAreWrittenIntoACharacterDevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	// A copy of /dev/null: major 1, minor 3 on Linux.
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("mknod is not permitted here: %v", err)
	}
	for _, of := range outputFlags {
		r := retry(t, nil, of.flag, null, "--", "sh", "-c", "exit 0")
		assert.Equal(t, 0, r.code, of.flag)
		assert.Empty(t, r.stderr, of.flag)
		assertType(t, null, fs.ModeDevice|fs.ModeCharDevice)
		assert.Equal(t, []string{"null"}, entries(t, dir), "%s: no lock or temporary file beside it", of.flag)
	}
}

func TestReportAndMetricsThroughALinkToStderrGoToStderr(t *testing.T) {
	t.Parallel()
	// A link of our own, as /dev/stderr is: the real one is never used, so
	// a bug cannot replace it.
	for _, to := range []string{"/proc/self/fd/2", "/dev/fd/2"} {
		for _, stderrIsAFile := range []bool{false, true} {
			name := to + ", stderr a pipe"
			if stderrIsAFile {
				name = to + ", stderr a file"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				link := filepath.Join(dir, "stderr")
				require.NoError(t, os.Symlink(to, link))
				args := []string{"--report", link, "--metrics-file", link, "--", "sh", "-c", "echo from-the-command >&2"}
				var stderr string
				if stderrIsAFile {
					logDir := t.TempDir()
					log, err := os.Create(filepath.Join(logDir, "log"))
					require.NoError(t, err)
					defer log.Close()
					c := exec.Command(retryBin, args...)
					c.Env = cleanEnv()
					c.Stderr = log
					require.NoError(t, c.Run())
					data, err := os.ReadFile(log.Name())
					require.NoError(t, err)
					stderr = string(data)
				} else {
					r := retry(t, nil, args...)
					require.Equal(t, 0, r.code, r.stderr)
					stderr = r.stderr
				}
				assert.True(t, strings.HasPrefix(stderr, "from-the-command\n{\n"), "the report follows the command's output, nothing overwritten:\n%s", stderr)
				for _, of := range outputFlags {
					assert.Contains(t, stderr, of.holds)
				}
				got, err := os.Readlink(link)
				require.NoError(t, err, "the link is still a link")
				assert.Equal(t, to, got)
				assert.Equal(t, []string{"stderr"}, entries(t, dir), "no lock or temporary file beside it")
			})
		}
	}
}

func TestReportAndMetricsGoToAnInheritedDescriptor(t *testing.T) {
	t.Parallel()
	for _, of := range outputFlags {
		t.Run(of.flag, func(t *testing.T) {
			t.Parallel()
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pr.Close()
			c := exec.Command(retryBin, of.flag, "/dev/fd/3", "--", "sh", "-c", "exit 0")
			c.Env = cleanEnv()
			c.ExtraFiles = []*os.File{pw} // fd 3
			read := make(chan string, 1)
			go func() {
				data, _ := io.ReadAll(pr)
				read <- string(data)
			}()
			r := runCmd(t, c)
			pw.Close()
			assert.Equal(t, 0, r.code)
			assert.Empty(t, r.stderr)
			select {
			case got := <-read:
				assert.Contains(t, got, of.holds)
			case <-time.After(eventLimit):
				t.Fatal("nothing reached the pipe")
			}
		})
	}
}

func TestDescriptorThatIsNotOpenIsAWarningNotAFile(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "--report", "/dev/fd/9", "--", "sh", "-c", "exit 0")
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "retry: warning: --report /dev/fd/9: report file: file descriptor 9 is not open\n", r.stderr)
}

func TestDashMeansStandardErrorNotAFileNamedDash(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runRetry(t, dir, nil, nil, "--report", "-", "--metrics-file", "-", "--", "sh", "-c", "exit 0")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, entries(t, dir), "no file named -")
	i := strings.Index(r.stderr, "# HELP")
	require.Positive(t, i, r.stderr)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stderr[:i]), &doc), "the report comes first, whole")
	assert.Equal(t, "success", doc["outcome"])
	assert.Contains(t, r.stderr[i:], outputFlags[1].holds)
}

func TestFIFOWithoutAReaderCostsSecondsAndAWarningNotAHang(t *testing.T) {
	slowtest.Only(t, "waits out the 2 s FIFO bound twice")
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r := retry(t, nil, "--report", fifo, "--metrics-file", fifo, "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, r.code, "the command's code, whatever became of the report")
	assert.Contains(t, r.stderr, "retry: warning: --report "+fifo+": report file: no reader opened the FIFO within 2s\n")
	assert.Contains(t, r.stderr, "retry: warning: --metrics-file "+fifo+": metrics file: no reader opened the FIFO within 2s\n")
	assert.Less(t, r.elapsed, 30*time.Second, "two waits of 2s, not a hang")
	assertType(t, fifo, fs.ModeNamedPipe)
	assert.Equal(t, []string{"out"}, entries(t, dir))
}

func TestLinkToARegularFileIsReplacedAndItsTargetLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("precious\n"), 0o600))
	link := filepath.Join(dir, "report.json")
	require.NoError(t, os.Symlink(target, link))
	r := retry(t, nil, "--report", link, "--", "sh", "-c", "exit 0")
	assert.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "precious\n", string(data), "nothing is written through the link")
	assertType(t, link, 0)
	data, err = os.ReadFile(link)
	require.NoError(t, err)
	assert.True(t, json.Valid(data))
	_, err = os.Readlink(link)
	assert.True(t, errors.Is(err, syscall.EINVAL), "the link was replaced by the report")
}

func TestDashStartsTheReportOnALineOfItsOwn(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "--retry-if", "err", "--report", "-", "--", "sh", "-c", "printf err >&2")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stderr, "err\n{\n"), "%q", r.stderr)
}
