package main

// End-to-end tests of configuration (RETRY_OPTS, policies, profiles),
// `retry plan`, and shell completion.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryAt runs the binary in dir with env added.
func retryAt(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runRetry(t, dir, nil, env, args...)
}

// project makes a repository with a .retry.toml at its root and returns a
// directory below it.
func project(t *testing.T, toml string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".retry.toml"), []byte(toml), 0o644))
	sub := filepath.Join(root, "src", "app")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	return sub
}

func TestRetryOptsSetsDefaultsTheCommandLineOverrides(t *testing.T) {
	t.Parallel()
	script := []string{"--", "sh", "-c", `echo "$RETRY_MAX_ATTEMPTS"; exit 1`}
	r := retry(t, []string{"RETRY_OPTS=-n 2 --fast-delay '1ms' -q"}, script...)
	assert.Equal(t, "2\n2\n", r.stdout)
	assert.Len(t, r.lines(t), 1, "-q from RETRY_OPTS")

	r = retry(t, []string{"RETRY_OPTS=-n 2 --fast-delay 1ms"}, append([]string{"-n", "3"}, script...)...)
	assert.Equal(t, "3\n3\n3\n", r.stdout, "the command line wins")

	for opts, says := range map[string]string{
		"--nope":       `retry: RETRY_OPTS: "--nope": --nope: unknown flag`,
		"-n two":       `retry: RETRY_OPTS: "-n two": --attempts: "two"`,
		"-n 2 curl":    `holds flags only, not the command word "curl"`,
		"-c 'unclosed": "unbalanced quotes",
		"-n 2; rm -rf": `";" is shell syntax`,
	} {
		r := retry(t, []string{"RETRY_OPTS=" + opts}, "--", "true")
		assert.Equal(t, 125, r.code, opts)
		assert.Contains(t, r.stderr, says, opts)
	}
}

func TestNamedPolicyComesFromTheProjectFile(t *testing.T) {
	t.Parallel()
	dir := project(t, `
[policies.flaky]
attempts = 2
fast-delay = "1ms"
retry-if = ["connection reset", "timed out"]
`)
	r := retryAt(t, dir, nil, "-p", "flaky", "--", "sh", "-c", `echo "connection reset" >&2; exit 1`)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "after 2 attempts")
	assert.Contains(t, r.stderr, `--retry-if "connection reset"`)

	r = retryAt(t, dir, []string{"RETRY_OPTS=-n 3"}, "-p", "flaky", "--", "sh", "-c", `echo "timed out" >&2; exit 1`)
	assert.Contains(t, r.stderr, "after 3 attempts", "RETRY_OPTS beats the policy")

	r = retryAt(t, dir, nil, "plan", "-v", "-p", "flaky", "-n", "4")
	assert.Regexp(t, `--attempts\s+4\s+from command line`, r.stdout)
	assert.Regexp(t, `--fast-delay\s+1ms\s+from policy flaky \(.*\.retry\.toml\)`, r.stdout)
}

func TestPolicyFileMistakesNameTheFileAndLine(t *testing.T) {
	t.Parallel()
	dir := project(t, "[policies.ci]\nattempts = 3\natempts = 4\n")
	r := retryAt(t, dir, nil, "-p", "ci", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Regexp(t, `^retry: .*\.retry\.toml:3: "atempts": unknown setting`, r.stderr)

	dir = project(t, "[policies.ci]\nattempts = \"many\"\n")
	r = retryAt(t, dir, nil, "-p", "ci", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Regexp(t, `\.retry\.toml:2: "attempts = many"`, r.stderr)

	dir = project(t, "[policies.ci\nattempts = 3\n")
	r = retryAt(t, dir, nil, "-p", "ci", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, ".retry.toml:1")

	r = retryAt(t, t.TempDir(), nil, "-p", "nosuch", "--", "true")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, `retry: --policy: "nosuch": no such policy; known: default, interactive, patient`)
}

func TestUserConfigPolicyAndBuiltInProfiles(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, "retry"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "retry", "config.toml"), []byte("[policies.mine]\nattempts = 7\n"), 0o644))
	r := retryAt(t, t.TempDir(), []string{"XDG_CONFIG_HOME=" + home}, "plan", "-p", "mine")
	assert.Contains(t, r.stdout, "attempts: 7;")

	r = retry(t, nil, "plan", "-p", "interactive")
	assert.Contains(t, r.stdout, "attempts: 3; deadline: 2s;")
	r = retry(t, nil, "plan", "-p", "patient")
	assert.Contains(t, r.stdout, "attempts: 8; deadline: 30m0s;")
	assert.Contains(t, r.stdout, "at most 5m0s")
}

func TestPlanShowsTheScheduleRulesAndExactWaits(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "plan", "--seed", "7", "-d", "5s", "--", "curl", "-fsS", "http://x")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attempts: 5; deadline: 5s;")
	assert.Regexp(t, `(?m)^2\s+fast phase\s+0s to 50ms\s+\S+\s+50ms\s+25ms`, r.stdout)
	assert.Regexp(t, `(?m)^5\s+slow phase\s+0s to 4s\s+\S+\s+6\.15s\s+3\.08s\s+deadline may cut here`, r.stdout)
	assert.Contains(t, r.stdout, "presets curl")
	assert.Contains(t, r.stdout, "timeline (worst case):")

	// The exact waits are the ones a run with the same seed uses.
	run := retry(t, nil, "--seed", "7", "-n", "3", "--", "sh", "-c", "exit 1")
	for _, l := range run.lines(t)[:2] {
		wait := l[strings.Index(l, "retrying in ")+len("retrying in ") : strings.Index(l, " (fast phase)")]
		assert.Contains(t, r.stdout, " "+wait+" ", "plan shows the wait %s", wait)
	}
}

func TestCompletionKnowsFlagValues(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "__complete", "--preset", "")
	assert.Contains(t, r.stdout, "curl\t")
	assert.Contains(t, r.stdout, "auto\t")
	r = retry(t, nil, "__complete", "-p", "")
	assert.Contains(t, r.stdout, "patient")
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r = retry(t, nil, "completion", shell)
		assert.Equal(t, 0, r.code, shell)
		assert.Contains(t, r.stdout, "retry", shell)
	}
}
