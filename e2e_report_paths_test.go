package main

// --report and --metrics-file given a character device, which only Go can
// make (and skip where mknod is not permitted): written into, never
// replaced, nothing left beside it. The FIFO, descriptor, link and "-"
// stories are scripts in testdata/script.

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
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
