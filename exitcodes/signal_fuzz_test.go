package exitcodes

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseSignal checks that any --signal value is a signal in range or a
// clear one-line error, and that every signal's name reads back as itself.
func FuzzParseSignal(f *testing.F) {
	for _, s := range []string{"TERM", "SIGTERM", "sigkill", "15", "+9", "015", "0", "-1", "65", "SIG", "SIGSIG",
		"", " ", "TERM ", "\x00", "SIG\x00TERM", "99999999999999999999", "ſigterm", "\xff", strings.Repeat("SIG", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignal(s)
		if err != nil {
			assert.Zero(t, sig)
			assertMessageRules(t, err.Error())
			assert.LessOrEqual(t, len(err.Error()), 100+len(strconv.Quote(s)), "the message quotes the value once")
			return
		}
		require.Greater(t, int(sig), 0, "%q", s)
		require.LessOrEqual(t, int(sig), maxSignal, "%q", s)
		again, err := ParseSignal(SignalName(sig))
		if strings.HasPrefix(SignalName(sig), "signal ") {
			again, err = ParseSignal(strconv.Itoa(int(sig)))
		}
		require.NoError(t, err, "the name of %v reads back", sig)
		assert.Equal(t, sig, again)
		assert.NotEqual(t, syscall.Signal(0), again)
	})
}
