package cmd

// Runs of Main from argv to exit code, lines and report, with a
// fakeStarter in place of processes and the waits in virtual time
// (testing/synctest). These tests do not run in parallel: see bubbleReady.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/exitcodes"
)

// inBubble runs f in a synctest bubble, where the waits of a run take
// no real time and time.Now moves only by them.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	bubbleReady()
	synctest.Test(t, f)
}

func TestExitCodeAndLinesOfEachWayARunEnds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		script   []fakeAttempt
		code     int
		attempts int
		lines    []string
	}{
		{
			name: "success at once says nothing", script: []fakeAttempt{{stdout: "hello\n"}},
			code: 0, attempts: 1,
		},
		{
			name: "transient failures then success", args: []string{"--seed", "1"},
			script: []fakeAttempt{exits(1), exits(1), exits(0)}, code: 0, attempts: 3,
			lines: []string{
				"retry: attempt 1/5 failed: exit 1 (transient); retrying in 50ms (fast phase)",
				"retry: attempt 2/5 failed: exit 1 (transient); retrying in 10ms (fast phase)",
				"retry: prog succeeded on attempt 3 after 60ms",
			},
		},
		{
			name: "giving up exits with the last attempt's own code", args: []string{"-n", "3", "--seed", "1"},
			script: []fakeAttempt{exits(11), exits(12), exits(13)}, code: 13, attempts: 3,
			lines: []string{
				"retry: attempt 1/3 failed: exit 11 (transient); retrying in 50ms (fast phase)",
				"retry: attempt 2/3 failed: exit 12 (transient); retrying in 10ms (fast phase)",
				"retry: giving up on prog after 3 attempts in 60ms: attempts exhausted; last error: exit 13 (transient)",
			},
		},
		{
			name: "a usage error of the command is terminal", script: []fakeAttempt{exits(64)},
			code: 64, attempts: 1,
			lines: []string{"retry: giving up on prog after 1 attempt in 0s: terminal failure; last error: exit 64 (terminal: sysexits EX_USAGE)"},
		},
		{
			name: "a program not found makes one attempt and exits 127", script: []fakeAttempt{{start: exitcodes.ProgramMissing}},
			code: 127, attempts: 1,
			lines: []string{`retry: giving up on prog after 1 attempt in 0s: terminal failure; last error: "prog": executable file not found in $PATH (exit 127, terminal)`},
		},
		{
			name: "a program that cannot be executed makes one attempt and exits 126", script: []fakeAttempt{{start: exitcodes.ProgramNotExecutable}},
			code: 126, attempts: 1,
			lines: []string{`retry: giving up on prog after 1 attempt in 0s: terminal failure; last error: "prog": permission denied (exit 126, terminal)`},
		},
		{
			name: "a crash is terminal and exits 128+n", script: []fakeAttempt{{signal: syscall.SIGSEGV}},
			code: 139, attempts: 1,
		},
		{
			name: "SIGTERM from elsewhere is transient", args: []string{"-n", "2"},
			script: []fakeAttempt{{signal: syscall.SIGTERM}}, code: 143, attempts: 2,
		},
		{
			name: "EX_TEMPFAIL is retried", args: []string{"-n", "2"},
			script: []fakeAttempt{exits(75)}, code: 75, attempts: 2,
		},
		{
			name: "an attempt that exits 127 itself is terminal", args: []string{"-n", "2"},
			script: []fakeAttempt{exits(127)}, code: 127, attempts: 1,
		},
		{
			name: "the deadline stops a running attempt with 124", args: []string{"-d", "3s", "--seed", "1"},
			script: []fakeAttempt{{code: 1, takes: 2 * time.Second}}, code: 124, attempts: 2,
		},
		{
			name: "a timeout stops each attempt and the last one's exits 124", args: []string{"-n", "2", "-t", "1s", "--seed", "1"},
			script: []fakeAttempt{{takes: time.Hour}}, code: 124, attempts: 2,
			lines: []string{
				"retry: attempt 1/2 failed: timed out after 1s (transient); retrying in 50ms (fast phase)",
				"retry: giving up on prog after 2 attempts in 2.05s: attempts exhausted; last error: timed out after 1s (transient)",
			},
		},
		{
			name: "quiet keeps only the give-up line", args: []string{"-q", "-n", "3"},
			script: []fakeAttempt{exits(4)}, code: 4, attempts: 3,
		},
		{
			name: "quiet success says nothing", args: []string{"-q"},
			script: []fakeAttempt{exits(1), exits(0)}, code: 0, attempts: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := fake(tc.script...)
				start := time.Now()
				r := runFaked(t, f, nil, append(tc.args, "--", "prog")...)
				assert.Equal(t, tc.code, r.code, r.stderr)
				assert.Len(t, f.commands(), tc.attempts, r.stderr)
				for _, a := range tc.script {
					if a.stdout != "" {
						assert.Equal(t, a.stdout, r.stdout, "the attempt's stdout passes through")
					}
				}
				switch {
				case tc.lines != nil:
					assert.Equal(t, tc.lines, r.lines())
				case tc.code == 0 && !slices.Contains(tc.args, "-q"):
					if tc.attempts == 1 {
						assert.Empty(t, r.stderr)
					}
				case tc.code == 0:
					assert.Empty(t, r.stderr, "quiet success says nothing")
				default:
					lines := r.lines()
					want := "retry: giving up on prog after " + strconv.Itoa(tc.attempts) + " attempt"
					assert.Contains(t, lines[len(lines)-1], want)
					if slices.Contains(tc.args, "-q") {
						assert.Len(t, lines, 1, "only the give-up line")
					}
				}
				assert.Less(t, time.Since(start), time.Minute, "virtual time: the waits and attempts add up, nothing more")
			})
		})
	}
}

// The waits between attempts are the runtime's timers, so in a bubble
// they take virtual time, exactly what the lines say.
func TestWaitsAreExactlyWhatTheLinesSay(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := fake(exits(1))
		start := time.Now()
		r := runFaked(t, f, nil, "--seed", "7", "--", "prog")
		elapsed := time.Since(start)
		require.Equal(t, 1, r.code)
		var total time.Duration
		for _, l := range r.lines()[:4] {
			total += waitOf(t, l)
		}
		assert.Greater(t, total, 2*time.Second, "two slow-phase waits")
		assert.InDelta(t, total, elapsed, float64(10*time.Millisecond), "the run took its waits, rounded as the lines print them")
	})
}

// The child learns its attempt, the limit, one idempotency key for the
// whole run and the time left; --env and --cwd reach every attempt.
func TestEveryAttemptGetsItsNumberTheKeyTheTimeLeftEnvAndDir(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		dir := t.TempDir()
		f := fake(exits(1))
		r := runFaked(t, f, []string{"SETTWICE=inherited", "KEEP=me"},
			"-n", "3", "-d", "1m", "--seed", "3", "--env", "SETTWICE=from --env", "--env", "NEW=a=b", "--cwd", dir, "--", "prog", "arg")
		require.Equal(t, 1, r.code, r.stderr)
		got := f.commands()
		require.Len(t, got, 3)
		key := f.envOf(t, 0, "RETRY_IDEMPOTENCY_KEY")
		assert.Regexp(t, `^[A-Z2-7]{26}$`, key)
		left := time.Minute
		for i, c := range got {
			assert.Equal(t, []string{"prog", "arg"}, c.Args)
			assert.Equal(t, dir, c.Dir, "--cwd")
			assert.Equal(t, strconv.Itoa(i+1), f.envOf(t, i, "RETRY_ATTEMPT"))
			assert.Equal(t, "3", f.envOf(t, i, "RETRY_MAX_ATTEMPTS"))
			assert.Equal(t, key, f.envOf(t, i, "RETRY_IDEMPOTENCY_KEY"), "one key for all attempts")
			assert.Equal(t, "from --env", f.envOf(t, i, "SETTWICE"), "--env wins over the environment")
			assert.Equal(t, "a=b", f.envOf(t, i, "NEW"))
			assert.Equal(t, "me", f.envOf(t, i, "KEEP"))
			assert.Equal(t, "/nonexistent", f.envOf(t, i, "PATH"))
			ms, err := strconv.ParseInt(f.envOf(t, i, "RETRY_DEADLINE_MS"), 10, 64)
			require.NoError(t, err)
			if i > 0 {
				left -= waitOf(t, r.lines()[i-1])
			}
			assert.InDelta(t, left.Milliseconds(), ms, 1, "attempt %d: the time left, the waits taken off", i+1)
		}

		again := fake(exits(0))
		runFaked(t, again, nil, "--", "prog")
		assert.NotEqual(t, key, again.envOf(t, 0, "RETRY_IDEMPOTENCY_KEY"), "no two runs share a key")
		assert.Empty(t, again.envOf(t, 0, "RETRY_DEADLINE_MS"), "no deadline, no time left")
		assert.Empty(t, again.commands()[0].Dir, "no --cwd: ours")

		kept := fake(exits(0))
		runFaked(t, kept, []string{"RETRY_IDEMPOTENCY_KEY=from-caller"}, "--", "prog")
		assert.Equal(t, "from-caller", kept.envOf(t, 0, "RETRY_IDEMPOTENCY_KEY"), "a key already in the environment is kept")
	})
}

// waitOf returns the wait a "retrying in D" line names.
func waitOf(t *testing.T, line string) time.Duration {
	t.Helper()
	_, rest, ok := strings.Cut(line, "retrying in ")
	require.True(t, ok, "no wait in %q", line)
	wait, _, _ := strings.Cut(rest, " ")
	d, err := time.ParseDuration(wait)
	require.NoError(t, err, line)
	return d
}

// --nested single makes one attempt inside another retry; warn says
// that attempts multiply.
func TestNestedRunsWarnOrMakeOneAttempt(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		outer := []string{"RETRY_ATTEMPT=2"}
		f := fake(exits(1))
		r := runFaked(t, f, outer, "-n", "3", "-q", "--", "prog")
		assert.Equal(t, 1, r.code)
		assert.Len(t, f.commands(), 3)
		assert.Equal(t, "retry: warning: running inside another retry (its attempt 2): attempts multiply; use --nested single to try once here", r.lines()[0])

		f = fake(exits(1))
		r = runFaked(t, f, outer, "-n", "3", "--nested", "single", "--", "prog")
		assert.Equal(t, 1, r.code)
		assert.Len(t, f.commands(), 1)
		assert.NotContains(t, r.stderr, "warning")

		f = fake(exits(1))
		r = runFaked(t, f, outer, "-n", "2", "--nested", "allow", "-q", "--", "prog")
		assert.Len(t, f.commands(), 2)
		assert.NotContains(t, r.stderr, "warning")
	})
}

// The --on-retry hook runs before each retry, after the wait, with the
// last attempt's ending in its environment.
func TestHookRunsBeforeEachRetryWithTheLastEnding(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := fake(exits(7), exits(0), exits(0))
		r := runFaked(t, f, nil, "--on-retry", "echo again", "--", "prog")
		require.Equal(t, 0, r.code, r.stderr)
		got := f.commands()
		require.Len(t, got, 3, "attempt, hook, attempt")
		assert.Equal(t, []string{"prog"}, got[0].Args)
		assert.Equal(t, []string{"/bin/sh", "-c", "echo again"}, got[1].Args)
		assert.Equal(t, "2", lookupEnv(got[1].Env, "RETRY_ATTEMPT"), "the hook comes before attempt 2")
		assert.Equal(t, "7", lookupEnv(got[1].Env, "RETRY_LAST_EXIT"))
		assert.Equal(t, "transient", lookupEnv(got[1].Env, "RETRY_LAST_CLASS"))
		assert.Equal(t, []string{"prog"}, got[2].Args)

		f = fake(exits(7), exits(3))
		r = runFaked(t, f, nil, "--on-retry", "check", "--on-retry-must-succeed", "--", "prog")
		assert.Equal(t, 7, r.code, "a failed hook stops the run with the attempt's own code: %s", r.stderr)
		assert.Len(t, f.commands(), 2, "no attempt after the failed hook")
	})
}

// A report file says how the run went, attempt by attempt, with the
// waits and the elapsed time the run really took.
func TestReportFileRecordsEachAttemptAndItsWait(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "report.json")
		f := fake(fakeAttempt{code: 1, stderr: "connection refused\n", takes: 300 * time.Millisecond}, exits(64))
		r := runFaked(t, f, nil, "--report", path, "--seed", "1", "--", "prog")
		require.Equal(t, 64, r.code, r.stderr)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var rep struct {
			Outcome   string  `json:"outcome"`
			ExitCode  int     `json:"exit_code"`
			ElapsedMS int64   `json:"elapsed_ms"`
			LastError *string `json:"last_error"`
			Command   struct {
				Program string   `json:"program"`
				Argv    []string `json:"argv"`
			} `json:"command"`
			Attempts []struct {
				Attempt    int     `json:"attempt"`
				DurationMS int64   `json:"duration_ms"`
				ExitCode   int     `json:"exit_code"`
				Class      string  `json:"class"`
				Rule       *string `json:"rule"`
				WaitMS     *int64  `json:"wait_ms"`
				WaitPhase  *string `json:"wait_phase"`
			} `json:"attempts"`
		}
		require.NoError(t, json.Unmarshal(data, &rep), string(data))
		assert.Equal(t, "terminal", rep.Outcome)
		assert.Equal(t, 64, rep.ExitCode)
		assert.Equal(t, "prog", rep.Command.Program)
		assert.Nil(t, rep.Command.Argv, "argv only with -v")
		require.NotNil(t, rep.LastError)
		assert.Equal(t, "exit 64 (terminal: sysexits EX_USAGE)", *rep.LastError)
		require.Len(t, rep.Attempts, 2)
		first, second := rep.Attempts[0], rep.Attempts[1]
		assert.Equal(t, int64(300), first.DurationMS)
		assert.Equal(t, "transient", first.Class)
		require.NotNil(t, first.WaitMS)
		require.NotNil(t, first.WaitPhase)
		assert.Equal(t, "fast", *first.WaitPhase)
		assert.Equal(t, "terminal", second.Class)
		assert.Nil(t, second.WaitMS, "no wait after the last attempt")
		assert.Equal(t, 300+*first.WaitMS, rep.ElapsedMS, "the attempt and the wait, in virtual time")
		assert.Contains(t, r.stderr, "connection refused\n", "the attempt's stderr passes through")
	})
}

// Verbose shows the full command line; without it, only the program,
// because argv often carries secrets.
func TestArgvIsShownOnlyWithVerbose(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		args := []string{"-n", "2", "--", "prog", "token=hunter2"}
		r := runFaked(t, fake(exits(1)), nil, args...)
		assert.NotContains(t, r.stderr, "hunter2")

		r = runFaked(t, fake(exits(1)), nil, append([]string{"-v"}, args...)...)
		assert.Contains(t, r.stderr, "retry: attempt 1/2: prog token=hunter2")
		assert.Regexp(t, `attempt 1/2 failed after \S+: exit 1`, r.stderr)
	})
}

// A circuit opened by failing runs stops the next run before it starts
// anything: exit 75, one line; a fallback then runs instead, and its code
// is retry's.
func TestOpenCircuitExits75OrRunsTheFallback(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		state := t.TempDir()
		failing := []string{"--breaker", "db", "--state", state, "--breaker-min-span", "0", "-n", "3", "--"}
		f := fake(exits(7))
		r := runFaked(t, f, nil, append(failing, "prog")...)
		assert.Equal(t, 7, r.code, r.stderr)
		assert.Len(t, f.commands(), 3)
		r = runFaked(t, f, nil, append(failing, "prog")...)
		assert.Len(t, f.commands(), 5, "the fifth failure opened the circuit: no third attempt")
		assert.Contains(t, r.stderr, `circuit "db" is open (5 of 5 attempts failed in the last 1m0s)`)

		f = fake(exits(0))
		r = runFaked(t, f, nil, "--breaker", "db", "--state", state, "--", "prog")
		assert.Equal(t, 75, r.code, "EX_TEMPFAIL while the circuit is open")
		assert.Empty(t, f.commands(), "the command is not run at all")
		assert.Regexp(t, `^retry: circuit "db" is open \(5 of 5 attempts failed in the last 1m0s\); next probe in \d+s\n$`, r.stderr)

		f = fake(exits(3))
		r = runFaked(t, f, nil, "--breaker", "db", "--state", state, "--fallback", "echo from cache; exit 3", "--", "prog")
		assert.Equal(t, 3, r.code, "the fallback's exit code becomes retry's")
		require.Len(t, f.commands(), 1, "only the fallback ran")
		assert.Equal(t, []string{"/bin/sh", "-c", "echo from cache; exit 3"}, f.commands()[0].Args)
	})
}

// When retry gives up, --fallback runs once, and its exit code is retry's.
func TestFallbackRunsOnceAfterGivingUp(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := fake(exits(1), exits(1), exits(0))
		r := runFaked(t, f, nil, "-n", "2", "--fallback", "use-cache", "--", "prog")
		assert.Equal(t, 0, r.code, r.stderr)
		got := f.commands()
		require.Len(t, got, 3)
		assert.Equal(t, []string{"/bin/sh", "-c", "use-cache"}, got[2].Args)
	})
}
