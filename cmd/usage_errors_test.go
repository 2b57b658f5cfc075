package cmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad input never runs the command: each case is refused before the
// first attempt, in one "retry: " line that names the flag and the value,
// with exit 125.
func TestBadInputIsRefusedInOneLineNamingTheFlagAndNothingRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"unknown flag", []string{"--frobnicate"}, "retry: --frobnicate: unknown flag; see retry --help"},
		{"unknown short flag", []string{"-x"}, "retry: -x: unknown flag; see retry --help (put -- before the command if the flag is the command's)"},
		{"unknown short flag in a group", []string{"-xq"}, "retry: -x (in -xq): unknown flag"},
		{"flag without its value", []string{"-n", "3", "--deadline"}, "retry: --deadline: needs a value"},
		{"bad duration", []string{"--deadline", "soon"}, `retry: --deadline: "soon": not a duration`},
		{"negative duration", []string{"-t", "-5s"}, `retry: --timeout: "-5s": negative duration`},
		{"huge duration", []string{"--kill-after", "99999999999999999999"}, `retry: --kill-after: "99999999999999999999": duration too long`},
		{"NaN duration", []string{"--timeout", "NaN"}, `retry: --timeout: "NaN": not a duration`},
		{"bad timeout auto", []string{"--timeout", "auto,x"}, `retry: --timeout: "auto,x"`},
		{"negative count", []string{"-n", "-1"}, `retry: --attempts: "-1": want a whole number, 0 or more`},
		{"count that is not a number", []string{"--fast", "two"}, `retry: --fast: "two": want a whole number, 0 or more`},
		{"count too large", []string{"-n", "99999999999999999999"}, `retry: --attempts: "99999999999999999999": want a whole number`},
		{"bad seed", []string{"--seed", "-3"}, `retry: --seed: "-3": want a whole number`},
		{"bad regexp", []string{"--retry-if", "("}, `retry: --retry-if: "(": missing closing )`},
		{"bad stop regexp", []string{"--stop-if", "[z-a]"}, `retry: --stop-if: "[z-a]": invalid character class range`},
		{"retry-after without a group", []string{"--retry-after", `wait \d+`}, `retry: --retry-after: "wait \\d+": no capture group`},
		{"bad exit list", []string{"--retry-on-exit", "1-2-3"}, `retry: --retry-on-exit: "1-2-3": `},
		{"exit code out of range", []string{"--stop-on-exit", "300"}, `retry: --stop-on-exit: "300": `},
		{"bad signal", []string{"--signal", "NOPE"}, `retry: --signal: "NOPE": unknown signal`},
		{"signal number out of range", []string{"--signal", "65"}, `retry: --signal: "65": signal number 65 out of range`},
		{"bad jitter", []string{"--jitter", "half"}, `retry: --jitter: "half": want full, equal or none`},
		{"bad stdin-max", []string{"--stdin-max", "lots"}, `retry: --stdin-max: "lots": `},
		{"negative stdin-max", []string{"--stdin-max", "-1"}, `retry: --stdin-max: "-1": `},
		{"bad stdin", []string{"--stdin", "bogus"}, `retry: --stdin: "bogus": want auto, replay, inherit or null`},
		{"bad stdout", []string{"--stdout", "hold"}, `retry: --stdout: "hold": want pass or buffer`},
		{"drop-failed-output without buffer", []string{"--drop-failed-output"}, "retry: --drop-failed-output: only applies with --stdout buffer"},
		{"bad when-open", []string{"--when-open", "sometimes"}, `retry: --when-open: "sometimes": want auto, wait or fail`},
		{"bad breaker ratio", []string{"--breaker-ratio", "2"}, `retry: --breaker-ratio: "2": want a share above 0 and at most 1`},
		{"empty retry-if", []string{"--retry-if", ""}, `retry: --retry-if: an empty pattern matches every line; give a pattern, or leave the flag out`},
		{"empty stop-if", []string{"--stop-if", ""}, `retry: --stop-if: an empty pattern`},
		{"breaker ratio NaN", []string{"--breaker-ratio", "NaN"}, `retry: --breaker-ratio: "NaN": want a share above 0 and at most 1`},
		{"budget tokens NaN", []string{"--budget-tokens", "NaN"}, `retry: --budget-tokens: "NaN": want a finite number above 0`},
		{"budget tokens Inf", []string{"--budget-tokens", "Inf"}, `retry: --budget-tokens: "+Inf": want a finite number above 0`},
		{"budget ratio NaN", []string{"--budget-ratio", "NaN"}, `retry: --budget-ratio: "NaN": want a finite number, 0 or more`},
		{"budget ratio Inf", []string{"--budget-ratio", "Inf"}, `retry: --budget-ratio: "+Inf": want a finite number, 0 or more`},
		{"zero breaker window", []string{"--breaker-window", "0"}, `retry: --breaker-window: "0s": want a duration above 0`},
		{"bad log format", []string{"--log-format", "xml"}, `retry: --log-format: "xml": want text or json`},
		{"bad annotations", []string{"--annotations", "on"}, `retry: --annotations: "on": want auto or off`},
		{"bad nested", []string{"--nested", "never"}, `retry: --nested: "never": want warn, single or allow`},
		{"bad env", []string{"--env", "=x"}, `retry: --env: "=x": want KEY=VALUE`},
		{"env without a value", []string{"--env", "KEY"}, `retry: --env: "KEY": want KEY=VALUE`},
		{"cwd that is no directory", []string{"--cwd", "/nonexistent/dir"}, `retry: --cwd: "/nonexistent/dir": not a directory; give an existing directory`},
		{"unknown preset", []string{"--preset", "nosuchtool"}, `retry: --preset: "nosuchtool": `},
		{"quiet and verbose", []string{"-q", "-v"}, "retry: --quiet: cannot be used with --verbose (both from the command line); pick one"},
		{"endless without a deadline", []string{"-n", "0"}, `retry: --attempts: "0": no attempt limit and no deadline would retry without end`},
		{"hook must succeed without a hook", []string{"--on-retry-must-succeed"}, "retry: --on-retry-must-succeed: needs --on-retry CMD"},
		{"shell without a string", []string{"--shell"}, "retry: --shell: needs -c STRING"},
		{"timeout key without auto", []string{"--timeout-key", "k"}, `retry: --timeout-key: "k": only applies with --timeout auto`},
		{"delay above its cap on one layer", []string{"--fast-delay", "1s", "--fast-max", "100ms"}, "retry: --fast-delay: 1s is above --fast-max 100ms, both from the command line"},
		{"no such policy", []string{"-p", "nosuch"}, `retry: --policy: "nosuch": no such policy; known: default, interactive, patient (policies live in .retry.toml or ~/.config/retry/config.toml)`},
		{"repeat count too large", []string{"--retry-if", "a{1001}"}, `retry: --retry-if: "a{1001}": invalid repeat count`},
		{"nesting too deep", []string{"--retry-if", strings.Repeat("(", 5000)}, `retry: --retry-if: "((((`},
		{"escape Go's regexp lacks", []string{"--retry-if", `\C`}, `retry: --retry-if: "\\C": invalid escape sequence`},
		{"unknown signal in an exit list", []string{"--retry-on-exit", "SIGNOPE"}, `retry: --retry-on-exit: "SIGNOPE": `},
		{"signal number 0", []string{"--signal", "0"}, `retry: --signal: "0": signal number 0 out of range`},
		{"empty signal", []string{"--signal", ""}, `retry: --signal: "": unknown signal`},
		{"signal with a line feed", []string{"--signal", "SIGTERM\n"}, `retry: --signal: "SIGTERM\n": unknown signal`},
		{"duration out of range", []string{"--deadline", "1e999"}, `retry: --deadline: "1e999": not a duration`},
		{"zero state timeout", []string{"--state-timeout", "0"}, `retry: --state-timeout: "0s": want a duration above 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fake(exits(0))
			args := append(append([]string{}, tc.args...), "--", "prog")
			if tc.name == "flag without its value" {
				args = tc.args
			}
			r := runFaked(t, f, nil, args...)
			assert.Equal(t, 125, r.code, r.stderr)
			require.Len(t, r.lines(), 1, "one line: %q", r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, tc.says), "%q should start with %q", r.stderr, tc.says)
			assert.Empty(t, f.commands(), "the command never ran")
			assert.Empty(t, r.stdout)
		})
	}
}

// A subcommand's bad flag value is refused the same way.
func TestBadStateStoreOfASubcommandIsRefusedNamingTheFlag(t *testing.T) {
	t.Parallel()
	r := runFaked(t, fake(exits(0)), nil, "breaker", "list", "--state", "memcache://h:1")
	assert.Equal(t, 125, r.code)
	assert.True(t, strings.HasPrefix(r.stderr, `retry: --state: "memcache://h:1": state store`), r.stderr)
	assert.Len(t, r.lines(), 1)
}

// The command is missing, or given twice, or its -c string cannot be
// split without a shell: refused naming -c or COMMAND.
func TestBadCommandIsRefusedNamingWhereItCameFrom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{nil, "retry: COMMAND: missing; give the command to run after the flags, as in retry -n 3 -- curl -fsS URL\n"},
		{[]string{"-n", "3"}, "retry: COMMAND: missing; give the command to run after the flags, as in retry -n 3 -- curl -fsS URL\n"},
		{[]string{"--", ""}, "retry: COMMAND: missing; "},
		{[]string{"-c", "prog", "--", "prog"}, `retry: -c: "prog": give the command either as -c STRING or after the flags, not both` + "\n"},
		{[]string{"-c", `echo "unclosed`}, `retry: -c: "echo \"unclosed": unbalanced quotes or a trailing backslash; close every quote` + "\n"},
		{[]string{"-c", "a | b"}, `retry: -c: "a | b": "|" is shell syntax; add --shell`},
		{[]string{"-c", "a; b"}, `retry: -c: "a; b": ";" is shell syntax`},
		{[]string{"-c", "echo (x)"}, `retry: -c: "echo (x)": "(" is shell syntax; quote the word that holds it`},
		{[]string{"-c", `echo "(x" )`}, `retry: -c: "echo \"(x\" )": ")" is shell syntax`},
		{[]string{"-c", `echo "(x`}, `unbalanced quotes`},
		{[]string{"-c", "echo $(id)"}, `"$(" is shell syntax that only a shell expands; add --shell`},
		{[]string{"-c", "echo `id`"}, "\"`\" is shell syntax that only a shell expands; add --shell"},
		{[]string{"-c", "''"}, `retry: -c: "''": no command in the string` + "\n"},
		{[]string{"-c", "\xff"}, "retry: -c: \"\\xff\": not valid UTF-8"},
	} {
		f := fake(exits(0))
		r := runFaked(t, f, nil, tc.args...)
		assert.Equal(t, 125, r.code, "%q: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.says, "%q", tc.args)
		assert.Len(t, r.lines(), 1, "%q", tc.args)
		assert.Empty(t, f.commands(), "%q: the command never ran", tc.args)
	}
}

// A -c string is split into the argv of the Command without a shell;
// quotes hide shell syntax, and --shell hands the string to $SHELL -c.
func TestCommandStringBecomesTheArgvOfEveryAttempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		args []string
		argv []string
	}{
		{nil, []string{"-c", `echo '$(id)' "\$(id)" a\ b`}, []string{"echo", "$(id)", "$(id)", "a b"}},
		{[]string{"WHO=world"}, []string{"-c", `greet "$WHO" ${WHO}s`}, []string{"greet", "world", "worlds"}},
		{nil, []string{"--env", "WHO=flag", "-c", `greet $WHO`}, []string{"greet", "flag"}},
		{[]string{"SHELL=/bin/zsh"}, []string{"--shell", "-c", "a | b"}, []string{"/bin/zsh", "-c", "a | b"}},
		{nil, []string{"--shell", "-c", "a | b"}, []string{"/bin/sh", "-c", "a | b"}},
		// A system account's login shell, as systemd sets it for User=.
		{[]string{"SHELL=/usr/sbin/nologin"}, []string{"--shell", "-c", "a | b"}, []string{"/bin/sh", "-c", "a | b"}},
		{[]string{"SHELL=/bin/false"}, []string{"--shell", "-c", "a | b"}, []string{"/bin/sh", "-c", "a | b"}},
		{nil, []string{"-n", "1", "printf", "%s", "-q", "-n"}, []string{"printf", "%s", "-q", "-n"}},
		{nil, []string{"--", "-n"}, []string{"-n"}},
		{nil, []string{"-c", "echo " + strings.Repeat("x", 100_000)}, []string{"echo", strings.Repeat("x", 100_000)}},
		{[]string{"HOME=/home/someone", "GREETING=hello world"}, []string{"-c", `printf '[%s]' $GREETING "$GREETING" '$HOME' ~/x`}, []string{"printf", "[%s]", "hello", "world", "hello world", "$HOME", "/home/someone/x"}},
	} {
		f := fake(exits(0))
		r := runFaked(t, f, tc.env, append([]string{"-n", "2"}, tc.args...)...)
		require.Equal(t, 0, r.code, "%q: %s", tc.args, r.stderr)
		require.Len(t, f.commands(), 1, "%q", tc.args)
		assert.Equal(t, tc.argv, f.commands()[0].Args, "%q", tc.args)
	}
}
