package main

// End-to-end tests of stdin replay at limits only Go sets up: a TMPDIR
// that is a read-only mount or a full tmpfs (in a mount namespace), and
// retry's own peak memory. The attempt reading the stream must get all of
// it, and no later attempt may be handed a cut one. The other limits (no
// TMPDIR, a file, a file size limit, --stdin-max) are scripts in
// testdata/script.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/resetsock"
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

func TestSuccessOnAStdinCutByAResetExits74AndSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runRetry(t, dir, resetsock.Stdin(t, "hello\n"), nil, "-q", "--report", "report.json", "--fallback", "touch fell-back", "--", "sh", "-c", "cat > got")
	assert.Equal(t, 74, r.code, "not 0: the command saw its input end where reading failed: %s", r.stderr)
	assert.Equal(t, []string{"retry: sh succeeded on attempt 1, but on a cut input: " +
		"reading stdin failed after 6 bytes (read /dev/stdin: connection reset by peer), so the input ended there; its result covers only what came before"}, r.lines(t))
	report, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	assert.Contains(t, string(report), `"outcome": "stdin-read-failed",`)
	assert.Contains(t, string(report), `"exit_code": 74,`)
	assert.Contains(t, string(report), `"last_error": "reading stdin failed after 6 bytes (read /dev/stdin: connection reset by peer), so the input ended there",`)
	assert.NoFileExists(t, filepath.Join(dir, "fell-back"), "the command did its work: there is no failure to fall back from")
}

func TestDirectoryAsStdinReachesEveryAttemptAsItIs(t *testing.T) {
	t.Parallel()
	d, err := os.Open(t.TempDir())
	require.NoError(t, err)
	defer d.Close()
	r := runRetry(t, "", d, nil, "-n", "2", "--fast-delay", "1ms", "--", "cat")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 2, strings.Count(r.stderr, "Is a directory"), "cat says so on each attempt, as without retry: %s", r.stderr)
}
