package main

// Security end to end: the state directory and files are private and
// symlinks in their place are refused; keys cannot name a file outside the
// state directory; temporary files are private and never visible; secrets
// in argv and the environment stay out of every log, report and metric
// (argv shows only with -v).

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStateDirectoryAndFilesAreOwnerOnly(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "a", "state")
	r := retry(t, []string{"RETRY_RUN_ID=job"}, "--breaker", "k", "--state", state, "--run-budget", "3", "-n", "2", "--fast-delay", "1ms", "--", "false")
	require.Equal(t, 1, r.code, r.stderr)
	for _, dir := range []string{state, filepath.Dir(state)} {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o700), fi.Mode().Perm(), dir)
	}
	entries, err := os.ReadDir(state)
	require.NoError(t, err)
	require.Len(t, entries, 4, "the circuit and the run budget, each with its lock")
	for _, e := range entries {
		fi, err := e.Info()
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), e.Name())
		assert.True(t, fi.Mode().IsRegular(), e.Name())
	}
}

func TestSymlinksInPlaceOfStateAreRefusedAndNothingIsFollowed(t *testing.T) {
	t.Parallel()
	t.Run("state directory", func(t *testing.T) {
		t.Parallel()
		root := t.TempDir()
		elsewhere := filepath.Join(root, "elsewhere")
		require.NoError(t, os.Mkdir(elsewhere, 0o700))
		link := filepath.Join(root, "state")
		require.NoError(t, os.Symlink(elsewhere, link))
		r := retry(t, nil, "--breaker", "k", "--state", link, "--", "echo", "ran")
		assert.Equal(t, 0, r.code)
		assert.Equal(t, "ran\n", r.stdout, "the command still runs")
		assert.Contains(t, r.stderr, storeWarning)
		assert.Contains(t, r.stderr, "is a symlink; refusing to follow it")
		assertEmptyDir(t, elsewhere)
	})
	for _, name := range []string{"record", "lock"} {
		t.Run(name+" file", func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			state := filepath.Join(root, "state")
			retry(t, nil, "--breaker", "k", "--state", state, "-n", "1", "--", "false")
			path := recordOf(t, state)
			if name == "lock" {
				path = strings.TrimSuffix(path, ".json") + ".lock"
			}
			victim := filepath.Join(root, "victim")
			require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o600))
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.Symlink(victim, path))

			r := retry(t, nil, "--breaker", "k", "--state", state, "-n", "1", "--", "echo", "ran")
			assert.Equal(t, 0, r.code)
			assert.Equal(t, "ran\n", r.stdout, "the command still runs")
			assert.Contains(t, r.stderr, "is a symlink; refusing to follow it")
			data, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, "precious", string(data), "the link's target is untouched")
		})
	}
}

func TestBreakerKeysNeverNameAFileOutsideTheStateDirectory(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"../../escape", "/etc/passwd", "..", ".", "a/b/../../c", "line\nbreak", "\xff\xfe", strings.Repeat("k", 10_000)} {
		t.Run(strconv.Quote(key[:min(len(key), 20)]), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			state := filepath.Join(root, "state")
			r := retry(t, nil, "--breaker", key, "--state", state, "--state-timeout", "10s", "-n", "1", "--", "false")
			assert.Equal(t, 1, r.code, r.stderr)
			assert.NotContains(t, r.stderr, "warning")
			entries, err := os.ReadDir(root)
			require.NoError(t, err)
			require.Len(t, entries, 1, "nothing beside the state directory")
			files, err := os.ReadDir(state)
			require.NoError(t, err)
			require.Len(t, files, 2, "one record and its lock")
			assert.LessOrEqual(t, len(files[1].Name()), 100)
			assert.EqualValues(t, 1, breakerStatus(t, state, key)["failures"], "the key is found again")
		})
	}
}

func TestSpooledOutputIsPrivateAndNeverVisibleInTMPDIR(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o755))
	// 9 MB held: more than retry keeps in memory, so it spills to disk.
	s := startToFiles(t, []string{"TMPDIR=" + tmp}, "--stdout", "buffer", "--", "sh", "-c",
		`head -c 9000000 /dev/zero; echo x > "$0/spilled"; while [ ! -e "$0/go" ]; do sleep 0.01; done`, dir)
	awaitLines(t, filepath.Join(dir, "spilled"), 1)
	assertEmptyDir(t, tmp)

	// The spool is open in retry, unlinked, readable by its owner only.
	var found bool
	require.Eventually(t, func() bool {
		fds, _ := os.ReadDir("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd")
		for _, fd := range fds {
			path := "/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/fd/" + fd.Name()
			target, _ := os.Readlink(path)
			if strings.HasPrefix(target, tmp+"/") {
				assert.True(t, strings.HasSuffix(target, " (deleted)"), target)
				fi, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
				found = true
			}
		}
		return found
	}, eventLimit, 5*time.Millisecond, "retry holds the spool open")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	r := s.wait(t)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Len(t, r.stdout, 9000000)
	assertEmptyDir(t, tmp)
}

func TestSecretsStayOutOfLogsReportsMetricsAndAnnotations(t *testing.T) {
	t.Parallel()
	const argvSecret, envSecret, flagSecret = "argv-hunter2", "env-hunter2", "flag-hunter2"
	for _, verbose := range []bool{false, true} {
		for _, format := range []string{"text", "json"} {
			name := format
			if verbose {
				name += " verbose"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				report, metrics := filepath.Join(dir, "report.json"), filepath.Join(dir, "retry.prom")
				args := []string{"-n", "2", "--fast-delay", "1ms", "--log-format", format,
					"--report", report, "--metrics-file", metrics, "--env", "API_KEY=" + flagSecret,
					"--on-retry", "true", "--", "sh", "-c", `echo "failing"; echo "failed" >&2; exit 3`, "--token=" + argvSecret}
				if verbose {
					args = append([]string{"-v"}, args...)
				}
				r := retry(t, []string{"SECRET_TOKEN=" + envSecret, "GITHUB_ACTIONS=true"}, args...)
				require.Equal(t, 3, r.code, r.stderr)
				reportData, err := os.ReadFile(report)
				require.NoError(t, err)
				require.True(t, json.Valid(reportData))
				metricsData, err := os.ReadFile(metrics)
				require.NoError(t, err)
				if format == "json" {
					assert.NotContains(t, r.stderr, "::error", "workflow commands stay out of the JSON lines")
				} else {
					assert.Contains(t, r.stderr, "::error title=retry::", "annotations are on")
				}

				for what, out := range map[string]string{"stderr": r.stderr, "stdout": r.stdout, "report": string(reportData), "metrics": string(metricsData)} {
					assert.NotContains(t, out, envSecret, "%s: the environment never shows", what)
					assert.NotContains(t, out, flagSecret, "%s: --env values never show", what)
					if !verbose || what == "metrics" || what == "stdout" {
						assert.NotContains(t, out, argvSecret, "%s: argv only with -v", what)
					}
				}
				if verbose {
					assert.Contains(t, r.stderr, argvSecret, "-v shows the command line")
					assert.Contains(t, string(reportData), argvSecret, "-v puts argv in the report")
				}
			})
		}
	}
}

func TestProgramIsFoundWithoutAPathAsExecvpFindsIt(t *testing.T) {
	t.Parallel()
	// `env -i ls` runs ls: execvp(3) searches /bin:/usr/bin when there is
	// no PATH at all. retry did not, and exited 127.
	c := exec.Command(retryBin, "-n", "1", "--", "ls", "/")
	c.Env = []string{}
	r := runCmd(t, c)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "usr")
}

func TestProgramIsFoundInThePathTheCommandGets(t *testing.T) {
	t.Parallel()
	// --env PATH=… is the command's PATH, and a shell's `PATH=… cmd`
	// looks the program up in it: so does retry.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "only-here"), []byte("#!/bin/sh\necho found\n"), 0o755))
	r := retryIn(t, nil, nil, "-n", "1", "--env", "PATH="+dir+":/usr/bin:/bin", "--", "only-here")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "found\n", r.stdout)
	r = retryIn(t, nil, nil, "-n", "1", "--", "only-here")
	assert.Equal(t, 127, r.code, "not in retry's own PATH: %s", r.stderr)
}
