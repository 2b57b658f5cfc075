package main

// Security end to end, where only Go can look: a spooled output file is
// private and never visible in TMPDIR while retry holds it (read from
// /proc). Private state, refused symlinks, breaker keys and secrets are
// scripts in testdata/script.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpooledOutputIsPrivateAndNeverVisibleInTMPDIR(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o755))
	// 9 MB held: more than retry keeps in memory, so it spills to disk.
	s := startToFiles(t, []string{"TMPDIR=" + tmp}, "--stdout", "buffer", "--", "sh", "-c",
		`head -c 9000000 /dev/zero; echo x > "$0/spilled"; while [ ! -e "$0/go" ]; do sleep 0.01; done`, dir)
	awaitLines(t, filepath.Join(dir, "spilled"), 1)
	assertEmptyDir(t, tmp)

	// The spool is open in retry, unlinked, readable by its owner only.
	var found bool
	require.Eventually(t, func() bool {
		fds, _ := os.ReadDir("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd")
		for _, fd := range fds {
			path := "/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd/" + fd.Name()
			target, _ := os.Readlink(path)
			if strings.HasPrefix(target, tmp+"/") {
				assert.True(t, strings.HasSuffix(target, " (deleted)"), target)
				fi, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
				found = true
			}
		}
		return found
	}, eventLimit, 5*time.Millisecond, "retry holds the spool open")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	r := s.wait(t)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, r.stdout, 9000000)
	assertEmptyDir(t, tmp)
}
