package main

// Every line starts its own line on a terminal, as the screen shows it:
// the output of an --on-retry hook never lands on the countdown. The same
// stories through pipes (every log format, held output) are scripts in
// testdata/script.

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// screenLines renders what a terminal shows for out, line by line: a
// carriage return goes back to the start of the line, ESC [ K erases from
// there to its end, other escape sequences (colour) show nothing, and a
// line feed ends the line.
func screenLines(out string) []string {
	var lines []string
	var line []rune
	col := 0
	rs := []rune(out)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\n':
			lines = append(lines, string(line))
			line, col = nil, 0
		case r == '\r':
			col = 0
		case r == '\x1b' && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < '@' || rs[j] > '~') {
				j++
			}
			if j < len(rs) && rs[j] == 'K' {
				line = line[:col]
			}
			i = j
		default:
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
		}
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return lines
}

func TestScreenLinesRendersCarriageReturnsAndErasures(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"ab", "xyz", "hi"}, screenLines("ab\r\nabc\rxy\x1b[Kz\n\x1b[2mcountdown\x1b[0m\r\x1b[Khi\r\n"))
}

func TestHookOutputStartsItsOwnLineAfterTheCountdown(t *testing.T) {
	c, _, output, done := ptyRetry(t, "-n", "2", "--fast", "0", "--jitter", "none", "--slow-delay", "2s",
		"--on-retry", "echo from-the-hook", "--", "sh", "-c", "exit 1")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retry did not exit")
	}
	assert.Equal(t, 1, c.ProcessState.ExitCode())
	out := output()
	require.Contains(t, out, "retry: attempt 2/2 in 2s (slow phase) — Ctrl-C to stop", "a countdown was shown")
	lines := screenLines(out)
	assert.Contains(t, lines, "from-the-hook", "the hook's output has a line of its own:\n%s", strings.Join(lines, "\n"))
	for _, l := range lines {
		assert.False(t, strings.Contains(l, "Ctrl-C to stop"), "the countdown is gone from the screen: %q", l)
	}
}

func TestRetryLinesStartALineOnATerminalAfterStderrThatEndsMidLine(t *testing.T) {
	c, _, output, done := ptyRetry(t, "-n", "2", "--fast-delay", "1ms", "--retry-if", "err", "--", "sh", "-c", "printf err >&2; exit 1")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retry did not exit")
	}
	assert.Equal(t, 1, c.ProcessState.ExitCode())
	lines := screenLines(output())
	require.Len(t, lines, 4, "%q", lines)
	assert.Equal(t, "err", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "retry: attempt 1/2 failed"), lines[1])
	assert.Equal(t, "err", lines[2])
	assert.True(t, strings.HasPrefix(lines[3], "retry: giving up"), lines[3])
}
