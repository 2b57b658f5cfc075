package main

// End-to-end tests of stdin replay at its limits: a spool that cannot be
// written (no TMPDIR, an unwritable or full one, a file size limit) or that
// passes --stdin-max. The attempt reading the stream must get all of it,
// and no later attempt may be handed a cut one.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomInput returns n bytes that differ from any other n bytes this
// test makes, so a lost, cut or repeated chunk changes the sum.
func randomInput(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 12))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// sumsCommand is a failing command that writes the sum of its stdin to
// dir/sum.N for attempt N and exits 3, a transient failure.
func sumsCommand(dir string) []string {
	return []string{"sh", "-c", `sha256sum | cut -d" " -f1 > "$0/sum.$RETRY_ATTEMPT"; exit 3`, dir}
}

// sums returns what the attempts of sumsCommand saw, by attempt number.
func sums(t *testing.T, dir string) map[int]string {
	t.Helper()
	out := map[int]string{}
	paths, err := filepath.Glob(filepath.Join(dir, "sum.*"))
	require.NoError(t, err)
	for _, p := range paths {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Ext(p), "."))
		require.NoError(t, err)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		out[n] = strings.TrimSpace(string(data))
	}
	return out
}

// assertRefusedOnce checks a run whose first attempt failed with exit 3
// and whose retries were refused because stdin could not be replayed:
// one attempt, which read the whole input, exit 3, one line saying why.
func assertRefusedOnce(t *testing.T, r result, dir string, input []byte, why string) {
	t.Helper()
	assert.Equal(t, 3, r.code, "the last attempt's code, never 0: %s", r.stderr)
	assert.Equal(t, map[int]string{1: sha(input)}, sums(t, dir), "one attempt, and it read the whole input")
	lines := r.lines(t)
	require.Len(t, lines, 1, "one line: %s", r.stderr)
	assert.Contains(t, lines[0], "retry: giving up on sh after 1 attempt in ")
	assert.Contains(t, lines[0], why)
	assert.Contains(t, lines[0], "and can no longer be replayed: pass a file (< file)")
	assert.Contains(t, lines[0], "; last error: exit 3 (transient)")
}

func TestStdinThatCannotBeRecordedReachesTheAttemptWholeAndIsNotRetried(t *testing.T) {
	t.Parallel()
	input := randomInput(12 << 20) // past the 8 MiB kept in memory
	notDir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600))
	readOnly := t.TempDir()
	require.NoError(t, os.Chmod(readOnly, 0o500))
	t.Cleanup(func() { _ = os.Chmod(readOnly, 0o700) })

	for _, tc := range []struct {
		name string
		// tmpdir is TMPDIR; wrap, when set, runs retry under a program.
		tmpdir string
		wrap   []string
		why    string
		root   bool // the case means nothing for root
	}{
		{name: "TMPDIR missing", tmpdir: filepath.Join(t.TempDir(), "missing"),
			why: "stdin could not be recorded past 8 MiB (open "},
		{name: "TMPDIR is a file", tmpdir: notDir, why: "not a directory"},
		{name: "TMPDIR not writable", tmpdir: readOnly, why: "permission denied", root: true},
		{name: "file size limit", tmpdir: t.TempDir(), wrap: []string{"prlimit", "--fsize=1048576", "--"},
			why: "file too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.root && os.Geteuid() == 0 {
				t.Skip("root writes through permission bits; TestStdinIntoAReadOnlyOrFullTMPDIR covers it with a read-only mount")
			}
			if len(tc.wrap) > 0 {
				if _, err := exec.LookPath(tc.wrap[0]); err != nil {
					t.Skipf("%s is not installed", tc.wrap[0])
				}
			}
			run := func(args ...string) result {
				t.Helper()
				argv := append(append([]string{}, tc.wrap...), retryBin)
				c := exec.Command(argv[0], append(argv[1:], args...)...)
				c.Stdin = bytes.NewReader(input) // a pipe: retry must record it
				c.Env = append(cleanEnv(), "TMPDIR="+tc.tmpdir)
				return runCmd(t, c)
			}

			r := run("--", "wc", "-c")
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, strconv.Itoa(len(input)), strings.TrimSpace(r.stdout), "the attempt got every byte")
			assert.Empty(t, r.stderr, "an attempt that succeeds needs no replay")

			dir := t.TempDir()
			r = run(append([]string{"--fast-delay", "1ms", "--"}, sumsCommand(dir)...)...)
			assertRefusedOnce(t, r, dir, input, tc.why)
		})
	}
}

func TestStdinIntoAReadOnlyOrFullTMPDIR(t *testing.T) {
	t.Parallel()
	input := randomInput(24 << 20) // past memory and the 10 MiB tmpfs
	for _, tc := range []struct {
		name, mount, why string
	}{
		{"read-only bind mount", `mount --bind "$1" "$1" && mount -o remount,ro,bind "$1"`, "read-only file system"},
		{"10 MiB tmpfs", `mount -t tmpfs -o size=10m tmpfs "$1"`, "no space left on device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			require.NoError(t, os.Mkdir(tmp, 0o700))
			in := filepath.Join(dir, "input")
			require.NoError(t, os.WriteFile(in, input, 0o600))
			sums := filepath.Join(dir, "sums")
			require.NoError(t, os.Mkdir(sums, 0o700))
			// cat makes stdin a pipe: a file would be rewound, not recorded.
			out := inMountNamespace(t, tc.mount+` || { echo SKIP: mount failed; exit 0; }
				cat "$2/input" | TMPDIR="$1" "$0" -- wc -c > "$2/wc.out" 2> "$2/wc.err"
				echo "wc code $?"
				cat "$2/input" | TMPDIR="$1" "$0" --fast-delay 1ms -- sh -c '
					sha256sum | cut -d" " -f1 > "$0/sum.$RETRY_ATTEMPT"; exit 3' "$2/sums" 2> "$2/err"
				echo "code $?"`, tmp, dir)

			assert.Contains(t, out, "wc code 0")
			wc, err := os.ReadFile(filepath.Join(dir, "wc.out"))
			require.NoError(t, err)
			assert.Equal(t, strconv.Itoa(len(input)), strings.TrimSpace(string(wc)), "the attempt got every byte")
			wcErr, _ := os.ReadFile(filepath.Join(dir, "wc.err"))
			assert.Empty(t, string(wcErr))

			assert.Contains(t, out, "code 3")
			stderr, err := os.ReadFile(filepath.Join(dir, "err"))
			require.NoError(t, err)
			assertRefusedOnce(t, result{code: 3, stderr: string(stderr)}, sums, input, tc.why)
		})
	}
}

func TestStdinPastStdinMaxReachesTheAttemptWholeAndIsNotRetried(t *testing.T) {
	t.Parallel()
	input := randomInput(3 << 20)
	r := retryIn(t, bytes.NewReader(input), nil, "--stdin-max", "1MiB", "--", "wc", "-c")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, strconv.Itoa(len(input)), strings.TrimSpace(r.stdout), "the attempt got every byte")
	assert.Empty(t, r.stderr)

	dir := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.json")
	r = retryIn(t, bytes.NewReader(input), nil, append([]string{"-q", "--stdin-max", "1MiB", "--fast-delay", "1ms",
		"--report", report, "--"}, sumsCommand(dir)...)...)
	assertRefusedOnce(t, r, dir, input, "stdin was 3 MiB, past --stdin-max 1 MiB, and can no longer be replayed: pass a file (< file) or raise --stdin-max")

	var doc struct {
		Outcome  string `json:"outcome"`
		ExitCode int    `json:"exit_code"`
		Attempts []struct {
			WaitMS *int64 `json:"wait_ms"`
		} `json:"attempts"`
	}
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "stdin-unreplayable", doc.Outcome)
	assert.Equal(t, 3, doc.ExitCode)
	require.Len(t, doc.Attempts, 1)
	assert.Nil(t, doc.Attempts[0].WaitMS, "no wait follows")

	// The JSON log names the same ending.
	dir = t.TempDir()
	r = retryIn(t, bytes.NewReader(input), nil, append([]string{"--log-format", "json", "--stdin-max", "1MiB", "--"},
		sumsCommand(dir)...)...)
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stderr, `"type":"summary"`)
	assert.Contains(t, r.stderr, `"outcome":"stdin-unreplayable"`)
}

func TestStdinUnderTheCapOrReadOnlyInPartIsStillReplayed(t *testing.T) {
	t.Parallel()
	missing := "TMPDIR=" + filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name  string
		input []byte
		env   []string
		args  []string
	}{
		{"a pipe smaller than memory, with no TMPDIR", randomInput(1 << 20), []string{missing}, nil},
		{"a pipe of exactly --stdin-max", randomInput(2 << 20), nil, []string{"--stdin-max", "2MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append(append([]string{"-n", "3", "--fast-delay", "1ms"}, tc.args...), "--")
			r := retryIn(t, bytes.NewReader(tc.input), tc.env, append(args, sumsCommand(dir)...)...)
			assert.Equal(t, 3, r.code, r.stderr)
			want := sha(tc.input)
			assert.Equal(t, map[int]string{1: want, 2: want, 3: want}, sums(t, dir), "every attempt read the whole input")
			assert.Contains(t, r.stderr, "attempts exhausted")
		})
	}

	// An attempt that reads only the start needs only the start recorded.
	input := randomInput(4 << 20)
	r := retryIn(t, bytes.NewReader(input), nil, "--stdin-max", "1MiB", "--fast-delay", "1ms", "--",
		"sh", "-c", `head -c 1000 | od -An -tx1 | head -1; [ "$RETRY_ATTEMPT" = 2 ]`)
	assert.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, lines[0], lines[1], "the second attempt read the same start")
}

func TestRegularFileStdinLargerThanTheCapIsRewoundWithoutATemporaryDirectory(t *testing.T) {
	t.Parallel()
	input := randomInput(12 << 20)
	path := filepath.Join(t.TempDir(), "input")
	require.NoError(t, os.WriteFile(path, input, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	dir := t.TempDir()
	r := retryIn(t, f, []string{"TMPDIR=" + filepath.Join(t.TempDir(), "missing")},
		append([]string{"-n", "2", "--stdin-max", "1MiB", "--fast-delay", "1ms", "--"}, sumsCommand(dir)...)...)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Equal(t, map[int]string{1: sha(input), 2: sha(input)}, sums(t, dir), "a file is rewound, never copied or capped")
}

func TestTheLastAttemptRecordsNoStdin(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here to read retry's peak memory from")
	}
	input := randomInput(20 << 20)
	// peak runs retry with -n attempts and returns its peak resident
	// memory in KiB, as the attempt reads it from /proc once it has read
	// all of its input.
	peak := func(attempts string) int {
		dir := t.TempDir()
		r := retryIn(t, bytes.NewReader(input), nil, "-n", attempts, "--stdin-max", "9MiB", "--", "sh", "-c",
			`sha256sum | cut -d" " -f1 > "$0/sum.1"; grep VmHWM /proc/$PPID/status > "$0/hwm"; exit 3`, dir)
		assert.Equal(t, 3, r.code, r.stderr)
		assert.Equal(t, sha(input), sums(t, dir)[1], "the first attempt read the whole input")
		data, err := os.ReadFile(filepath.Join(dir, "hwm"))
		require.NoError(t, err)
		fields := strings.Fields(string(data)) // VmHWM: 12345 kB
		require.Len(t, fields, 3, "%q", data)
		kib, err := strconv.Atoi(fields[1])
		require.NoError(t, err)
		return kib
	}
	// -n 2 keeps up to 8 MiB in memory for the retry; -n 1 keeps nothing.
	one, two := peak("1"), peak("2")
	t.Logf("peak RSS: -n 1 %d KiB, -n 2 %d KiB", one, two)
	assert.Greater(t, two-one, 6<<10, "-n 1 recorded nothing")
}
