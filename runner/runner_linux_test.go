package runner

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A spilled spool holds the child's output or our stdin: no other process
// may see a name for it in the temporary directory, not even between
// creating the file and unlinking it. inotify reports every name created
// in the directory, so an empty event queue proves there never was one.
func TestSpoolSpillsToAFileThatNeverHasAName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR, 0o600); err != nil {
		t.Skipf("the file system of %s has no O_TMPFILE (%v): spools there are unlinked at once instead", dir, err)
	} else {
		unix.Close(fd)
	}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	require.NoError(t, err)
	defer unix.Close(in)
	_, err = unix.InotifyAddWatch(in, dir, unix.IN_CREATE|unix.IN_MOVED_TO)
	require.NoError(t, err)

	s := newSpool(4, dir)
	defer s.Close()
	_, err = s.Write([]byte("more than four bytes"))
	require.NoError(t, err)
	require.NotNil(t, s.file, "past the limit the bytes move to a file")

	buf := make([]byte, 4096)
	n, err := unix.Read(in, buf)
	assert.Equal(t, unix.EAGAIN, err, "no name was created in %s (%d bytes of events)", dir, n)
}

// Not parallel: other tests' children would be zombies too for a moment.
func TestAnyZombieSeesAnExitedChildWithoutReapingIt(t *testing.T) {
	p, err := os.StartProcess("/bin/sleep", []string{"sleep", "60"}, &os.ProcAttr{})
	require.NoError(t, err)
	assert.False(t, anyZombie(), "a running child is no zombie")

	require.NoError(t, p.Kill())
	require.Eventually(t, anyZombie, 10*time.Second, time.Millisecond, "the exited child is seen")

	st, err := p.Wait()
	require.NoError(t, err, "the peek left the zombie for its own Wait")
	assert.False(t, st.Success())
	assert.False(t, anyZombie(), "no zombie once it is reaped")
}
