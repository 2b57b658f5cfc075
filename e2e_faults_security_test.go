package main

// Security end to end, where only Go can look: a spooled output file is
// private and never visible in TMPDIR while retry holds it (read from
// /proc). Private state, refused symlinks, breaker keys and secrets are
// scripts in testdata/script.

import (
	"io/fs"
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
func TestProgramIsFoundWithoutAPathAsExecvpFindsIt(t *testing.T) {
	t.Parallel()
	// `env -i ls` runs ls: execvp(3) searches /bin:/usr/bin when there is
	// no PATH at all. retry did not, and exited 127.
	c := exec.Command(retryBin, "-n", "1", "--", "ls", "/")
	c.Env = []string{}
	r := runCmd(t, c)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "usr")
}

func TestProgramIsFoundInThePathTheCommandGets(t *testing.T) {
	t.Parallel()
	// --env PATH=… is the command's PATH, and a shell's `PATH=… cmd`
	// looks the program up in it: so does retry.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "only-here"), []byte("#!/bin/sh\necho found\n"), 0o755))
	r := retryIn(t, nil, nil, "-n", "1", "--env", "PATH="+dir+":/usr/bin:/bin", "--", "only-here")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "found\n", r.stdout)
	r = retryIn(t, nil, nil, "-n", "1", "--", "only-here")
	assert.Equal(t, 127, r.code, "not in retry's own PATH: %s", r.stderr)
}

// A --cwd the user may not enter is refused naming --cwd, before anything
// runs: before, every attempt failed to start, and the message blamed the
// program ("pwd": permission denied, exit 126). As root, which may enter
// any directory, retry runs as nobody through setpriv.
func TestACwdTheUserMayNotEnterIsRefusedNamingTheFlag(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "closed")
	require.NoError(t, os.Mkdir(dir, 0o700))
	argv := []string{retryBin, "--cwd", dir, "--", "pwd"}
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("root, and no setpriv to run retry as another user")
		}
		for d := filepath.Dir(dir); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
			require.NoError(t, os.Chmod(d, 0o755), "nobody may reach the closed directory")
		}
		argv = append([]string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	} else {
		require.NoError(t, os.Chmod(dir, 0o000))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = cleanEnv()
	out, _ := c.CombinedOutput()
	assert.Equal(t, 125, c.ProcessState.ExitCode(), "%s", out)
	assert.Equal(t, `retry: --cwd: "`+dir+`": this user may not enter it; give a directory it may enter`+"\n", string(out))
}
