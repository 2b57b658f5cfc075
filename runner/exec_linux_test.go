package runner

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"retry/exitcodes"
)

// The tests of the pid-based wait against the orphan reaper, which only
// Linux has (a subreaper), and of the wait on one thread, which names it
// by its Linux thread id.

// Not parallel: the sweep would reap other tests' exited children.
func TestAnAttemptThatExitedIsLeftForItsOwnWaitByTheOrphanReaper(t *testing.T) {
	p, err := Exec{}.Start(context.Background(), Command{Args: []string{"sh", "-c", "exit 7"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	require.NoError(t, err)
	pid, ok := pidOf(p)
	require.True(t, ok)
	require.Eventually(t, func() bool {
		st, ok := statOf(pid)
		return ok && st.state == 'Z'
	}, 10*time.Second, time.Millisecond, "the attempt exits")
	// A sweep before the run knows the pid: the zombie leads its group.
	reapZombies(func(int) bool { return false })
	st, ok := statOf(pid)
	require.True(t, ok, "still there for its Wait")
	assert.Equal(t, byte('Z'), st.state)
	assert.Equal(t, exitcodes.Exit{Code: 7}, p.Wait(func() bool { return false }).Exit)
}

// Not parallel: the reaper would reap other tests' exited children.
func TestAttemptsWaitedForWhileTheOrphanReaperRunsKeepTheirStatus(t *testing.T) {
	ours := newPidSet()
	stop := startReaping(ours.has)
	defer stop()
	env := []string{"PATH=" + os.Getenv("PATH")}
	for i := range 20 {
		p, err := Exec{}.Start(context.Background(), Command{Args: []string{"sh", "-c", "exit " + strconv.Itoa(i+1)}, Env: env})
		require.NoError(t, err)
		if i%2 == 0 { // half of them known to the run, as execute does once Start returns
			pid, _ := pidOf(p)
			ours.add(pid)
		}
		assert.Equal(t, exitcodes.Exit{Code: i + 1}, p.Wait(func() bool { return false }).Exit)
	}
}

// Go installs its signal handlers with SA_RESTART, so a wait4 a signal
// interrupts is mostly restarted by the kernel; Wait must end with the
// status however often signals arrive at the thread waiting.
func TestWaitKeepsTheStatusThroughSignalsToTheWaitingThread(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 100)
	signal.Notify(sigs, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	p, err := Exec{}.Start(context.Background(), Command{Args: []string{"sh", "-c", "sleep 0.3; exit 5"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	require.NoError(t, err)
	tid := make(chan int, 1)
	ended := make(chan exitcodes.Exit, 1)
	go func() {
		runtime.LockOSThread() // Wait's wait4 runs on this thread
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
		ended <- p.Wait(func() bool { return false }).Exit
	}()
	waiter := <-tid
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	sent := 0
	for {
		select {
		case exit := <-ended:
			assert.Equal(t, exitcodes.Exit{Code: 5}, exit)
			assert.Positive(t, sent)
			return
		case <-tick.C:
			require.NoError(t, unix.Tgkill(os.Getpid(), waiter, unix.SIGWINCH))
			sent++
		}
	}
}
