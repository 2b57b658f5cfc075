package main

// Every line starts its own line: the output of an --on-retry hook never
// lands on the countdown, as a terminal shows it.

import (
	"regexp"
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

func TestRetryLinesStartALineAfterStderrThatEndsMidLine(t *testing.T) {
	t.Parallel()
	failing := []string{"--", "sh", "-c", "printf err >&2; exit 1"}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"text log, stderr scanned", nil, []string{"--retry-if", "err"}, []string{
			"err",
			"retry: attempt 1/2 failed: exit 1 (transient: --retry-if \"err\"); retrying in 1ms (fast phase)",
			"err",
			"retry: giving up on sh after 2 attempts in *: attempts exhausted; last error: exit 1 (transient: --retry-if \"err\"); output: \"err\"",
		}},
		{"GitHub Actions", []string{"GITHUB_ACTIONS=true"}, nil, []string{
			"err",
			"::warning title=retry::attempt 1/2 failed: exit 1 (transient); retrying in 1ms (fast phase)",
			"::group::retry: attempt 2/2",
			"err",
			"::endgroup::",
			"::error title=retry::giving up on sh after 2 attempts in *: attempts exhausted; last error: exit 1 (transient)",
		}},
		{"GitHub Actions, stderr scanned", []string{"GITHUB_ACTIONS=true"}, []string{"--retry-if", "err"}, []string{
			"err",
			"::warning title=retry::attempt 1/2 failed: exit 1 (transient: --retry-if \"err\"); retrying in 1ms (fast phase)",
			"::group::retry: attempt 2/2",
			"err",
			"::endgroup::",
			"::error title=retry::giving up on sh after 2 attempts in *: attempts exhausted; last error: exit 1 (transient: --retry-if \"err\"); output: \"err\"",
		}},
		{"JSON log", nil, []string{"--log-format", "json"}, []string{
			`{"type":"attempt_start",*`, "err", `{"type":"attempt_end",*`, `{"type":"wait",*`,
			`{"type":"attempt_start",*`, "err", `{"type":"attempt_end",*`, `{"type":"summary",*`,
		}},
		{"JSON log in GitHub Actions: no workflow commands", []string{"GITHUB_ACTIONS=true"}, []string{"--log-format", "json"}, []string{
			`{"type":"attempt_start",*`, "err", `{"type":"attempt_end",*`, `{"type":"wait",*`,
			`{"type":"attempt_start",*`, "err", `{"type":"attempt_end",*`, `{"type":"summary",*`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-n", "2", "--fast", "1", "--fast-delay", "1ms", "--fast-max", "1ms", "--jitter", "none"}, tc.args...)
			r := retry(t, tc.env, append(args, failing...)...)
			assert.Equal(t, 1, r.code)
			assertLines(t, tc.want, r.stderr)
		})
	}
}

// assertLines checks that text is exactly the lines want, each ending in a
// line feed; a "*" in a wanted line stands for any text.
func assertLines(t *testing.T, want []string, text string) {
	t.Helper()
	got := strings.Split(text, "\n")
	if assert.Equal(t, "", got[len(got)-1], "the last line ends: %q", text) {
		got = got[:len(got)-1]
	}
	if !assert.Len(t, got, len(want), "%q", text) {
		return
	}
	for i, w := range want {
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(w), `\*`, ".*") + "$"
		assert.Regexp(t, re, got[i], "line %d", i+1)
	}
}

func TestHeldOutputThatEndsMidLineIsFollowedByALineOfItsOwn(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "-n", "2", "--fast-delay", "1ms", "--stdout", "buffer", "--", "sh", "-c", "printf out; exit 1")
	assert.Equal(t, 1, r.code)
	assertLines(t, []string{
		"retry: output of failed attempt 1:",
		"out",
		"retry: attempt 1/2 failed: *",
		"retry: output of failed attempt 2:",
		"out",
		"retry: giving up on sh after 2 attempts *",
	}, r.stderr)
}

func TestStderrThatEndsItsLineGetsNoBlankLineAfterIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"text log", nil, nil},
		{"text log, stderr scanned", nil, []string{"--retry-if", "err"}},
		{"GitHub Actions", []string{"GITHUB_ACTIONS=true"}, nil},
		{"JSON log", nil, []string{"--log-format", "json"}},
		{"held output", nil, []string{"--stdout", "buffer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-n", "2", "--fast-delay", "1ms"}, tc.args...)
			r := retry(t, tc.env, append(args, "--", "sh", "-c", "echo out; echo err >&2; exit 1")...)
			assert.Equal(t, 1, r.code)
			assert.NotContains(t, r.stderr, "\n\n", "no blank line")
			assert.False(t, strings.HasPrefix(r.stderr, "\n"), "no blank line")
		})
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
