package main

// Bad input, tabled end to end: every value retry cannot use is refused
// before anything runs, in one "retry: " line naming the flag, exit 125.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBadValuesAreRefusedInOneLineNamingTheFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--retry-if", "("}, `retry: --retry-if: "(": missing closing )`},
		{[]string{"--stop-if", "[z-a]"}, `retry: --stop-if: "[z-a]": invalid character class range`},
		{[]string{"--retry-if", "a{1001}"}, `retry: --retry-if: "a{1001}": invalid repeat count`},
		{[]string{"--retry-if", strings.Repeat("(", 5000)}, `retry: --retry-if: "((((`},
		{[]string{"--retry-if", `\C`}, `retry: --retry-if: "\\C": invalid escape sequence`},
		{[]string{"--retry-after", `wait \d+`}, `retry: --retry-after: "wait \\d+": no capture group`},
		{[]string{"--retry-on-exit", "1-2-3"}, `retry: --retry-on-exit: "1-2-3": `},
		{[]string{"--retry-on-exit", "SIGNOPE"}, `retry: --retry-on-exit: "SIGNOPE": `},
		{[]string{"--stop-on-exit", "300"}, `retry: --stop-on-exit: "300": `},
		{[]string{"--signal", "0"}, `retry: --signal: "0": signal number 0 out of range`},
		{[]string{"--signal", "65"}, `retry: --signal: "65": signal number 65 out of range`},
		{[]string{"--signal", ""}, `retry: --signal: "": unknown signal`},
		{[]string{"--signal", "SIGTERM\n"}, `retry: --signal: "SIGTERM\n": unknown signal`},
		{[]string{"--deadline", "1e999"}, `retry: --deadline: "1e999": not a duration`},
		{[]string{"--timeout", "NaN"}, `retry: --timeout: "NaN": not a duration`},
		{[]string{"--kill-after", "99999999999999999999"}, `retry: --kill-after: "99999999999999999999": duration too long`},
		{[]string{"-n", "99999999999999999999"}, `retry: --attempts: "99999999999999999999": want a whole number`},
		{[]string{"--breaker-ratio", "2"}, `retry: --breaker-ratio: "2": want a share above 0 and at most 1`},
		{[]string{"--breaker-window", "0"}, `retry: --breaker-window: "0s": want a duration above 0`},
		{[]string{"--state-timeout", "0"}, `retry: --state-timeout: "0s": want a duration above 0`},
		{[]string{"--stdin", "bogus"}, `retry: --stdin: "bogus": want auto, replay, inherit or null`},
		{[]string{"--log-format", "xml"}, `retry: --log-format: "xml": want text or json`},
		{[]string{"--env", "=x"}, `retry: --env: "=x": want KEY=VALUE`},
		{[]string{"--state", "memcache://h:1", "breaker", "list"}, `retry: --state: "memcache://h:1": state store`},
	} {
		t.Run(strings.Join(tc.args, " ")[:min(40, len(strings.Join(tc.args, " ")))], func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "ran")
			args := append(append([]string{}, tc.args...), "--", "touch", marker)
			if tc.args[len(tc.args)-1] == "list" {
				args = []string{"breaker", "list", "--state", tc.args[1]}
			}
			r := retry(t, nil, args...)
			assert.Equal(t, 125, r.code, r.stderr)
			lines := r.lines(t)
			require.Len(t, lines, 1, "one line: %q", r.stderr)
			assert.True(t, strings.HasPrefix(lines[0], tc.says), "%q should start with %q", lines[0], tc.says)
			assert.NoFileExists(t, marker, "the command never ran")
		})
	}
}

func TestBadCommandStringsAreRefusedOrSplitSafely(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		code    int
		says    string
		stdout  string
	}{
		{`echo "unclosed`, 125, "unbalanced quotes", ""},
		{`echo 'unclosed`, 125, "unbalanced quotes", ""},
		{`echo trailing\`, 125, "", ""},
		{`a | b`, 125, `"|" is shell syntax; add --shell`, ""},
		{`a; b`, 125, `";" is shell syntax`, ""},
		{`''`, 125, "no command in the string", ""},
		{`echo $(id)`, 125, `"$(" is shell syntax that only a shell expands; add --shell`, ""},
		{"echo `id`", 125, "\"`\" is shell syntax that only a shell expands; add --shell", ""},
		{`echo '$(id)' "\$(id)"`, 0, "", "$(id) $(id)\n"},
		{"echo " + strings.Repeat("x", 100_000), 0, "", strings.Repeat("x", 100_000) + "\n"},
	} {
		t.Run(tc.command[:min(20, len(tc.command))], func(t *testing.T) {
			t.Parallel()
			r := retry(t, nil, "-n", "1", "-c", tc.command)
			if tc.command == `echo trailing\` {
				// go-shellwords keeps a trailing backslash as it is.
				assert.Contains(t, []int{0, 125}, r.code)
				return
			}
			assert.Equal(t, tc.code, r.code, r.stderr)
			if tc.code == 125 {
				lines := r.lines(t)
				require.Len(t, lines, 1)
				assert.True(t, strings.HasPrefix(lines[0], "retry: -c: "), lines[0])
				assert.Contains(t, lines[0], tc.says)
				return
			}
			assert.Equal(t, tc.stdout, r.stdout)
		})
	}
}
