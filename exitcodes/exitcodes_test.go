package exitcodes

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultTableClassifiesEveryExitCode(t *testing.T) {
	t.Parallel()
	terminal := map[int]bool{
		64: true, 65: true, 66: true, 67: true, 68: true, 70: true, 76: true, 77: true, 78: true, // sysexits
		126: true, 127: true, // not executable, not found as a shell reports them
		130: true, 131: true, // 128+SIGINT, 128+SIGQUIT
		132: true, 134: true, 135: true, 136: true, 139: true, // 128+ILL, ABRT, BUS, FPE, SEGV
		141: true, // 128+SIGPIPE
	}
	for code := 0; code <= 255; code++ {
		v := Classify(Exit{Code: code})
		switch {
		case code == 0:
			assert.Equal(t, Success, v.Class, "exit 0")
		case terminal[code]:
			assert.Equal(t, Terminal, v.Class, "exit %d", code)
			assert.NotEmpty(t, v.Rule, "exit %d names its rule", code)
		default:
			assert.Equal(t, Transient, v.Class, "exit %d", code)
		}
	}
}

func TestTempFailIsTransientAndNamed(t *testing.T) {
	t.Parallel()
	v := Classify(Exit{Code: 75})
	assert.Equal(t, Transient, v.Class)
	assert.Equal(t, "sysexits EX_TEMPFAIL", v.Rule)
}

func TestDefaultTableClassifiesSignalDeaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		want Class
	}{
		{syscall.SIGINT, Terminal},
		{syscall.SIGQUIT, Terminal},
		{syscall.SIGSEGV, Terminal},
		{syscall.SIGBUS, Terminal},
		{syscall.SIGILL, Terminal},
		{syscall.SIGFPE, Terminal},
		{syscall.SIGABRT, Terminal},
		{syscall.SIGPIPE, Terminal},
		{syscall.SIGTERM, Transient},
		{syscall.SIGKILL, Transient},
		{syscall.SIGHUP, Transient},
		{syscall.SIGUSR1, Transient},
		{syscall.SIGALRM, Transient},
	} {
		t.Run(SignalName(tc.sig), func(t *testing.T) {
			e := Signaled(tc.sig)
			assert.Equal(t, 128+int(tc.sig), e.Code, "a death by signal n counts as 128+n")
			assert.Equal(t, tc.want, Classify(e).Class)
		})
	}
}

func TestStartFailuresAndTimeouts(t *testing.T) {
	t.Parallel()
	assert.Equal(t, Terminal, Classify(Exit{Start: ProgramMissing, Code: 127}).Class)
	assert.Equal(t, Terminal, Classify(Exit{Start: ProgramNotExecutable, Code: 126}).Class)
	assert.Equal(t, Transient, Classify(Exit{Start: StartFailed, Code: 125}).Class)
	assert.Equal(t, Transient, Classify(Exit{TimedOut: true, Signal: syscall.SIGKILL, Code: 137}).Class,
		"a timed-out attempt is transient whatever signal ended it")
	assert.Equal(t, Transient, Classify(Exit{TimedOut: true, Signal: syscall.SIGINT, Code: 130}).Class,
		"a timeout signal chosen by the user is not the user's interrupt")
}

func TestExitDescriptions(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "exit 7", Exit{Code: 7}.String())
	assert.Equal(t, "killed by SIGKILL", Signaled(syscall.SIGKILL).String())
	assert.Equal(t, "timed out", Exit{TimedOut: true, Signal: syscall.SIGTERM}.String())
	assert.Equal(t, "timed out after 10s", Exit{TimedOut: true, Limit: 10 * time.Second}.String(), "the limit that ran out")
	assert.Equal(t, "timed out after 3.272s", Exit{TimedOut: true, Limit: 3271912345}.String(), "rounded to milliseconds")
	assert.Equal(t, "command not found", Exit{Start: ProgramMissing}.String())
	assert.Equal(t, "transient", Transient.String())
}

func TestParseSignalAcceptsNamesAndNumbers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"TERM", "SIGTERM", "term", "sigterm", "15"} {
		sig, err := ParseSignal(s)
		require.NoError(t, err, s)
		assert.Equal(t, syscall.SIGTERM, sig, s)
	}
	for _, s := range []string{"", "TERMINATE", "0", "-1", "65", "SIG"} {
		_, err := ParseSignal(s)
		assert.Error(t, err, "%q", s)
	}
	assert.Equal(t, "SIGKILL", SignalName(syscall.SIGKILL))
	assert.Equal(t, "signal 50", SignalName(syscall.Signal(50)))
}
