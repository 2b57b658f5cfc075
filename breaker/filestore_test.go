package breaker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTimeout is the store timeout of tests that are not about timeouts:
// long, so that a loaded machine cannot fail them.
const testTimeout = 30 * time.Second

// openTestFiles opens a file store in a fresh directory; a zero timeout
// means testTimeout.
func openTestFiles(t *testing.T, timeout time.Duration) (*fileStore, string) {
	t.Helper()
	if timeout == 0 {
		timeout = testTimeout
	}
	dir := filepath.Join(t.TempDir(), "state", "retry")
	s, err := OpenStore(dir, Options{Timeout: timeout})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s.(*fileStore), dir
}

// put writes data as the record of kind and id.
func put(t *testing.T, s Store, kind Kind, id string, data string) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), kind, id, time.Hour, func([]byte) ([]byte, error) { return []byte(data), nil }))
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

func TestOpenStoreCreatesTheStateDirectoryOwnerOnly(t *testing.T) {
	t.Parallel()
	_, dir := openTestFiles(t, 0)
	assert.Equal(t, fs.FileMode(0o700), mode(t, dir))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Dir(dir)), "missing parents too")
}

func TestStateFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	put(t, s, Circuit, "k", `{"version":1}`)
	granted, _, err := s.Claim(context.Background(), "k", 1, t0, time.Minute)
	require.NoError(t, err)
	require.True(t, granted)

	for _, name := range []string{recordFile(Circuit, "k"), claimFile("k"), lockFile(recordFile(Circuit, "k"))} {
		assert.Equal(t, fs.FileMode(0o600), mode(t, filepath.Join(dir, name)), name)
	}
}

func TestOpenStoreRefusesASymlinkedStateDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	real := filepath.Join(root, "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(real, link))

	_, err := OpenStore(link, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symlink")
}

func TestOpenStoreRefusesADirectoryOthersCanWrite(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "open")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Chmod(dir, 0o777))

	_, err := OpenStore(dir, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lets others write")
}

func TestOpenStoreRejectsAnUnknownScheme(t *testing.T) {
	t.Parallel()
	_, err := OpenStore("memcache://user:secret@host:11211", Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown scheme "memcache"`)
	assert.NotContains(t, err.Error(), "secret", "passwords stay out of messages")
}

func TestStoreRefusesASymlinkedStateFile(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	target := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(target, []byte("precious"), 0o600))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, recordFile(Circuit, "k"))))
	ctx := context.Background()

	_, err := s.Get(ctx, Circuit, "k")
	assert.ErrorContains(t, err, "symlink")
	err = s.Update(ctx, Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	assert.ErrorContains(t, err, "symlink")
	items, err := s.List(ctx, Circuit)
	require.NoError(t, err)
	require.Len(t, items, 1)
	assert.ErrorContains(t, items[0].Err, "symlink")

	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data), "the symlink's target is untouched")
}

func TestStoreRefusesASymlinkedLockFile(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), filepath.Join(dir, lockFile(recordFile(Circuit, "k")))))

	err := s.Update(context.Background(), Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	assert.ErrorContains(t, err, "symlink")
}

func TestStoreRefusesAFIFOWithoutHanging(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, recordFile(Circuit, "k")), 0o600))

	_, err := s.Get(context.Background(), Circuit, "k")
	assert.ErrorContains(t, err, "not a regular file")
}

func TestUpdateGivesUpWhenTheLockIsNotFreed(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 100*time.Millisecond)
	held := flock.New(filepath.Join(dir, lockFile(recordFile(Circuit, "k"))))
	require.NoError(t, held.Lock())
	t.Cleanup(func() { _ = held.Unlock() })
	ctx := context.Background()

	start := time.Now()
	err := s.Update(ctx, Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	elapsed := time.Since(start)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "still held by another process after 100ms")
	assert.GreaterOrEqual(t, elapsed, 100*time.Millisecond)
	assert.Less(t, elapsed, 2*time.Second)

	_, _, err = s.Claim(ctx, "k", 1, t0, time.Minute)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = s.Get(ctx, Circuit, "k")
	assert.NoError(t, err, "reads take no lock")
}

func TestUpdateReplacesATempFileLeftByADeadWriter(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	name := recordFile(Circuit, "k")
	require.NoError(t, os.WriteFile(filepath.Join(dir, tempFile(name)), []byte("half a rec"), 0o600))

	put(t, s, Circuit, "k", "whole")
	data, err := s.Get(context.Background(), Circuit, "k")
	require.NoError(t, err)
	assert.Equal(t, "whole", string(data))
	assert.NoFileExists(t, filepath.Join(dir, tempFile(name)))
}

func TestUpdateWritesNothingWhenTheRecordIsUnchanged(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	put(t, s, Run, "r", "same")
	path := filepath.Join(dir, recordFile(Run, "r"))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))

	put(t, s, Run, "r", "same")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old))
}

func TestANewRecordSweepsOutRecordsOfItsKindUntouchedForTheTTL(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	put(t, s, Run, "old", "1")
	put(t, s, Run, "recent", "1")
	put(t, s, Circuit, "circuit", "1")
	long := time.Now().Add(-48 * time.Hour)
	for _, name := range []string{recordFile(Run, "old"), recordFile(Circuit, "circuit")} {
		require.NoError(t, os.Chtimes(filepath.Join(dir, name), long, long))
	}

	require.NoError(t, s.Update(context.Background(), Run, "new", 24*time.Hour, func([]byte) ([]byte, error) { return []byte("1"), nil }))
	assert.NoFileExists(t, filepath.Join(dir, recordFile(Run, "old")))
	assert.FileExists(t, filepath.Join(dir, recordFile(Run, "recent")))
	assert.FileExists(t, filepath.Join(dir, recordFile(Circuit, "circuit")), "other kinds keep their own TTL")
	assert.NoFileExists(t, filepath.Join(dir, lockFile(recordFile(Run, "old"))), "the lock file goes with its record")
	assert.FileExists(t, filepath.Join(dir, lockFile(recordFile(Run, "recent"))))
}

func TestSweepLeavesARecordWhoseLockIsHeld(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	put(t, s, Run, "old", "1")
	long := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, recordFile(Run, "old")), long, long))
	held := flock.New(filepath.Join(dir, lockFile(recordFile(Run, "old"))))
	require.NoError(t, held.Lock())
	t.Cleanup(func() { _ = held.Unlock() })

	require.NoError(t, s.Update(context.Background(), Run, "new", 24*time.Hour, func([]byte) ([]byte, error) { return []byte("1"), nil }))
	assert.FileExists(t, filepath.Join(dir, recordFile(Run, "old")), "a record being updated is not stale")
}

func TestUpdatesOfDifferentKeysDoNotWaitForEachOther(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 100*time.Millisecond)
	held := flock.New(filepath.Join(dir, lockFile(recordFile(Circuit, "busy"))))
	require.NoError(t, held.Lock())
	t.Cleanup(func() { _ = held.Unlock() })
	ctx := context.Background()

	put(t, s, Circuit, "other", "1")
	granted, _, err := s.Claim(ctx, "other", 1, t0, time.Minute)
	require.NoError(t, err)
	assert.True(t, granted)
	err = s.Update(ctx, Circuit, "busy", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the held key still waits")
}

func TestGetOfAnEmptyFileIsNotAbsence(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	require.NoError(t, os.WriteFile(filepath.Join(dir, recordFile(Circuit, "k")), nil, 0o600))
	data, err := s.Get(context.Background(), Circuit, "k")
	require.NoError(t, err)
	assert.NotNil(t, data, "an empty file is garbage to report, not a missing record")
}

func TestDefaultSpecFollowsXDGThenHome(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	home := func() (string, error) { return "/home/u", nil }
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	tests := []struct {
		name    string
		getenv  func(string) string
		home    func() (string, error)
		want    string
		wantErr string
	}{
		{"XDG_STATE_HOME wins", env(map[string]string{"XDG_STATE_HOME": "/xdg/state"}), home, "/xdg/state/retry", ""},
		{"a relative XDG_STATE_HOME is ignored", env(map[string]string{"XDG_STATE_HOME": "rel"}), home, "/home/u/.local/state/retry", ""},
		{"home when XDG is unset", env(nil), home, "/home/u/.local/state/retry", ""},
		{"no home is an error", env(nil), noHome, "", "$HOME is not defined"},
		{"nil lookups are an error", nil, nil, "", "no state directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DefaultSpec(tt.getenv, tt.home)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.FromSlash(tt.want), got)
		})
	}
}

func TestOpenStoreWithAnEmptySpecUsesTheDefault(t *testing.T) {
	t.Parallel()
	xdg := t.TempDir()
	s, err := OpenStore("", Options{Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return xdg
		}
		return ""
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	assert.DirExists(t, filepath.Join(xdg, "retry"))
}

func TestAFailedWriteRemovesItsTempFile(t *testing.T) {
	t.Parallel()
	// A directory in the record's place fails the rename after the temp
	// file was written.
	s, dir := openTestFiles(t, 0)
	name := recordFile(Circuit, "k")
	require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o700))
	err := s.write(name, []byte("new"))
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(dir, tempFile(name)), "the temp file is removed after a failure")
}

// writeReport is what a store did on a directory that cannot be written.
type writeReport struct {
	GetErr    string `json:"get_err"`
	UpdateErr string `json:"update_err"`
	NewErr    string `json:"new_err"`
	ClaimErr  string `json:"claim_err"`
	Elapsed   time.Duration
}

// tryWrites opens the store in dir and tries to read and write in it;
// round makes each call's writes differ from the previous call's.
func tryWrites(dir string, round int) writeReport {
	var r writeReport
	start := time.Now()
	s, err := OpenStore(dir, Options{Timeout: DefaultTimeout})
	if err != nil {
		r.UpdateErr = "open: " + err.Error()
		return r
	}
	defer s.Close()
	ctx := context.Background()
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	_, err = s.Get(ctx, Circuit, "k")
	r.GetErr = errText(err)
	data := []byte(fmt.Sprintf("round %d", round))
	r.UpdateErr = errText(s.Update(ctx, Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return data, nil }))
	r.NewErr = errText(s.Update(ctx, Circuit, fmt.Sprintf("new-key-%d", round), time.Hour, func([]byte) ([]byte, error) { return data, nil }))
	_, _, err = s.Claim(ctx, "k", uint64(round), time.Now(), time.Minute)
	r.ClaimErr = errText(err)
	r.Elapsed = time.Since(start)
	return r
}

// assertWritesFail checks that every write failed promptly and reads did not.
func assertWritesFail(t *testing.T, r writeReport, want string) {
	t.Helper()
	assert.Empty(t, r.GetErr, "reading still works")
	assert.Contains(t, r.UpdateErr, want)
	assert.Contains(t, r.NewErr, want)
	assert.Contains(t, r.ClaimErr, want)
	assert.Less(t, r.Elapsed, 2*time.Second, "failing writes do not hang")
}

func TestStoreRefusesAFIFOLockFileWithoutHanging(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, 0)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, lockFile(recordFile(Circuit, "k"))), 0o600))
	done := make(chan error, 1)
	go func() {
		done <- s.Update(context.Background(), Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	}()
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "not a regular file")
	case <-time.After(10 * time.Second):
		t.Fatal("the update hangs opening a FIFO planted as its lock file")
	}
}

// A run with a deadline bounds the wait for a lock by it (WaitUntil), so
// that a stuck holder cannot keep the run the store's whole timeout past
// its deadline.
func TestALockIsWaitedForNoLongerThanWaitUntilAllows(t *testing.T) {
	t.Parallel()
	s, dir := openTestFiles(t, time.Minute)
	held := flock.New(filepath.Join(dir, lockFile(recordFile(Circuit, "k"))))
	require.NoError(t, held.Lock())
	t.Cleanup(func() { _ = held.Unlock() })
	ctx := WaitUntil(context.Background(), time.Now().Add(200*time.Millisecond))

	start := time.Now()
	err := s.Update(ctx, Circuit, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("x"), nil })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "still held by another process")
	assert.Less(t, time.Since(start), 30*time.Second, "the bound, not the store's minute")

	start = time.Now()
	_, _, err = s.Claim(WaitUntil(context.Background(), time.Now().Add(-time.Second)), "k", 1, t0, time.Minute)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a bound already passed: no wait at all")
	assert.Less(t, time.Since(start), 30*time.Second)
}
