package cmd

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/policy"
	"retry/runner"
)

// What the flags become: a table from argv to the Plan the run is given.
func TestPlanTurnsFlagsIntoThePlan(t *testing.T) {
	t.Parallel()
	def := policy.Default()
	for _, tc := range []struct {
		name  string
		args  []string
		env   []string
		check func(t *testing.T, p Plan)
	}{
		{"no flags: the default policy", nil, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, def, p.Policy)
			assert.Equal(t, []string{"prog"}, p.Args)
			assert.Zero(t, p.Timeout)
			assert.Equal(t, syscall.SIGTERM, p.Signal)
			assert.Equal(t, 5*time.Second, p.KillAfter)
			assert.True(t, p.StdinAuto)
			assert.Equal(t, int64(DefaultStdinMax), p.StdinMax)
			assert.Equal(t, runner.StdoutPass, p.StdoutMode)
			assert.Nil(t, p.Hook)
			assert.Nil(t, p.Fallback)
			assert.Nil(t, p.Learn)
			assert.Empty(t, p.Notes)
			assert.True(t, p.Classifier.NeedsOutput(), "the signatures read stderr")
		}},
		{"limits and the stop signal", []string{"-n", "3", "-d", "1m30s", "-t", "10s", "-s", "INT", "-k", "2s"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, 3, p.Policy.Attempts)
			assert.Equal(t, 90*time.Second, p.Policy.Deadline)
			assert.Equal(t, 10*time.Second, p.Timeout)
			assert.Equal(t, syscall.SIGINT, p.Signal)
			assert.Equal(t, 2*time.Second, p.KillAfter)
		}},
		{"plain seconds and days", []string{"-d", "1d12h", "-t", "2.5"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, 36*time.Hour, p.Policy.Deadline)
			assert.Equal(t, 2500*time.Millisecond, p.Timeout)
		}},
		{"the schedule", []string{"--fast", "0", "--slow-delay", "1s", "--slow-max", "4s", "--jitter", "none", "--reset", "5m", "--retry-after-max", "1m"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, 0, p.Policy.Fast)
			assert.Equal(t, time.Second, p.Policy.SlowDelay)
			assert.Equal(t, 4*time.Second, p.Policy.SlowMax)
			assert.Equal(t, "none", p.Policy.Jitter.String())
			assert.Equal(t, 5*time.Minute, p.Policy.Reset)
			assert.Equal(t, time.Minute, p.Policy.HintMax)
		}},
		{"a delay above the default cap raises it", []string{"--slow-delay", "60s"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, time.Minute, p.Policy.SlowMax)
			assert.Equal(t, []string{"--slow-max raised from 30s (the default) to 1m0s, the --slow-delay"}, p.Notes)
		}},
		{"streams", []string{"--stdin", "null", "--stdout", "buffer", "--drop-failed-output", "--stdin-max", "10MiB"}, nil, func(t *testing.T, p Plan) {
			assert.False(t, p.StdinAuto)
			assert.Equal(t, runner.StdinNull, p.StdinMode)
			assert.Equal(t, runner.StdoutBuffer, p.StdoutMode)
			assert.True(t, p.DropFailed)
			assert.Equal(t, int64(10<<20), p.StdinMax)
		}},
		{"stdin replay and no limit", []string{"--stdin", "replay", "--stdin-max", "0"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, runner.StdinReplay, p.StdinMode)
			assert.Zero(t, p.StdinMax)
		}},
		{"the hook, the fallback, the directory and the environment", []string{"--on-retry", "make clean", "--fallback", "echo cached", "--cwd", os.TempDir(), "--env", "A=1", "--env", "B=2"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, []string{"/bin/sh", "-c", "make clean"}, p.Hook)
			assert.Equal(t, []string{"/bin/sh", "-c", "echo cached"}, p.Fallback)
			assert.Equal(t, os.TempDir(), p.Dir)
			assert.Equal(t, []string{"A=1", "B=2"}, p.Env)
		}},
		{"nested single inside another retry makes one attempt", []string{"--nested", "single"}, []string{"RETRY_ATTEMPT=2"}, func(t *testing.T, p Plan) {
			assert.Equal(t, 1, p.Policy.Attempts)
		}},
		{"nested single outside a retry changes nothing", []string{"--nested", "single"}, nil, func(t *testing.T, p Plan) {
			assert.Equal(t, def.Attempts, p.Policy.Attempts)
		}},
		{"timeout auto learns, its fallback meanwhile", []string{"--timeout", "auto,2m"}, nil, func(t *testing.T, p Plan) {
			require.NotNil(t, p.Learn)
			assert.Equal(t, 2*time.Minute, p.Learn.Fallback)
			assert.False(t, p.Learn.Named)
		}},
		{"preset none and no rule: stderr untouched", []string{"--preset", "none"}, nil, func(t *testing.T, p Plan) {
			assert.False(t, p.Classifier.NeedsOutput())
		}},
		{"an output rule reads the output", []string{"--preset", "none", "--retry-if", "reset"}, nil, func(t *testing.T, p Plan) {
			assert.True(t, p.Classifier.NeedsOutput())
		}},
		{"a deadline ends a run of no count", []string{"-n", "0", "-d", "1h"}, nil, func(t *testing.T, p Plan) {
			assert.Zero(t, p.Policy.Attempts)
			assert.False(t, p.Policy.Forever)
		}},
		{"a stop rule ends a run of no count", []string{"-n", "0", "--stop-on-exit", "3"}, nil, func(t *testing.T, p Plan) {
			assert.Zero(t, p.Policy.Attempts)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, fs := boundOptions()
			require.NoError(t, fs.Parse(tc.args))
			p, err := o.plan([]string{"prog"}, tc.env)
			require.NoError(t, err)
			tc.check(t, p)
		})
	}
}

// Every error of Options.plan is a *UsageError that names the flag.
func TestPlanErrorsNameTheFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--signal", "NOPE"}, "--signal"},
		{[]string{"--jitter", "half"}, "--jitter"},
		{[]string{"-q", "-v"}, "--quiet"},
		{[]string{"-n", "0"}, "--attempts"},
		{[]string{"--retry-if", "("}, "--retry-if"},
		{[]string{"--stop-if", "("}, "--stop-if"},
		{[]string{"--retry-after", "x"}, "--retry-after"},
		{[]string{"--retry-on-exit", "x"}, "--retry-on-exit"},
		{[]string{"--stop-on-exit", "x"}, "--stop-on-exit"},
		{[]string{"--preset", "nosuchtool"}, "--preset"},
		{[]string{"--when-open", "x"}, "--when-open"},
		{[]string{"--log-format", "x"}, "--log-format"},
		{[]string{"--annotations", "x"}, "--annotations"},
		{[]string{"--on-retry-must-succeed"}, "--on-retry-must-succeed"},
		{[]string{"--cwd", "/nonexistent"}, "--cwd"},
		{[]string{"--env", "x"}, "--env"},
		{[]string{"--nested", "x"}, "--nested"},
		{[]string{"--stdin", "x"}, "--stdin"},
		{[]string{"--stdout", "x"}, "--stdout"},
		{[]string{"--drop-failed-output"}, "--drop-failed-output"},
		{[]string{"--timeout-key", "k"}, "--timeout-key"},
	} {
		o, fs := boundOptions()
		require.NoError(t, fs.Parse(tc.args), tc.args)
		_, err := o.plan([]string{"prog"}, nil)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, "%q", tc.args)
		assert.Equal(t, tc.flag, ue.Flag, "%q", tc.args)
	}
}

// project makes a repository whose root holds toml as .retry.toml and
// returns a directory below the root.
func project(t *testing.T, toml string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".retry.toml"), []byte(toml), 0o644))
	sub := filepath.Join(root, "src", "app")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	return sub
}

// userConfig makes $XDG_CONFIG_HOME/retry/config.toml holding toml and
// returns the XDG_CONFIG_HOME setting.
func userConfig(t *testing.T, toml string) string {
	t.Helper()
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "retry"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "retry", "config.toml"), []byte(toml), 0o644))
	return "XDG_CONFIG_HOME=" + home
}

// Layers, lowest first: defaults, a policy (the project's .retry.toml
// before the user's config.toml, or a built-in profile), RETRY_OPTS, the
// command line. What each attempt is told (RETRY_MAX_ATTEMPTS) and how
// many are made show which layer won.
func TestLayersTheCommandLineBeatsRetryOptsBeatsAPolicy(t *testing.T) {
	t.Chdir(project(t, `
[policies.p]
attempts = 4
fast-delay = "1ms"
retry-if = ["connection reset"]

[policies.shared]
attempts = 6
`))
	user := userConfig(t, "[policies.shared]\nattempts = 9\n[policies.mine]\nattempts = 7\n")
	for _, tc := range []struct {
		name     string
		opts     string
		args     []string
		attempts int
	}{
		{"defaults", "", nil, 5},
		{"a policy of the project", "", []string{"-p", "p"}, 4},
		{"RETRY_OPTS alone", "-n 2", nil, 2},
		{"RETRY_OPTS beats the policy", "-n 3", []string{"-p", "p"}, 3},
		{"the command line beats RETRY_OPTS and the policy", "-n 3", []string{"-p", "p", "-n", "2"}, 2},
		{"a policy named in RETRY_OPTS", "-p p", nil, 4},
		{"the command line's policy beats RETRY_OPTS's", "-p mine", []string{"-p", "p"}, 4},
		{"the project's file before the user's", "", []string{"-p", "shared"}, 6},
		{"a policy of the user", "", []string{"-p", "mine"}, 7},
		{"a built-in profile", "", []string{"-p", "patient"}, 8},
		{"a later -p replaces an earlier one", "", []string{"-p", "mine", "--policy=p"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				env := []string{user}
				if tc.opts != "" {
					env = append(env, "RETRY_OPTS="+tc.opts)
				}
				f := fake(fakeAttempt{code: 1, stderr: "connection reset\n"})
				r := runFaked(t, f, env, append(tc.args, "--", "prog")...)
				assert.Equal(t, 1, r.code, r.stderr)
				assert.Len(t, f.commands(), tc.attempts, r.stderr)
				assert.Equal(t, strconv.Itoa(tc.attempts), f.envOf(t, 0, "RETRY_MAX_ATTEMPTS"))
			})
		})
	}

	inBubble(t, func(t *testing.T) {
		f := fake(fakeAttempt{code: 1, stderr: "timed out\n"})
		r := runFaked(t, f, nil, "-p", "p", "--", "prog")
		assert.Equal(t, 1, r.code)
		assert.Len(t, f.commands(), 1, "the policy's retry-if is an allow-list: an unmatched failure is terminal")
		assert.Contains(t, r.stderr, "(terminal")

		f = fake(fakeAttempt{code: 1, stderr: "connection reset\n"})
		r = runFaked(t, f, nil, "-p", "p", "--", "prog")
		assert.Contains(t, r.stderr, `--retry-if "connection reset"`, "the line names the policy's rule")

		f = fake(exits(1))
		r = runFaked(t, f, []string{"RETRY_OPTS=-n 2 -q"}, "--", "prog")
		assert.Len(t, r.lines(), 1, "-q from RETRY_OPTS: %s", r.stderr)

		f = fake(exits(1))
		r = runFaked(t, f, nil, "-p", "interactive", "--", "prog")
		assert.Equal(t, "2000", f.envOf(t, 0, "RETRY_DEADLINE_MS"), "the profile's deadline")
	})
}

// RETRY_OPTS holds flags only, split as a shell would without running
// one; a mistake in it is named as its own and nothing runs.
func TestRetryOptsMistakesAreNamedAsItsOwn(t *testing.T) {
	t.Parallel()
	for opts, says := range map[string]string{
		"--nope":                 `retry: RETRY_OPTS: "--nope": --nope: unknown flag`,
		"-n two":                 `retry: RETRY_OPTS: "-n two": --attempts: "two"`,
		"-n 2 curl":              `retry: RETRY_OPTS: "-n 2 curl": holds flags only, not the command word "curl"`,
		"-d 5s --":               `retry: RETRY_OPTS: "-d 5s --": holds flags only, not "--": the command line gives it, before the command`,
		"-c 'unclosed":           `retry: RETRY_OPTS: "-c 'unclosed": unbalanced quotes`,
		"-n 2; rm -rf":           `";" is shell syntax; RETRY_OPTS holds flags only`,
		"--version":              "RETRY_OPTS",
		"-p nosuchname":          `retry: --policy: "nosuchname": no such policy`,
		"--stdout bufer":         `retry: RETRY_OPTS: --stdout: "bufer": want pass or buffer`,
		"--retry-if (x":          `retry: RETRY_OPTS: "--retry-if (x": "(" is shell syntax; quote the word that holds it`,
		"--retry-if '(x'":        `retry: RETRY_OPTS: --retry-if: "(x": missing closing )`,
		"--cwd /nonexistent/dir": `retry: RETRY_OPTS: --cwd: "/nonexistent/dir": not a directory`,
	} {
		f := fake(exits(0))
		r := runFaked(t, f, []string{"RETRY_OPTS=" + opts}, "--", "prog")
		assert.Equal(t, 125, r.code, opts)
		assert.Contains(t, r.stderr, says, opts)
		assert.Len(t, r.lines(), 1, opts)
		assert.Empty(t, f.commands(), "%s: nothing ran", opts)
	}
	r := runFaked(t, fake(exits(0)), []string{"RETRY_OPTS=  "}, "--", "prog")
	assert.Equal(t, 0, r.code, "a blank RETRY_OPTS is none: %s", r.stderr)
}

// -q and -v from two layers are not a mistake: the nearer wins, as for
// every flag (a CI's RETRY_OPTS=-q, then -v on the command line to look
// closer). Before, the run was refused with exit 125.
func TestQuietAndVerboseFromTwoLayersTheNearerWins(t *testing.T) {
	t.Parallel()
	r := runFaked(t, fake(exits(1)), []string{"RETRY_OPTS=-q"}, "-v", "-n", "1", "--", "prog")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "retry: attempt 1/1: prog", "-v from the command line")
	r = runFaked(t, fake(exits(1)), []string{"RETRY_OPTS=-v"}, "-q", "-n", "2", "--fast-delay", "1ms", "--", "prog")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Len(t, r.lines(), 1, "-q from the command line keeps the give-up line only: %s", r.stderr)
}

// A mistake in a policy file names the file and the line.
func TestPolicyFileMistakesNameTheFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		toml, says string
	}{
		{"[policies.ci]\nattempts = 3\natempts = 4\n", `.retry.toml:3: "atempts": unknown setting`},
		{"[policies.ci]\nattempts = \"many\"\n", `.retry.toml:2: "attempts = many"`},
		{"[policies.ci\nattempts = 3\n", ".retry.toml:1"},
		{"[policies.ci]\nversion = true\n", "version"},
	} {
		t.Run(tc.says, func(t *testing.T) {
			t.Chdir(project(t, tc.toml))
			f := fake(exits(0))
			r := runFaked(t, f, nil, "-p", "ci", "--", "prog")
			assert.Equal(t, 125, r.code)
			assert.Contains(t, r.stderr, tc.says)
			assert.Len(t, r.lines(), 1)
			assert.Empty(t, r.stdout)
			assert.Empty(t, f.commands())
		})
	}
}

// A policy file saved by a Windows editor starts with a byte order mark;
// it is read as the same file without it (before: "invalid character at
// start of key").
func TestAPolicyFileWithAByteOrderMarkIsRead(t *testing.T) {
	t.Chdir(project(t, "\xef\xbb\xbf[policies.ci]\nattempts = 2\nfast-delay = \"1ms\"\n"))
	f := fake(exits(1), exits(0))
	r := runFaked(t, f, nil, "-p", "ci", "--", "prog")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, f.commands(), 2, "the policy's two attempts")
}
