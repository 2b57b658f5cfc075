package breaker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// osHelpers are the helpers that need Linux mount namespaces: they run as
// root in a private mount namespace, so that their mounts vanish with them.
func osHelpers() map[string]helperFunc {
	return map[string]helperFunc{
		"readonly-mount": func(a helperArgs) int {
			if err := unix.Mount(a.Dir, a.Dir, "", unix.MS_BIND, ""); err != nil {
				return report(map[string]string{"skip": "bind mount: " + err.Error()})
			}
			if err := unix.Mount("", a.Dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
				return report(map[string]string{"skip": "read-only remount: " + err.Error()})
			}
			return report(tryWrites(a.Dir, 1))
		},
		"full-mount": func(a helperArgs) int {
			if err := unix.Mount("tmpfs", a.Dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
				return report(map[string]string{"skip": "tmpfs mount: " + err.Error()})
			}
			state := filepath.Join(a.Dir, "retry")
			if r := tryWrites(state, 1); r.UpdateErr != "" {
				return report(map[string]string{"skip": "tmpfs not writable: " + r.UpdateErr})
			}
			filler, err := os.Create(filepath.Join(a.Dir, "filler"))
			if err != nil {
				return report(map[string]string{"skip": "filler: " + err.Error()})
			}
			chunk := make([]byte, 4096)
			for {
				if _, err := filler.Write(chunk); err != nil {
					break
				}
			}
			_ = filler.Close()
			return report(tryWrites(state, 2))
		},
	}
}

// runMountHelper runs helper name as root in a new mount namespace and
// decodes its report; it skips the test when this machine cannot mount.
func runMountHelper(t *testing.T, name, dir string) writeReport {
	t.Helper()
	cmd := helperCmd(t, name, helperArgs{Dir: dir})
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.Output()
	if err != nil && strings.Contains(err.Error(), "operation not permitted") {
		t.Skipf("cannot create a mount namespace here: %v", err)
	}
	require.NoError(t, err, "helper %s: %s", name, out)
	var skip struct{ Skip string }
	require.NoError(t, json.Unmarshal(out, &skip))
	if skip.Skip != "" {
		t.Skipf("cannot mount here: %s", skip.Skip)
	}
	var r writeReport
	require.NoError(t, json.Unmarshal(out, &r))
	return r
}

func TestReadOnlyStateDirectoryFailsWritesWithoutHanging(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	put(t, s, Circuit, "k", "old")

	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o500))
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		assertWritesFail(t, tryWrites(dir, 1), "permission denied")
		return
	}
	// Root ignores permission bits: mount the directory read-only in a
	// private mount namespace instead.
	r := runMountHelper(t, "readonly-mount", dir)
	assertWritesFail(t, r, "read-only file system")
}

func TestFullDiskFailsWritesWithoutHanging(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("filling a disk needs a private tmpfs, which needs root")
	}
	r := runMountHelper(t, "full-mount", t.TempDir())
	assertWritesFail(t, r, "no space left on device")
}
