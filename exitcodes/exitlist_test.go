package exitcodes

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseExitListReadsCodesRangesSignalsAndTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"single code", "1", "1"},
		{"codes and a range", "1,75,100-110", "1,75,100-110"},
		{"spaces around items are ignored", " 1 , 2 ,\t3 ", "1,2,3"},
		{"spaces inside a range are ignored", "100 - 110", "100-110"},
		{"leading zeros are read as decimal", "007", "7"},
		{"the whole range of codes", "0-255", "0-255"},
		{"a range of one code", "5-5", "5-5"},
		{"signal with SIG prefix", "SIGKILL", "SIGKILL"},
		{"signal without prefix", "KILL", "SIGKILL"},
		{"signal in lower case", "sigterm,hup", "SIGTERM,SIGHUP"},
		{"timeout in any case", "Timeout", "timeout"},
		{"everything mixed", "2,SIGINT,timeout,64-78", "2,SIGINT,timeout,64-78"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := ParseExitList(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, l.String())
			assert.False(t, l.Empty())
		})
	}
}

func TestParseExitListRejectsBadInputWithAClearMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"empty string", "", "empty list: want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout"},
		{"blank string", "  ", "empty list: want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout"},
		{"empty item in the middle", "1,,2", "item 2 is empty: remove the extra comma, or want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout"},
		{"trailing comma", "1,", "item 2 is empty: remove the extra comma, or want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout"},
		{"reversed range", "110-100", `range "110-100" runs backwards: write it low-high, as 100-110`},
		{"code above 255", "256", "exit code 256 out of range: want 0-255"},
		{"huge code", "99999999999999999999999", "exit code 99999999999999999999999 out of range: want 0-255"},
		{"range end above 255", "1-300", "exit code 300 out of range: want 0-255"},
		{"negative code", "-1", "exit code -1 out of range: want 0-255"},
		{"open range", "5-", `bad range "5-": write it low-high with codes 0-255, as 100-110`},
		{"range of three", "1-2-3", `bad range "1-2-3": write it low-high with codes 0-255, as 100-110`},
		{"unknown word", "sometimes", `unknown item "sometimes": want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout`},
		{"unknown signal", "SIGFOO", `unknown item "SIGFOO": want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout`},
		{"hex code", "0x10", `unknown item "0x10": want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout`},
		{"plus sign", "+5", `unknown item "+5": want an exit code 0-255, a range such as 100-110, a signal name such as SIGKILL, or timeout`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseExitList(tt.in)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestExitListMatchesByCodeSignalAndTimeout(t *testing.T) {
	t.Parallel()
	l, err := ParseExitList("1,100-110,SIGKILL,timeout")
	require.NoError(t, err)
	tests := []struct {
		name string
		exit Exit
		item string
		ok   bool
	}{
		{"a listed code", Exit{Code: 1}, "1", true},
		{"a code inside a range", Exit{Code: 105}, "100-110", true},
		{"a range's low end", Exit{Code: 100}, "100-110", true},
		{"a range's high end", Exit{Code: 110}, "100-110", true},
		{"a code outside", Exit{Code: 2}, "", false},
		{"success is not listed", Exit{Code: 0}, "", false},
		{"killed by the listed signal", Signaled(syscall.SIGKILL), "SIGKILL", true},
		{"a shell's 128+n for the listed signal", Exit{Code: 137}, "SIGKILL", true},
		{"killed by another signal", Signaled(syscall.SIGTERM), "", false},
		{"a timed-out attempt matches timeout", Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true}, "timeout", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			item, ok := l.Match(tt.exit)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.item, item)
		})
	}
}

func TestExitListMatchesATimeoutOnlyByTheWordTimeout(t *testing.T) {
	t.Parallel()
	l, err := ParseExitList("143,SIGTERM,SIGKILL,0-255")
	require.NoError(t, err)
	_, ok := l.Match(Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true})
	assert.False(t, ok, "retry's own signal at --timeout is not the command's failure")
}

func TestZeroExitListIsEmptyAndMatchesNothing(t *testing.T) {
	t.Parallel()
	var l ExitList
	assert.True(t, l.Empty())
	assert.Equal(t, "", l.String())
	_, ok := l.Match(Exit{Code: 1})
	assert.False(t, ok)
}

func TestExitListKnowsCodesListedByThemselves(t *testing.T) {
	t.Parallel()
	l, err := ParseExitList("127,100-130")
	require.NoError(t, err)
	assert.True(t, l.lists(127))
	assert.False(t, l.lists(126), "126 is only covered by a range")
}
