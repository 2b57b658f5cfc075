package main

// End-to-end tests of the state shared across runs: circuit breaker, retry
// budgets, fallback; and of the machine outputs: report file, metrics file,
// JSON log, GitHub Actions annotations, countdown.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/slowtest"
)

func TestCircuitOpensAcrossRunsAndStopsTheTraffic(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	// --breaker-min-span 0: these failures come within a second, where a
	// real outage goes on failing for longer (see the blip test below).
	failing := []string{"--breaker", "db", "--state", state, "--breaker-min-span", "0", "-n", "3", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms", "--", "sh", "-c", "exit 7"}
	r := retry(t, nil, failing...)
	assert.Equal(t, 7, r.code)
	r = retry(t, nil, failing...)
	assert.Contains(t, r.stderr, `circuit "db" is open (5 of 5 attempts failed in the last 1m0s); next probe in`,
		"the fifth failure opened the circuit: the second run stops instead of its third attempt")

	marker := filepath.Join(t.TempDir(), "ran")
	r = retry(t, nil, "--breaker", "db", "--state", state, "--", "touch", marker)
	assert.Equal(t, 75, r.code, "EX_TEMPFAIL while the circuit is open")
	assert.NoFileExists(t, marker, "the command is not run at all")
	assert.Regexp(t, `^retry: circuit "db" is open \(5 of 5 attempts failed in the last 1m0s\); next probe in \d+s\n$`, r.stderr)

	r = retry(t, nil, "--breaker", "db", "--state", state, "--fallback", "echo from cache; exit 3", "--", "touch", marker)
	assert.Equal(t, 3, r.code, "the fallback's exit code becomes retry's")
	assert.Equal(t, "from cache\n", r.stdout)

	r = retry(t, nil, "breaker", "status", "db", "--state", state, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var status map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &status))
	assert.Equal(t, "open", status["state"])
	assert.EqualValues(t, 5, status["failures"])

	r = retry(t, nil, "breaker", "list", "--state", state)
	assert.Regexp(t, `(?m)^db\s+open\s+5/5`, r.stdout)

	r = retry(t, nil, "breaker", "reset", "db", "--state", state)
	assert.Equal(t, 0, r.code)
	r = retry(t, nil, "--breaker", "db", "--state", state, "--", "touch", marker)
	assert.Equal(t, 0, r.code, "closed again after reset")
	assert.FileExists(t, marker)
}

func TestRunBudgetIsSharedByEveryRetryOfOneRun(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	args := []string{"--state", state, "--run-budget", "2", "-n", "5", "--fast-delay", "1ms", "--", "sh", "-c", "exit 1"}
	env := []string{"RETRY_RUN_ID=job-42"}
	r := retry(t, env, args...)
	assert.Contains(t, r.stderr, "giving up on sh after 3 attempts")
	assert.Contains(t, r.stderr, "run retry budget (2) spent")
	r = retry(t, env, args...)
	assert.Contains(t, r.stderr, "giving up on sh after 1 attempt", "the second step of the same run has no retries left")
	r = retry(t, []string{"RETRY_RUN_ID=job-43"}, args...)
	assert.Contains(t, r.stderr, "after 3 attempts", "another run has its own budget")
}

func TestBrokenStateStoreDegradesToNoBreakerWithAWarning(t *testing.T) {
	t.Parallel()
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, nil, 0o600))
	r := retry(t, nil, "--breaker", "k", "--state", notADir, "--", "echo", "ran")
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "ran\n", r.stdout, "the command still runs")
	assert.Contains(t, r.stderr, "retry: warning: state store unavailable")

	start := time.Now()
	r = retry(t, nil, "--breaker", "k", "--state", "redis://127.0.0.1:1/0", "--", "echo", "ran")
	assert.Equal(t, "ran\n", r.stdout)
	assert.Contains(t, r.stderr, "running without the breaker this run")
	assert.Less(t, time.Since(start), 10*time.Second, "an unreachable Redis never makes retry hang")
}

func TestBreakerKeepsAnOutageFromBeingHammered(t *testing.T) {
	slowtest.Only(t, "an outage of several seconds")
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	// A dependency that fails for 10 s; 50 runs start over those 10 s.
	var hits atomic.Int64
	var healthyAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if time.Now().UnixNano() < healthyAt.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	}))
	defer srv.Close()

	measure := func(runs int, outage time.Duration, extra ...string) float64 {
		hits.Store(0)
		healthyAt.Store(time.Now().Add(outage).UnixNano())
		var wg sync.WaitGroup
		for range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := append(append([]string{"-q"}, extra...), "--", "curl", "-fsS", "-o", "/dev/null", srv.URL)
				retry(t, nil, args...)
			}()
			time.Sleep(200 * time.Millisecond) // spreading the runs over the outage, as CI jobs would be
		}
		wg.Wait()
		return float64(hits.Load()) / float64(runs)
	}
	with := measure(50, 10*time.Second, "--breaker", "registry", "--state", t.TempDir())
	t.Logf("attempts per run during a 10s outage: %.2f with --breaker", with)
	assert.LessOrEqual(t, with, 1.5)
	// Without the breaker, a run that meets only the outage makes all its
	// attempts (the outage outlasts these runs, so none meets the recovery).
	without := measure(10, time.Minute)
	t.Logf("attempts per run during the outage: %.2f without --breaker", without)
	assert.Equal(t, 5.0, without)
}

func TestReportAndMetricsFilesDescribeTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reportFile := filepath.Join(dir, "report.json")
	metrics := filepath.Join(dir, "retry.prom")
	args := []string{"-n", "2", "--fast-delay", "1ms", "--report", reportFile, "--metrics-file", metrics, "--name", "fetch", "--", "sh", "-c", "exit 4", "secret"}
	r := retry(t, nil, args...)
	assert.Equal(t, 4, r.code)
	data, err := os.ReadFile(reportFile)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "exhausted", doc["outcome"])
	assert.EqualValues(t, 4, doc["exit_code"])
	assert.Len(t, doc["attempts"], 2)
	assert.NotContains(t, string(data), "secret", "argv only with -v")

	retry(t, nil, args...)
	prom, err := os.ReadFile(metrics)
	require.NoError(t, err)
	assert.Contains(t, string(prom), `retry_attempts_total{name="fetch"} 4`, "counters add up across runs")
	assert.Contains(t, string(prom), `retry_runs_total{name="fetch",outcome="exhausted"} 2`)
}

func TestJSONLogHasOneObjectPerEvent(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "--log-format", "json", "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, r.code)
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
		types = append(types, ev["type"].(string))
	}
	assert.Equal(t, []string{"attempt_start", "attempt_end", "wait", "attempt_start", "attempt_end", "summary"}, types)
}

func TestGitHubActionsGetsWarningsGroupsAndAnError(t *testing.T) {
	t.Parallel()
	r := retry(t, []string{"GITHUB_ACTIONS=true"}, "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "exit 3")
	assert.Regexp(t, `::warning title=retry::attempt 1/2 failed: exit 3 \(transient\); retrying in \S+ \(fast phase\)\n`, r.stderr)
	assert.Contains(t, r.stderr, "::group::retry: attempt 2/2\n")
	assert.Contains(t, r.stderr, "::endgroup::\n")
	assert.Contains(t, r.stderr, "::error title=retry::giving up on sh after 2 attempts")
	assert.NotContains(t, r.stderr, "retry: attempt 1/2 failed", "told once, as a ::warning")
	assert.NotContains(t, r.stderr, "retry: giving up", "told once, as an ::error")

	r = retry(t, []string{"GITHUB_ACTIONS=true"}, "--annotations", "off", "-n", "2", "--fast-delay", "1ms", "--", "sh", "-c", "exit 3")
	assert.NotContains(t, r.stderr, "::")
}

func TestCountdownShowsOnATerminalForLongWaits(t *testing.T) {
	c, _, output, done := ptyRetry(t, "-n", "2", "--fast", "0", "--jitter", "none", "--slow-delay", "2s", "--", "sh", "-c", "exit 1")
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("retry did not exit")
	}
	assert.Equal(t, 1, c.ProcessState.ExitCode())
	out := output()
	failed := strings.Index(out, "retry: attempt 1/2 failed")
	countdown := strings.Index(out, "retry: attempt 2/2 in 2s (slow phase) — Ctrl-C to stop")
	require.True(t, failed >= 0 && countdown >= 0, out)
	assert.Less(t, failed, countdown, "the countdown starts below the attempt's line")
	assert.Contains(t, out, "retry: attempt 2/2 in 1s (slow phase)", "it counts down")
	assert.Contains(t, out, "\r\x1b[Kretry: giving up", "the line is erased before the next line")
}

func TestRecentFailureOfTheKeySkipsTheFastPhase(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	args := []string{"--breaker", "api", "--state", state, "-n", "2", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms", "--", "sh", "-c", "exit 1"}
	r := retry(t, nil, args...)
	assert.Contains(t, r.stderr, "(fast phase)", "a first failure may be a blip")
	r = retry(t, nil, args...)
	assert.Contains(t, r.stderr, "(slow phase)", "a repeat failure is an outage: straight to the slow phase")
	assert.NotContains(t, r.stderr, "(fast phase)")
}

func TestOpenCircuitIsReportedInEveryLogFormat(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	for range 2 {
		retry(t, nil, "--breaker", "k", "--state", state, "--breaker-min-span", "0", "-n", "3", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms", "--", "false")
	}
	r := retry(t, nil, "--log-format", "json", "--breaker", "k", "--state", state, "--", "true")
	assert.Equal(t, 75, r.code)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	require.Len(t, lines, 1, "only JSON on stderr: %q", r.stderr)
	var summary map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &summary))
	assert.Equal(t, "breaker-open", summary["outcome"])

	r = retry(t, []string{"GITHUB_ACTIONS=true"}, "--breaker", "k", "--state", state, "--", "true")
	assert.Contains(t, r.stderr, `::error title=retry::circuit "k" is open`)
	assert.NotContains(t, r.stderr, `retry: circuit "k" is open`, "told once, as an annotation")

	r = retry(t, nil, "--breaker", "k", "--state", state, "--", "true")
	assert.True(t, strings.HasPrefix(r.stderr, `retry: circuit "k" is open`), r.stderr)
}

func TestSubcommandFailuresNameTheSubcommand(t *testing.T) {
	t.Parallel()
	r := retry(t, nil, "breaker", "status")
	assert.Equal(t, 125, r.code)
	assert.Equal(t, "retry: breaker status: accepts 1 arg(s), received 0\n", r.stderr)

	r = retry(t, nil, "breaker", "list", "--state", "redis://127.0.0.1:1/0")
	assert.Equal(t, 125, r.code)
	assert.True(t, strings.HasPrefix(r.stderr, "retry: breaker list: list circuits: "), r.stderr)
}

func TestABlipDoesNotOpenTheCircuit(t *testing.T) {
	t.Parallel()
	// A fleet meeting a blip fails many attempts at once; with a
	// --breaker-min-span the circuit stays closed, so the fleet is not
	// kept away for a cooldown after a 300 ms problem. 50 s here, not the
	// default 3 s that the unit tests cover: three runs took over 3 s on a
	// loaded machine.
	state := t.TempDir()
	for range 3 {
		retry(t, nil, "--breaker", "blip", "--state", state, "--breaker-min-span", "50s", "-n", "3", "--fast-delay", "1ms", "--slow-delay", "1ms", "--slow-max", "1ms", "--", "false")
	}
	r := retry(t, nil, "breaker", "status", "blip", "--state", state, "--json")
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.GreaterOrEqual(t, st["failures"], float64(5), "enough failures to open the circuit, were they spread out")
	assert.Equal(t, "closed", st["state"], "failures within a moment are a blip")
	r = retry(t, nil, "--breaker", "blip", "--state", state, "--", "true")
	assert.Equal(t, 0, r.code)
}

func TestBreakerSubcommandTyposFailWithAHint(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	r := retry(t, nil, "breaker", "rest", "db", "--state", state)
	assert.Equal(t, 125, r.code, "a script must not believe the circuit was reset")
	assert.Equal(t, "retry: breaker: \"rest\": unknown subcommand; did you mean reset?\n", r.stderr)
	assert.Empty(t, r.stdout, "no help text")

	r = retry(t, nil, "breaker", "frobnicate")
	assert.Equal(t, 125, r.code)
	assert.Equal(t, "retry: breaker: \"frobnicate\": unknown subcommand; want list, status or reset\n", r.stderr)

	r = retry(t, nil, "breaker")
	assert.Equal(t, 0, r.code, "no subcommand at all asks for help")
	assert.Contains(t, r.stdout, "Available Commands")
}

func TestStatusOfAKeyWithNoRecordSaysSo(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	r := retry(t, nil, "breaker", "status", "never-used", "--state", state)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "key: never-used\nstate: no record (no run has used this key, or its record expired)\n", r.stdout)
	assert.Equal(t, false, breakerStatus(t, state, "never-used")["recorded"])

	retry(t, nil, "--breaker", "used", "--state", state, "--", "true")
	r = retry(t, nil, "breaker", "status", "used", "--state", state)
	assert.Contains(t, r.stdout, "state: closed\nfailed: 0 of 1 attempts")
	assert.Equal(t, true, breakerStatus(t, state, "used")["recorded"])
}
