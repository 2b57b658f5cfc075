package main

// End-to-end: the quick mode against the real retry binary, built once in
// TestMain, with real curl (or the fallback client) processes. The checks
// are counts and invariants, never timings, so a slow machine only makes
// the test slower.

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/slowtest"
	"retry/internal/testbin"
)

// retryBin is the retry binary under test, built by TestMain.
var retryBin string

func TestMain(m *testing.M) { testbin.Main(&retryBin, m.Run) }

// quickRun runs the herd in quick mode with args added and returns its one
// scenario's result, its policies' runs by name and its stdout.
func quickRun(t *testing.T, args ...string) (scenarioResult, map[string]policyRun, string) {
	t.Helper()
	slowtest.Only(t, "runs real processes for tens of seconds")
	out := t.TempDir()
	o, err := parseOptions(append([]string{"-retry", retryBin, "-quick", "-out", out}, args...), io.Discard)
	require.NoError(t, err)
	// Far beyond the time the run takes; only a hang reaches it.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	results, err := run(ctx, o, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Len(t, results, 1)
	t.Logf("herd %s:\n%s", strings.Join(args, " "), stdout.String())
	runs := map[string]policyRun{}
	for _, pr := range results[0].Runs {
		runs[pr.Policy.Name] = pr
	}
	return results[0], runs, stdout.String()
}

func TestQuickHerdAgainstTheRealRetry(t *testing.T) {
	r, runs, stdout := quickRun(t)
	out := filepath.Dir(r.CSV)
	require.Len(t, runs, len(policies()), "every policy has a row, run or not")
	for _, name := range []string{"naive", "fixed-1s", "exp-nojitter", "full-jitter", "retry-defaults"} {
		require.True(t, runs[name].Available, "%s runs with every build", name)
	}
	help, err := retryHelp(t.Context(), retryBin)
	require.NoError(t, err)
	assert.Equal(t, strings.Contains(help, "--breaker"), runs["retry-breaker"].Available,
		"the breaker policy runs exactly when retry --help lists --breaker")

	t.Run("the server counted every request", func(t *testing.T) {
		for _, pr := range r.Runs {
			if !pr.Available {
				continue
			}
			perClient := make([]int, len(pr.Clients))
			for _, e := range pr.Events {
				require.True(t, e.Client >= 0 && e.Client < len(pr.Clients), "%s: a request from an unknown client %d", pr.Policy.Name, e.Client)
				perClient[e.Client]++
			}
			for i, c := range pr.Clients {
				assert.Equal(t, c.Attempts, perClient[i],
					"%s: client %d reported %d attempts, the server saw %d; its stderr ends %q", pr.Policy.Name, i, c.Attempts, perClient[i], c.Tail)
				assert.False(t, c.Killed, "%s: client %d outlived its deadline", pr.Policy.Name, i)
			}
			assert.Positive(t, len(pr.Events), pr.Policy.Name)
		}
	})

	t.Run("a naive client that gives up has made exactly 5 requests", func(t *testing.T) {
		naive := runs["naive"]
		for i, c := range naive.Clients {
			if c.ExitCode != 0 {
				assert.Equal(t, 5, c.Attempts, "client %d", i)
			}
			assert.LessOrEqual(t, c.Attempts, 5, "client %d", i)
		}
	})

	t.Run("retry's defaults never exceed 5 attempts per client", func(t *testing.T) {
		defaults := runs["retry-defaults"]
		assert.LessOrEqual(t, defaults.Summary.AttemptsMax, 5)
		for i, c := range defaults.Clients {
			assert.LessOrEqual(t, c.Attempts, 5, "client %d by its own count", i)
		}
	})

	t.Run("patient clients with the breaker all finish, sending little in the outage", func(t *testing.T) {
		wait := runs["retry-breaker-wait"]
		require.True(t, wait.Available)
		s := wait.Summary
		// Generous bounds: the quick timeline is short and a loaded
		// machine bends it; docs/herd.md has the full-size figures.
		assert.Zero(t, s.GaveUp, "exit codes %v", s.ExitCodes)
		assert.Equal(t, s.OutageClients, s.Recovered, "every client caught in the outage succeeded after it")
		assert.LessOrEqual(t, s.OutageMean, 2.5, "requests per client during the outage")
		assert.Less(t, s.AttemptsMean, runs["retry-defaults"].Summary.AttemptsMean, "fewer requests than the defaults")
	})

	t.Run("the SVG parses as XML", func(t *testing.T) {
		assert.Equal(t, filepath.Join(out, "herd-outage10s-quick.svg"), r.SVG)
		doc, err := os.ReadFile(r.SVG)
		require.NoError(t, err)
		requireXML(t, doc)
	})

	t.Run("the CSV has the expected header and every request", func(t *testing.T) {
		assert.Equal(t, filepath.Join(out, "herd-outage10s-quick.csv"), r.CSV)
		f, err := os.Open(r.CSV)
		require.NoError(t, err)
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		require.NotEmpty(t, rows)
		assert.Equal(t, []string{"time_ms", "policy", "requests", "successes", "503s"}, rows[0])
		sums := map[string]int{}
		for _, row := range rows[1:] {
			n, err := strconv.Atoi(row[2])
			require.NoError(t, err)
			sums[row[1]] += n
		}
		for _, pr := range r.Runs {
			if pr.Available {
				assert.Equal(t, len(pr.Events), sums[pr.Policy.Name], pr.Policy.Name)
			}
		}
	})

	t.Run("the table has a row per policy", func(t *testing.T) {
		for _, p := range policies() {
			assert.Contains(t, stdout, "| "+p.Label+" |")
		}
	})
}

// overloaded is the median time between a naive client's attempts (start
// curl, make a request), or the lateness of a launch, beyond which the
// machine is too busy for the quick 4s outage to hold the naive loop's
// five attempts.
const overloaded = 700 * time.Millisecond

func TestNaiveLoopHitsTheOutageHarderThanRetrysDefaults(t *testing.T) {
	// Starting curl costs tens of milliseconds of CPU on a small VM, so
	// naive loops running at once are CPU-bound and their "immediate"
	// attempts come hundreds of milliseconds apart: 20 of them need some
	// 5 CPU-seconds. With 10 clients the 4s outage of the quick outage60s
	// holds all five naive attempts, while the defaults' two slow waits
	// (up to 2s and 4s) push the last attempts of nearly every client
	// past it; all 8 clients caught fitting five attempts in has odds
	// below 1 in 1000. The 2s outage of the default quick run holds about
	// three attempts of each, too few to tell them apart.
	r, runs, _ := quickRun(t, "-scenario", "outage60s", "-n", "10", "-spread", "1s", "-policies", "naive,retry-defaults")
	naive, defaults := runs["naive"].Summary, runs["retry-defaults"].Summary
	for _, s := range []Summary{naive, defaults} {
		if s.GapP50 > overloaded || s.LaunchLate > overloaded {
			t.Skipf("machine too loaded to tell them apart: a naive attempt takes %v, launches up to %v late (load average %s)",
				naive.GapP50, s.LaunchLate, r.LoadAfter)
		}
	}
	require.Positive(t, naive.OutageClients, "some naive clients met the outage")
	require.Positive(t, defaults.OutageClients, "some clients with the defaults met the outage")
	// Compare per client caught in the outage, not in total: how many
	// clients start before the outage begins depends on how fast the
	// machine launches them, so one more client caught (9 against 8 in
	// one loaded CI run) can outweigh the defaults' fewer attempts each.
	assert.Greater(t, naive.OutageMean, defaults.OutageMean, "per client caught in the outage")
	assert.LessOrEqual(t, defaults.AttemptsMax, 5)
}
