package breaker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
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

func TestAWriterWaitingOnASweptLockFileTakesTheNewOne(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 5*time.Second)
	lockPath := filepath.Join(dir, lockFile(recordFile(Circuit, "k")))
	held := flock.New(lockPath)
	require.NoError(t, held.Lock())
	done := make(chan error, 1)
	go func() {
		done <- s.Update(context.Background(), Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	}()
	fi, err := os.Stat(lockPath)
	require.NoError(t, err)
	awaitFlockWaiter(t, fi.Sys().(*syscall.Stat_t).Ino)
	// The sweeper's part: the lock file goes while the writer waits on it,
	// and another writer creates and holds the new one.
	require.NoError(t, os.Remove(lockPath))
	second := flock.New(lockPath)
	require.NoError(t, second.Lock())
	require.NoError(t, held.Unlock())
	select {
	case err := <-done:
		t.Fatalf("the update went on under a removed lock file: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, second.Unlock())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the update did not take the new lock file")
	}
}

// awaitFlockWaiter waits until /proc/locks shows a process blocked on a
// flock of the file with inode ino.
func awaitFlockWaiter(t *testing.T, ino uint64) {
	t.Helper()
	suffix := ":" + strconv.FormatUint(ino, 10)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile("/proc/locks")
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) > 6 && f[1] == "->" && f[2] == "FLOCK" && strings.HasSuffix(f[6], suffix) {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no process waits on the lock")
}
