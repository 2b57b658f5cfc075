package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/breaker"
	"retry/report"
	"retry/timing"
)

// learnedState returns a state directory in which key has n successful
// runs of duration d.
func learnedState(t *testing.T, key string, n int, d time.Duration) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	store, err := breaker.OpenStore(dir, breaker.Options{Timeout: time.Second})
	require.NoError(t, err)
	defer store.Close()
	for range n {
		require.NoError(t, store.Update(context.Background(), breaker.Timing, key, time.Hour, func(old []byte) ([]byte, error) {
			return timing.Observe(old, key, d, time.Now())
		}))
	}
	return dir
}

// learnedRuns returns how many runs key has learned in the state dir.
func learnedRuns(t *testing.T, dir, key string) int64 {
	t.Helper()
	store, err := breaker.OpenStore(dir, breaker.Options{Timeout: time.Second})
	require.NoError(t, err)
	defer store.Close()
	r, err := loadLearned(context.Background(), store, key)
	require.NoError(t, err)
	return r.Histogram.N
}

// keyHere is the key derived from argv run in the test's directory.
func keyHere(t *testing.T, argv ...string) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	return timing.CommandKey(argv, wd)
}

type limitFacts struct {
	Attempts []struct {
		TimedOut  bool    `json:"timed_out"`
		LimitMS   *int64  `json:"limit_ms"`
		LimitFrom *string `json:"limit_from"`
	} `json:"attempts"`
}

func readLimits(t *testing.T, path string) limitFacts {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var r limitFacts
	require.NoError(t, json.Unmarshal(data, &r))
	return r
}

func TestTimeoutTakesADurationAutoOrAutoWithAFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		d    time.Duration
		auto bool
		str  string
	}{
		{"10s", 10 * time.Second, false, "10s"},
		{"auto", 0, true, "auto"},
		{"auto,10m", 10 * time.Minute, true, "auto,10m0s"},
		{"auto,2.5", 2500 * time.Millisecond, true, "auto,2.5s"},
	} {
		var d time.Duration
		var auto bool
		v := timeoutValue{&d, &auto}
		require.NoError(t, v.Set(tc.in), tc.in)
		assert.Equal(t, tc.d, d, tc.in)
		assert.Equal(t, tc.auto, auto, tc.in)
		assert.Equal(t, tc.str, v.String(), tc.in)
	}
	var d time.Duration
	auto := true
	require.NoError(t, timeoutValue{&d, &auto}.Set("5s"))
	assert.False(t, auto, "a later --timeout D replaces auto")
	for _, bad := range []string{"auto,", "auto,x", "autox", "auto10s", "auto,-1s", "never"} {
		err := timeoutValue{&d, &auto}.Set(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), `--timeout: "`+bad+`"`, bad)
		assert.Contains(t, err.Error(), "auto,10m", bad)
	}
}

func TestTimeoutKeyNeedsTimeoutAuto(t *testing.T) {
	t.Parallel()
	r := runMain(t, nil, "--timeout-key", "fetch", "--", "/bin/true")
	assert.Equal(t, 125, r.code)
	assert.Equal(t, "retry: --timeout-key: \"fetch\": only applies with --timeout auto\n", r.stderr)
}

func TestLearnedLimitIsDoubledAfterEachAttemptItStops(t *testing.T) {
	t.Parallel()
	argv := []string{"/bin/sh", "-c", `case $RETRY_ATTEMPT in 1) exec /bin/sleep 30;; 2) exit 1;; esac`}
	key := keyHere(t, argv...)
	state := learnedState(t, key, 20, 10*time.Millisecond)
	report := filepath.Join(t.TempDir(), "report.json")
	start := time.Now()
	r := runMain(t, nil, append([]string{"--state", state, "--timeout", "auto", "--fast-delay", "1ms", "--fast-max", "1ms", "--report", report, "--"}, argv...)...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Less(t, time.Since(start), 20*time.Second, "the hung attempt was stopped")

	facts := readLimits(t, report)
	require.Len(t, facts.Attempts, 3)
	var limits []int64
	for _, a := range facts.Attempts {
		require.NotNil(t, a.LimitMS)
		require.NotNil(t, a.LimitFrom)
		assert.Equal(t, "learned", *a.LimitFrom)
		limits = append(limits, *a.LimitMS)
	}
	assert.Equal(t, []int64{1000, 2000, 2000}, limits, "the 1s floor, doubled once it stopped attempt 1, and not lowered by a failure that was no timeout")
	assert.True(t, facts.Attempts[0].TimedOut)
	assert.Equal(t, int64(21), learnedRuns(t, state, key), "the success was learned")
}

func TestBeforeTwentyRunsTheFallbackOrNoLimitApplies(t *testing.T) {
	t.Parallel()
	argv := []string{"/bin/true"}
	key := keyHere(t, argv...)
	state := learnedState(t, key, 18, time.Millisecond)
	report := filepath.Join(t.TempDir(), "report.json")

	r := runMain(t, nil, "--state", state, "--timeout", "auto,7s", "--report", report, "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	a := readLimits(t, report).Attempts[0]
	require.NotNil(t, a.LimitMS)
	assert.Equal(t, int64(7000), *a.LimitMS)
	assert.Equal(t, "fallback", *a.LimitFrom)

	r = runMain(t, nil, "--state", state, "--timeout", "auto", "--report", report, "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	a = readLimits(t, report).Attempts[0]
	assert.Nil(t, a.LimitMS, "no fallback: no limit")
	assert.Nil(t, a.LimitFrom)
	assert.Equal(t, int64(20), learnedRuns(t, state, key))

	r = runMain(t, nil, "--state", state, "--timeout", "auto,7s", "--report", report, "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	a = readLimits(t, report).Attempts[0]
	assert.Equal(t, int64(1000), *a.LimitMS, "learned from the 20th run on")
	assert.Equal(t, "learned", *a.LimitFrom)
}

func TestFailuresAreNotLearned(t *testing.T) {
	t.Parallel()
	argv := []string{"/bin/false"}
	key := keyHere(t, argv...)
	state := learnedState(t, key, 3, time.Millisecond)
	r := runMain(t, nil, "--state", state, "--timeout", "auto", "-n", "2", "--fast-delay", "1ms", "--fast-max", "1ms", "--", "/bin/false")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, int64(3), learnedRuns(t, state, key))
}

func TestABrokenStateStoreMeansTheFallbackWithAWarningNeverASkippedCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o600))
	marker := filepath.Join(dir, "ran")
	report := filepath.Join(dir, "report.json")
	r := runMain(t, nil, "--state", notDir, "--timeout", "auto,9s", "--report", report, "--", "/bin/sh", "-c", "echo > "+marker)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, marker)
	assert.Regexp(t, `^retry: warning: state store unavailable \(.*\); no learned timeout this run, the fallback 9s instead\n$`, r.stderr)
	a := readLimits(t, report).Attempts[0]
	assert.Equal(t, int64(9000), *a.LimitMS)
	assert.Equal(t, "fallback", *a.LimitFrom)
}

func TestCorruptLearnedStateStartsOverWithAWarning(t *testing.T) {
	t.Parallel()
	key := keyHere(t, "/bin/true")
	state := learnedState(t, key, 1, time.Millisecond)
	matches, err := filepath.Glob(filepath.Join(state, "time-*.json"))
	require.NoError(t, err)
	require.Len(t, matches, 1)
	require.NoError(t, os.WriteFile(matches[0], []byte("{garbage"), 0o600))
	r := runMain(t, nil, "--state", state, "--timeout", "auto", "--", "/bin/true")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "is unreadable, starting over")
	assert.Equal(t, int64(1), learnedRuns(t, state, key), "overwritten by this run's success")
}

func TestPlanShowsTheLearnedFiguresAndTheLimit(t *testing.T) {
	t.Parallel()
	key := keyHere(t, "/bin/true")
	state := learnedState(t, key, 87, 1400*time.Millisecond)
	r := runMain(t, nil, "plan", "--state", state, "--timeout", "auto", "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	p99 := timing.Upper(timing.Bucket(1400 * time.Millisecond))
	require.Equal(t, 1448*time.Millisecond, p99.Round(time.Millisecond), "the upper bound of 1.4s's bucket")
	assert.Contains(t, r.stdout, "per-attempt timeout: auto, see below")
	assert.Contains(t, r.stdout, "timeout: auto = 3 × p99 1.45s = "+report.Duration(3*p99)+", from 87 runs (key "+key+"), doubled after each attempt it stops; then SIGTERM, SIGKILL 5s later\n")

	r = runMain(t, nil, "plan", "--state", t.TempDir(), "--timeout", "auto,10m", "--timeout-key", "fetch", "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "timeout: auto (--timeout-key fetch): 0 of 20 successful runs learned; until 20, 10m0s (the fallback);")
}

func TestTheDerivedKeyIncludesTheDirectory(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	r := runMain(t, nil, "plan", "--state", t.TempDir(), "--timeout", "auto", "--cwd", other, "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(key "+timing.CommandKey([]string{"/bin/true"}, other)+")")
	assert.NotContains(t, r.stdout, keyHere(t, "/bin/true"))
}

func TestTimingStatusListAndReset(t *testing.T) {
	t.Parallel()
	key := keyHere(t, "/bin/true")
	state := learnedState(t, key, 30, 200*time.Millisecond)

	r := runMain(t, nil, "timing", "status", "--state", state, "--", "/bin/true")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "key: "+key+"\nruns: 30\np50: 215ms\np99: 215ms\nlimit: max(3 × p99 215ms, 1s) = 1s\n")

	r = runMain(t, nil, "timing", "status", "--state", state, "--json", key)
	require.Equal(t, 0, r.code, r.stderr)
	var s timingStatus
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
	assert.Equal(t, int64(30), s.Runs)
	assert.Equal(t, int64(1000), *s.LimitMS)

	r = runMain(t, nil, "timing", "list", "--state", state)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `KEY +RUNS +P50 +P99 +LIMIT\n`+key+` +30 +215ms +215ms +1s\n`, r.stdout)

	r = runMain(t, nil, "timing", "reset", "--state", state, key)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "retry: timing of \""+key+"\" reset\n", r.stderr)
	assert.Equal(t, int64(0), learnedRuns(t, state, key))

	r = runMain(t, nil, "timing", "status", "--state", state, "a", "b")
	assert.Equal(t, 125, r.code)
	assert.Contains(t, r.stderr, "give one key")
}

func TestARunStoppedAtTheLearnedLimitStartsTheNextOneDoubled(t *testing.T) {
	t.Parallel()
	argv := []string{"/bin/sh", "-c", `[ "$HANG" = 1 ] && exec /bin/sleep 30; exit 0`}
	key := keyHere(t, argv...)
	state := learnedState(t, key, 20, 10*time.Millisecond)
	report := filepath.Join(t.TempDir(), "report.json")
	firstLimit := func() int64 {
		t.Helper()
		a := readLimits(t, report).Attempts[0]
		require.NotNil(t, a.LimitMS)
		assert.Equal(t, "learned", *a.LimitFrom)
		return *a.LimitMS
	}
	args := append([]string{"--state", state, "--timeout", "auto", "-n", "1", "--report", report, "--"}, argv...)

	r := runMain(t, []string{"HANG=1"}, args...)
	assert.Equal(t, 124, r.code, r.stderr)
	assert.Equal(t, int64(1000), firstLimit())

	r = runMain(t, []string{"HANG=0"}, args...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, int64(2000), firstLimit(), "one attempt a run: the run after a stop starts doubled")

	r = runMain(t, []string{"HANG=0"}, args...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, int64(1000), firstLimit(), "a success sets it back")
	assert.Equal(t, int64(21+1), learnedRuns(t, state, key))
}

func TestANewerLearnedRecordIsLeftAloneAndTheCommandRuns(t *testing.T) {
	t.Parallel()
	key := keyHere(t, "/bin/true")
	state := learnedState(t, key, 1, time.Millisecond)
	matches, err := filepath.Glob(filepath.Join(state, "time-*.json"))
	require.NoError(t, err)
	require.Len(t, matches, 1)
	v2 := `{"version":2,"key":"` + key + `"}`
	require.NoError(t, os.WriteFile(matches[0], []byte(v2), 0o600))
	r := runMain(t, nil, "--state", state, "--timeout", "auto", "--", "/bin/true")
	require.Equal(t, 0, r.code)
	assert.Equal(t, "retry: warning: timing of \""+key+"\" has format version 2, newer than this retry reads (1); no learned timeout this run\n", r.stderr)
	data, err := os.ReadFile(matches[0])
	require.NoError(t, err)
	assert.Equal(t, v2, string(data), "left alone")
}
