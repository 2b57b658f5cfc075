package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/runner"
)

// jsonLines decodes each line of a JSON log.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v), "line %q", line)
		lines = append(lines, v)
	}
	return lines
}

func TestJSONLogWritesOneObjectPerLineWithATypeAndAUTCTime(t *testing.T) {
	t.Parallel()
	events, end := scriptedRun()
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: "curl", Argv: scriptedArgv()}
	observeAll(l.Observe, events)
	l.Finish(end)

	var types []string
	for _, line := range jsonLines(t, b.String()) {
		types = append(types, line["type"].(string))
		ts, err := time.Parse(time.RFC3339Nano, line["time"].(string))
		require.NoError(t, err)
		assert.Equal(t, time.UTC, ts.Location())
		assert.Len(t, line["time"], len("2026-01-02T03:04:05.678Z"), "milliseconds, always three digits")
		assert.Equal(t, "curl", line["program"])
		assert.NotContains(t, line, "argv")
	}
	assert.Equal(t, []string{
		"attempt_start", "attempt_end", "wait",
		"attempt_start", "attempt_end", "wait",
		"attempt_start", "attempt_end", "wait",
		"attempt_start", "attempt_end", "wait",
		"attempt_start", "attempt_end", // no wait after the last attempt
		"summary",
	}, types)
	assert.NotContains(t, b.String(), "secret")
}

func TestJSONLogShowsArgvOnlyWhenVerbose(t *testing.T) {
	t.Parallel()
	events, end := scriptedRun()
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: "curl", Argv: scriptedArgv(), Verbose: true}
	observeAll(l.Observe, events[:1])
	l.Finish(end)
	lines := jsonLines(t, b.String())
	want := []any{"curl", "-fsS", "https://user:secret@example.com/health"}
	assert.Equal(t, want, lines[0]["argv"], "on the attempt_start line")
	assert.Equal(t, want, lines[1]["argv"], "on the summary line")
}

func TestJSONLogDescribesAProgramThatCouldNotStart(t *testing.T) {
	t.Parallel()
	e := endings()["terminal: command not found"]
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: "curlx"}
	l.Observe(&runner.AttemptEnded{Attempt: e.Result.Last(), Max: 5, Final: true})
	l.Finish(e)
	lines := jsonLines(t, b.String())
	assert.Equal(t, map[string]any{
		"type": "attempt_end", "time": "2026-01-02T03:04:05.679Z", "program": "curlx", "attempt": 1.0, "max": 5.0,
		"exit_code": 127.0, "signal": nil, "timed_out": false, "deadline_hit": false,
		"class": "terminal", "rule": "not found", "error": "start \"curlx\": executable file not found in $PATH",
		"duration_ms": 1.0, "stdout_bytes": nil, "stderr_bytes": nil, "limit_ms": nil, "limit_from": nil,
	}, lines[0], "a program that never started wrote nothing anyone counted")
	assert.Equal(t, map[string]any{
		"type": "summary", "time": "2026-01-02T03:04:05.680Z", "program": "curlx",
		"outcome": "terminal", "attempts": 1.0, "elapsed_ms": 2.0, "exit_code": 127.0,
		"last_error": `"curlx": executable file not found in $PATH (exit 127, terminal)`,
	}, lines[1])
}

func TestJSONLogSummaryOfARunTheBreakerRefused(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: "curl"}
	l.Finish(endings()["breaker open, nothing ran"])
	lines := jsonLines(t, b.String())
	require.Len(t, lines, 1)
	assert.Equal(t, "breaker-open", lines[0]["outcome"])
	assert.Equal(t, 0.0, lines[0]["attempts"])
	assert.Equal(t, 75.0, lines[0]["exit_code"])
	assert.Nil(t, lines[0]["last_error"])
}

func TestJSONLogKeepsTextReadable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: "a&b<c>"}
	l.Observe(&runner.AttemptStarted{Attempt: 1, Time: scriptedStart()})
	assert.Contains(t, b.String(), `"program":"a&b<c>"`, "no HTML escaping in a log")
	assert.Equal(t, 1, strings.Count(b.String(), "\n"))
}
