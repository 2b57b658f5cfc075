//go:build unix

package report

import (
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestTargetsAreReplacedOnlyWhenTheyAreRegularFilesOrNewAndLinksAreFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("old"), 0o644))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.Symlink(to, p))
		return p
	}
	loop := link("loop", "loop")

	for _, tc := range []struct {
		name     string
		path     string
		stream   bool
		fd       int
		kind     fs.FileMode
		replaced string // for a replaced target: the file replaced
	}{
		{"a new file", filepath.Join(dir, "new"), false, -1, 0, filepath.Join(dir, "new")},
		{"a regular file", file, false, -1, 0, file},
		{"a link to a regular file", link("to-file", "file"), false, -1, 0, file},
		{"a link that leads nowhere", link("dangling", "nowhere"), false, -1, 0, filepath.Join(dir, "nowhere")},
		{"a file in a directory that does not exist", filepath.Join(dir, "no", "such"), false, -1, 0, filepath.Join(dir, "no", "such")},
		{"a FIFO", fifo, true, -1, fs.ModeNamedPipe, ""},
		{"a link to a FIFO", link("to-fifo", fifo), true, -1, fs.ModeNamedPipe, ""},
		{"a character device", "/dev/null", true, -1, fs.ModeDevice | fs.ModeCharDevice, ""},
		{"a link to a link to a character device", link("to-to-null", link("to-null", "/dev/null")), true, -1, fs.ModeDevice | fs.ModeCharDevice, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lookTarget(tc.path)
			require.NoError(t, err)
			assert.Equal(t, tc.stream, got.stream, "stream")
			assert.Equal(t, tc.fd, got.fd, "fd")
			assert.Equal(t, tc.kind, got.kind, "kind")
			if !tc.stream {
				assert.Equal(t, tc.replaced, got.path, "a link is written into: what it leads to is replaced, not the link")
			}
		})
	}

	_, err := lookTarget(loop)
	assert.ErrorIs(t, err, syscall.ELOOP)
	_, err = lookTarget(dir)
	assert.ErrorContains(t, err, "directory")
}

func TestTargetsThatNameOurDescriptorsUseTheDescriptor(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/fd is Linux's")
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	fd := int(w.Fd())
	n := strconv.Itoa(fd)
	dir := t.TempDir()
	viaLink := filepath.Join(dir, "stderr-like")
	require.NoError(t, os.Symlink("/proc/self/fd/"+n, viaLink))

	for _, path := range []string{"/dev/fd/" + n, "/proc/self/fd/" + n, "/proc/thread-self/fd/" + n, viaLink} {
		got, err := lookTarget(path)
		require.NoError(t, err, path)
		assert.True(t, got.stream, path)
		assert.Equal(t, fd, got.fd, path)
	}

	// Written through the descriptor, the data reaches the pipe's reader.
	got, err := lookTarget(viaLink)
	require.NoError(t, err)
	require.NoError(t, got.write(t.Context(), []byte("report\n")))
	require.NoError(t, w.Close())
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "report\n", string(data))
	info, err := os.Lstat(viaLink)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, info.Mode().Type(), "the link is left in place")

	_, err = lookTarget("/dev/fd/1000000")
	assert.ErrorContains(t, err, "file descriptor 1000000 is not open")
}

func TestWritingIntoAFIFOWithoutAReaderGivesUpAfterReaderWait(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	start := time.Now()
	err := writeFile(t.Context(), fifo, []byte("report\n"), 0o644)
	assert.ErrorContains(t, err, "no reader opened the FIFO within 2s")
	assert.GreaterOrEqual(t, time.Since(start), ReaderWait)
	assert.Less(t, time.Since(start), ReaderWait+20*time.Second, "bounded by ReaderWait, not by a reader")
	info, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeNamedPipe, info.Mode().Type(), "still a FIFO")
}

func TestWritingIntoAFIFOReachesItsReader(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	read := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(fifo) // opening waits for the writer, reading for its close
		read <- string(data)
	}()
	require.NoError(t, writeFile(t.Context(), fifo, []byte("report\n"), 0o644))
	assert.Equal(t, "report\n", <-read)
}

func TestWritingIntoAUnixSocketReachesTheListener(t *testing.T) {
	t.Parallel()
	for _, network := range []string{"unix", "unixgram"} {
		t.Run(network, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "sock")
			read := make(chan string, 1)
			if network == "unix" {
				l, err := net.Listen(network, path)
				require.NoError(t, err)
				defer l.Close()
				go func() {
					c, err := l.Accept()
					if err != nil {
						read <- err.Error()
						return
					}
					defer c.Close()
					data, _ := io.ReadAll(c)
					read <- string(data)
				}()
			} else {
				c, err := net.ListenPacket(network, path)
				require.NoError(t, err)
				defer c.Close()
				go func() {
					b := make([]byte, 1024)
					n, _, _ := c.ReadFrom(b)
					read <- string(b[:n])
				}()
			}
			require.NoError(t, writeFile(t.Context(), path, []byte("report\n"), 0o644))
			assert.Equal(t, "report\n", <-read)
			info, err := os.Lstat(path)
			require.NoError(t, err)
			assert.Equal(t, fs.ModeSocket, info.Mode().Type(), "still a socket")
		})
	}
}

func TestBlockDevicesAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A loop device number no loop device uses: even written, it is inert.
	disk := filepath.Join(dir, "disk")
	if err := syscall.Mknod(disk, syscall.S_IFBLK|0o600, int(unix.Mkdev(7, 255))); err != nil {
		t.Skipf("mknod is not permitted here: %v", err)
	}
	link := filepath.Join(dir, "report.json")
	require.NoError(t, os.Symlink(disk, link))
	for _, path := range []string{disk, link} {
		err := writeFile(t.Context(), path, []byte("report\n"), 0o644)
		assert.ErrorContains(t, err, "it is a block device", path)
	}
	assertModeType(t, disk, fs.ModeDevice)
	assertModeType(t, link, fs.ModeSymlink)
}

func assertModeType(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, want, info.Mode().Type(), path)
}

func TestFIFOWhoseReaderTakesNoDataGivesUpAfterReaderWait(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// A reader that opens the FIFO and never reads: a stalled pager.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer r.Close()
	start := time.Now()
	err = writeFile(t.Context(), fifo, make([]byte, 4<<20), 0o644) // more than any pipe holds
	assert.ErrorContains(t, err, "the reader took no data for 2s")
	assert.Less(t, time.Since(start), ReaderWait+20*time.Second, "bounded, not a hang")
}

func TestALinkPlantedInASharedDirectoryByAnotherUserIsNotFollowed(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the link another owner")
	}
	shared := t.TempDir()
	require.NoError(t, os.Chmod(shared, 0o777|fs.ModeSticky)) // as /tmp is
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
	planted := filepath.Join(shared, "report.json")
	require.NoError(t, os.Symlink(victim, planted))
	require.NoError(t, os.Lchown(planted, 12345, 12345))
	_, err := lookTarget(planted)
	assert.ErrorContains(t, err, "belongs to user 12345: not followed")

	own := filepath.Join(shared, "mine.json")
	require.NoError(t, os.Symlink(victim, own))
	got, err := lookTarget(own)
	require.NoError(t, err, "our own link in a shared directory is followed")
	assert.Equal(t, victim, got.path)
}
