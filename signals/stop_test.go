package signals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"retry/internal/testbin"
)

// helperEnv makes the test binary run a helper body instead of a test; the
// helpers send real signals to their own process, which must not be the
// test binary itself.
const helperEnv = "SIGNALS_TEST_HELPER"

// TestMain lets the helpers receive SIGHUP and SIGINT even when the suite
// runs with them ignored (under nohup, or as a script's background job):
// ignored signals stay ignored across exec, and Listen would leave them
// so; caught ones are reset to their defaults. The "ignored" helper keeps
// what it was started with.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "ignored" {
		testbin.StartSignalsAtDefaults()
	}
	os.Exit(m.Run())
}

// runHelper runs the test named test in a child test binary with helper
// set, and returns its output and exit code (-1 when a signal killed it).
func runHelper(t *testing.T, test, helper string) (string, int) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	c.Env = append(os.Environ(), helperEnv+"="+helper)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

func TestLaterSignalsCannotKillAProcessStoppedByASignal(t *testing.T) {
	if h := os.Getenv(helperEnv); h != "" {
		first, later := syscall.SIGHUP, syscall.Signal(0)
		_, _ = fmt.Sscanf(h, "later=%d", &later)
		ctx, relay := Listen(context.Background(), nil)
		_ = syscall.Kill(os.Getpid(), first)
		<-ctx.Done()
		relay.Stop()
		// The process is on its way out with 128+SIGHUP; a signal that
		// arrives now (a storm of them, say) must not end it with
		// another status first. The signal is sent to this thread, so
		// that it is handled before Tgkill returns.
		runtime.LockOSThread()
		_ = unix.Tgkill(os.Getpid(), unix.Gettid(), later)
		fmt.Println("survived")
		os.Exit(0)
	}
	t.Parallel()
	for _, later := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		out, code := runHelper(t, t.Name(), fmt.Sprintf("later=%d", later))
		assert.Equal(t, 0, code, "after %v: %s", later, out)
		assert.Contains(t, out, "survived", "after %v", later)
	}
}

func TestStopWithoutASignalLeavesTheDefaultActions(t *testing.T) {
	if os.Getenv(helperEnv) == "default" {
		_, relay := Listen(context.Background(), nil)
		relay.Stop()
		runtime.LockOSThread()
		_ = unix.Tgkill(os.Getpid(), unix.Gettid(), syscall.SIGTERM)
		fmt.Println("survived")
		os.Exit(0)
	}
	t.Parallel()
	out, code := runHelper(t, t.Name(), "default")
	assert.Equal(t, -1, code, "killed by SIGTERM as any program would be: %s", out)
	assert.NotContains(t, out, "survived")
}

func TestSignalsIgnoredAtStartAreNotCaught(t *testing.T) {
	if os.Getenv(helperEnv) == "ignored" {
		sigs := Catchable()
		ctx, relay := Listen(context.Background(), sigs)
		runtime.LockOSThread()
		_ = unix.Tgkill(os.Getpid(), unix.Gettid(), syscall.SIGHUP)
		// An ignored signal is dropped when sent, so SIGTERM is the first
		// the relay sees; a caught SIGHUP would come first, being lower.
		_ = unix.Tgkill(os.Getpid(), unix.Gettid(), syscall.SIGTERM)
		<-ctx.Done()
		fmt.Println("catching SIGHUP", slices.Contains(sigs, os.Signal(syscall.SIGHUP)), "first", relay.Received())
		os.Exit(0)
	}
	t.Parallel()
	// sh passes on the SIGHUP it was told to ignore, as nohup does.
	c := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	c.Env = append(os.Environ(), helperEnv+"=ignored")
	out, err := c.CombinedOutput()
	require.NoError(t, err, "the SIGHUP must not end the helper: %s", out)
	assert.Contains(t, string(out), "catching SIGHUP false first terminated", "SIGHUP stays ignored; SIGTERM is caught")
}
