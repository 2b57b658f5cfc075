package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainResult is how an in-process run of retry ended.
type mainResult struct {
	code           int
	stdout, stderr string
}

// runMain runs Main with args and env, its streams
// temporary files, and no signal handling that a test would trip.
func runMain(t *testing.T, env []string, args ...string) mainResult {
	t.Helper()
	tmp := t.TempDir()
	open := func(name string) *os.File {
		f, err := os.Create(filepath.Join(tmp, name))
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	stdin, err := os.Open(os.DevNull)
	require.NoError(t, err)
	t.Cleanup(func() { stdin.Close() })
	stdout, stderr := open("stdout"), open("stderr")
	deps := Deps{Stdin: stdin, Stdout: stdout, Stderr: stderr, Env: append([]string{"PATH=/nonexistent", "HOME=" + tmp}, env...), Signals: []os.Signal{syscall.SIGUSR2}} // none the tests send; an empty list would catch every signal
	code := Main(context.Background(), args, deps)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(tmp, name))
		require.NoError(t, err)
		return string(b)
	}
	return mainResult{code: code, stdout: read("stdout"), stderr: read("stderr")}
}

func TestPeerToolFlagsPointToOurs(t *testing.T) {
	t.Parallel()
	for flag, says := range map[string]string{
		"--retries=3":       "--retries: unknown flag; retry counts attempts, the first included: use --attempts N",
		"--tries=3":         "--tries: unknown flag; retry counts attempts",
		"--times=3":         "--times: unknown flag; retry counts attempts",
		"--max-retries=3":   "--max-retries: unknown flag; retry counts attempts",
		"--max-time=10":     "--max-time: unknown flag; the time for all attempts and waits is --deadline D",
		"--timeout-total=1": "--timeout-total: unknown flag; the time for all attempts and waits is --deadline D",
		"--delay=2":         "--delay: unknown flag; waits grow from a base: --slow-delay D",
		"--sleep=2":         "--sleep: unknown flag; waits grow from a base: --slow-delay D",
		"--backoff=2":       "--backoff: unknown flag; waits grow from a base: --slow-delay D",
		"--until=3":         "--until: unknown flag; retry stops on success already; to stop on other exit codes too, use --stop-on-exit LIST",
		"--while=1":         "--while: unknown flag; to retry only on some exit codes, use --retry-on-exit LIST",
		"--deadlien=5s":     "--deadlien: unknown flag; did you mean --deadline?",
		"--atempts=3":       "--atempts: unknown flag; did you mean --attempts?",
		"--slow-dealy=3":    "--slow-dealy: unknown flag; did you mean --slow-delay?",
		"--frever":          "--frever: unknown flag; did you mean --forever?",
		"--completely-else": "--completely-else: unknown flag; see retry --help",
	} {
		r := runMain(t, nil, flag, "--", "true")
		assert.Equal(t, 125, r.code, flag)
		assert.Equal(t, "retry: "+says, r.stderr[:min(len(r.stderr), len("retry: "+says))], flag)
	}
}

func TestPeerFlagsArePointedOutInRetryOptsPlanAndPolicyFiles(t *testing.T) {
	t.Parallel()
	r := runMain(t, []string{"RETRY_OPTS=--retries 3"}, "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, `retry: RETRY_OPTS: "--retries 3": --retries: unknown flag; retry counts attempts`)

	r = runMain(t, nil, "plan", "--deadine", "5s")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "--deadine: unknown flag; did you mean --deadline?")

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "retry"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "retry", "config.toml"), []byte("[policies.p]\nslow-dealy = \"1s\"\n[policies.q]\nmax-time = \"1m\"\n"), 0o644))
	r = runMain(t, []string{"XDG_CONFIG_HOME=" + dir}, "-p", "p", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, `config.toml:2: "slow-dealy": unknown setting; did you mean slow-delay?`)
	r = runMain(t, []string{"XDG_CONFIG_HOME=" + dir}, "-p", "q", "--", "true")
	assert.Contains(t, r.stderr, `"max-time": unknown setting; the time for all attempts and waits is deadline D`)
}

func TestMistypedSubcommandThatIsNoProgramSaysWhichWasMeant(t *testing.T) {
	t.Parallel()
	for typo, meant := range map[string]string{"presest": "presets", "plna": "plan", "verison": "version", "braeker": "breaker"} {
		r := runMain(t, nil, typo)
		assert.Equal(t, 127, r.code, "not found, as any command: %s", typo)
		assert.Contains(t, r.stderr, `"`+typo+`": executable file not found in $PATH; did you mean retry `+meant+`? (exit 127, terminal)`)
	}
	r := runMain(t, nil, "curlx")
	assert.Equal(t, 127, r.code)
	assert.NotContains(t, r.stderr, "did you mean")
}

// A flag typed with an en or em dash, as editors and chats put in place of
// -- and -, is no flag: it is run as the command, which is not found. The
// message says which flag was meant (before: only "not found").
func TestAFlagTypedWithATypographicDashSaysWhichFlagWasMeant(t *testing.T) {
	t.Parallel()
	for typed, meant := range map[string]string{"\u2014deadline": "--deadline", "\u2013deadline": "--deadline", "\u2013n": "-n", "\u2212\u2212quiet": "--quiet"} {
		r := runMain(t, nil, typed, "10s", "--", "true")
		assert.Equal(t, 127, r.code, "not found, as any command: %s", typed)
		assert.Contains(t, r.stderr, "it starts with a typographic dash, not a flag's -: did you mean "+meant+"?", typed)
	}
}

func TestAShellBuiltinAsTheCommandSaysToRunTheLineInAShell(t *testing.T) {
	t.Parallel()
	for _, builtin := range []string{"cd", "source", "export", "set", "[["} {
		r := runMain(t, nil, "--", builtin, "x")
		assert.Equal(t, 127, r.code, "not found, as any command: %s", builtin)
		assert.Contains(t, r.stderr, `"`+builtin+`": executable file not found in $PATH; `+builtin+` is part of the shell, not a program: give retry the whole line with --shell -c '…' (exit 127, terminal)`)
	}
	r := runMain(t, nil, "--", "no-such-program-x")
	assert.Equal(t, 127, r.code)
	assert.NotContains(t, r.stderr, "part of the shell")
}

func TestForeverIsNoLimitOnPurpose(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "-n", "0", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Equal(t, `retry: --attempts: "0": no attempt limit and no deadline would retry without end; give --deadline too (such as --deadline 10m) or a stop rule, or say --forever if you mean it`+"\n", r.stderr)

	r = runMain(t, nil, "plan", "--forever")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attempts: forever (--forever); deadline: none")
	assert.Contains(t, r.stdout, "... and so on at most every 30s, forever")

	r = runMain(t, []string{"RETRY_OPTS=--forever"}, "plan", "-n", "3")
	assert.Contains(t, r.stdout, "attempts: 3;", "a later --attempts replaces --forever")
	r = runMain(t, []string{"RETRY_OPTS=-n 3"}, "plan", "--forever")
	assert.Contains(t, r.stdout, "attempts: forever", "a later --forever replaces --attempts")
	r = runMain(t, nil, "plan", "--forever", "--deadline", "1h")
	assert.Contains(t, r.stdout, "attempts: no limit; deadline: 1h0m0s", "a deadline still ends it")
}

func TestPlanForeverMarksThePolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		forever bool
	}{
		{[]string{"--forever"}, true},
		{[]string{"--forever", "--deadline", "1h"}, false},
		{[]string{"--forever", "-n", "4"}, false},
		{[]string{"-n", "0", "--deadline", "1h"}, false},
	} {
		o, fs := boundOptions()
		require.NoError(t, fs.Parse(tc.args))
		p, err := o.plan([]string{"true"}, nil)
		require.NoError(t, err, tc.args)
		assert.Equal(t, tc.forever, p.Policy.Forever, "%v", tc.args)
	}
}

func TestDelayAboveItsCapRaisesTheCapOrNamesTheLayerThatWins(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "plan", "--slow-delay", "60s")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "slow phase: 1m0s doubling to at most 1m0s")
	assert.Contains(t, r.stdout, "note: --slow-max raised from 30s (the default) to 1m0s, the --slow-delay")

	r = runMain(t, nil, "plan", "--fast-delay", "1s")
	assert.Contains(t, r.stdout, "fast phase: 2 retries, 1s doubling to at most 1s")

	r = runMain(t, []string{"RETRY_OPTS=--slow-max 50ms"}, "plan", "--slow-delay", "60s")
	assert.Contains(t, r.stdout, "slow phase: 1m0s doubling to at most 1m0s", "a lower layer's cap is raised")
	assert.Contains(t, r.stdout, "note: --slow-max raised from 50ms (RETRY_OPTS) to 1m0s")

	r = runMain(t, []string{"RETRY_OPTS=--slow-delay 60s"}, "plan", "--slow-max", "50ms")
	assert.Contains(t, r.stdout, "slow phase: 50ms doubling to at most 50ms", "a higher layer's cap wins")
	assert.Contains(t, r.stdout, "note: --slow-delay 1m0s (RETRY_OPTS) is above --slow-max 50ms (the command line): the command line takes precedence")

	r = runMain(t, nil, "plan", "--slow-delay", "60s", "--slow-max", "30s")
	assert.Equal(t, 125, r.code, "one layer contradicting itself")
	assert.Equal(t, "retry: --slow-delay: 1m0s is above --slow-max 30s, both from the command line; raise --slow-max or lower --slow-delay\n", r.stderr)

	r = runMain(t, nil, "plan", "-p", "patient", "--slow-delay", "10m")
	assert.Contains(t, r.stdout, "slow phase: 10m0s doubling to at most 10m0s")
}

func TestCommandStringExpandsVariablesFromTheCommandsEnvironment(t *testing.T) {
	t.Parallel()
	o, fs := boundOptions()
	require.NoError(t, fs.Parse([]string{"--env", "WHO=env flag", "-c", `greet "$WHO" ~/x $LANG`}))
	p, err := o.plan(nil, []string{"HOME=/h", "LANG=C"})
	require.NoError(t, err)
	assert.Equal(t, []string{"greet", "env flag", "/h/x", "C"}, p.Args)
}

// boundOptions returns default options and a flag set bound to them.
func boundOptions() (*Options, *pflag.FlagSet) {
	o := defaultOptions()
	fs := pflag.NewFlagSet("retry", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	o.bind(fs)
	return &o, fs
}

func TestPresetRulesKeepTheMatchColumnNarrow(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "presets", "kubectl")
	require.Equal(t, 0, r.code, r.stderr)
	header := strings.SplitN(r.stdout, "\n", 2)[0]
	matchWidth := strings.Index(header, "DESCRIPTION") - strings.Index(header, "MATCH")
	assert.Less(t, matchWidth, 70, "was padded to about 200 characters")
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		assert.Equal(t, strings.TrimRight(line, " "), line, "no trailing spaces")
	}
}

func TestWrapPatternLinesPutEndToEndAreThePattern(t *testing.T) {
	t.Parallel()
	for _, re := range []string{
		`x509: |certificate signed by unknown authority|certificate has expired|tls: failed to verify`,
		`\((?:AccessDenied|AccessDeniedException|UnauthorizedOperation|UnauthorizedException|InvalidClientTokenId)\)`,
		`[|]{3}|a\|b|` + strings.Repeat("x", 80) + `|short`,
		`plain`,
	} {
		lines := wrapPattern(re, 30)
		assert.Equal(t, re, strings.Join(lines, ""), re)
		for _, l := range lines[1:] {
			assert.True(t, strings.HasPrefix(l, "|"), "%q continues with a bar", l)
		}
	}
	assert.Equal(t, []string{`[|]{3}|a\|b`, "|" + strings.Repeat("x", 80), "|short"}, wrapPattern(`[|]{3}|a\|b|`+strings.Repeat("x", 80)+`|short`, 30), "bars in classes and escaped ones are not cut")
}
