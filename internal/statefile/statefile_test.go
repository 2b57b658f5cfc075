package statefile

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockGivesUpWhenAnotherHolderKeepsIt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.lock")
	unlock, err := Lock(context.Background(), path, 0o600, time.Second)
	require.NoError(t, err)
	defer unlock()

	start := time.Now()
	_, err = Lock(context.Background(), path, 0o600, 100*time.Millisecond)
	elapsed := time.Since(start)
	var busy *BusyError
	require.ErrorAs(t, err, &busy)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, "lock "+path+": still held by another process after 100ms")
	assert.GreaterOrEqual(t, elapsed, 100*time.Millisecond)
	assert.Less(t, elapsed, 5*time.Second)
}

func TestLockWaitEndsWhenTheContextDoes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.lock")
	unlock, err := Lock(context.Background(), path, 0o600, time.Second)
	require.NoError(t, err)
	defer unlock()

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = Lock(ctx, path, 0o600, time.Hour)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 10*time.Second, "not the hour")
}

func TestLockIsTakenAsSoonAsItIsFreedAndAnAbandonedWaitLetsGo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.lock")
	first, err := Lock(context.Background(), path, 0o600, time.Second)
	require.NoError(t, err)
	// A wait that gives up leaves its flock in the kernel; once it gets
	// the lock it must let it go at once.
	_, err = Lock(context.Background(), path, 0o600, 20*time.Millisecond)
	require.Error(t, err)

	got := make(chan func(), 1)
	go func() {
		unlock, err := Lock(context.Background(), path, 0o600, time.Minute)
		assert.NoError(t, err)
		got <- unlock
	}()
	select {
	case <-got:
		t.Fatal("taken while held")
	case <-time.After(50 * time.Millisecond):
	}
	first()
	select {
	case unlock := <-got:
		unlock()
	case <-time.After(10 * time.Second):
		t.Fatal("not taken once freed")
	}
	unlock, ok, err := TryLock(path, 0o600)
	require.NoError(t, err)
	require.True(t, ok, "free again: the abandoned wait let go")
	_, ok, err = TryLock(path, 0o600)
	require.NoError(t, err)
	assert.False(t, ok, "TryLock does not wait")
	unlock()
}

func TestLockRefusesWhatIsNotARegularFileWithoutHanging(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, "link.lock")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo.lock"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir.lock"), 0o700))
	for name, want := range map[string]string{
		"link.lock": "is a symlink; refusing to follow it",
		"fifo.lock": "not a regular file",
		"dir.lock":  "dir.lock",
	} {
		_, err := Lock(context.Background(), filepath.Join(dir, name), 0o600, time.Second)
		assert.ErrorContains(t, err, want, name)
		_, _, err = TryLock(filepath.Join(dir, name), 0o600)
		assert.ErrorContains(t, err, want, name)
	}
}

func TestReplaceWritesTheWholeFileWithItsModeWhateverTheUmask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.prom")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".m.prom.tmp"), []byte("half of a dead writer's"), 0o600))
	require.NoError(t, Replace(path, []byte("new\n"), 0o644))
	require.NoError(t, ReplaceShared(filepath.Join(dir, "report.json"), []byte("{}\n"), 0o644))
	for name, want := range map[string]string{"m.prom": "new\n", "report.json": "{}\n"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(data))
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left, the dead writer's included")
}

func TestReplaceThatFailsLeavesTheFileAndNoTemporaryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	require.NoError(t, os.Mkdir(path, 0o700)) // the rename fails
	assert.Error(t, Replace(path, []byte("x"), 0o600))
	assert.Error(t, ReplaceShared(path, []byte("x"), 0o600))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestAFileReplacedByAProcessKilledMidWriteIsWhole(t *testing.T) {
	t.Parallel()
	// A writer that replaces the file in a loop is killed at random
	// moments; after each kill the file holds one whole version.
	exe, err := os.Executable()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "state.json")
	size := 256 << 10
	for kill := range 10 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		require.NoError(t, cmd.Start())
		before, _ := os.ReadFile(path)
		deadline := time.Now().Add(10 * time.Second)
		for { // until the writer has replaced the file at least once
			data, _ := os.ReadFile(path)
			if len(data) > 0 && !bytes.Equal(data, before) || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(kill) * time.Millisecond)
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Len(t, data, size, "kill %d", kill)
		assert.Equal(t, strings.Repeat(string(data[:1]), size), string(data), "kill %d: one version, whole", kill)
	}
}

// crashEnv makes the test binary a writer that replaces the file it names
// with 256 KiB of one letter, the next letter each time, until killed.
const crashEnv = "STATEFILE_TEST_CRASH"

func runCrashWriter(path string) int {
	unlock, err := Lock(context.Background(), path+".lock", 0o600, time.Minute)
	if err != nil {
		return 1
	}
	defer unlock()
	for i := 0; ; i++ {
		if err := Replace(path, bytes.Repeat([]byte{byte('a' + i%26)}, 256<<10), 0o600); err != nil {
			return 1
		}
	}
}
