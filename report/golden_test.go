package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/runner"
)

// The golden tests render one scripted run (see scriptedRun) in every
// format. Run `go test ./report -update` to rewrite testdata/*.golden after
// an intended change, and review the diff.

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./report -update` to create %s", path)
	assert.Equal(t, string(want), string(got), "%s differs; run `go test ./report -update` if the change is intended", path)
}

func TestGoldenTextLogOfTheScriptedRun(t *testing.T) {
	t.Parallel()
	events, _ := scriptedRun()
	var b bytes.Buffer
	tx := &Text{W: &b, Program: scriptedArgv0, Argv: scriptedArgv()}
	rp := &Repeats{W: &b}
	observeAll(func(e runner.Event) { tx.Observe(e); rp.Observe(e) }, events)
	golden(t, "text.golden", b.Bytes())
}

func TestGoldenJSONLogOfTheScriptedRun(t *testing.T) {
	t.Parallel()
	events, end := scriptedRun()
	var b bytes.Buffer
	l := &JSONLog{W: &b, Program: scriptedArgv0, Argv: scriptedArgv()}
	observeAll(l.Observe, events)
	l.Finish(end)
	golden(t, "jsonlog.golden", b.Bytes())
}

func TestGoldenReportFileOfTheScriptedRun(t *testing.T) {
	t.Parallel()
	_, end := scriptedRun()
	path := filepath.Join(t.TempDir(), "report.json")
	f := &ReportFile{Path: path, Version: "1.2.3", Program: scriptedArgv0, Argv: scriptedArgv()}
	require.NoError(t, f.Write(t.Context(), end))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	golden(t, "report.golden", got)
}

func TestGoldenMetricsFileOfTheScriptedRun(t *testing.T) {
	t.Parallel()
	_, end := scriptedRun()
	path := filepath.Join(t.TempDir(), "retry.prom")
	m := &MetricsFile{Path: path, Name: scriptedArgv0}
	warning, err := m.Write(context.Background(), end)
	require.NoError(t, err)
	require.Empty(t, warning)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	golden(t, "metrics.golden", got)
}

func TestGoldenGitHubCommandsOfTheScriptedRun(t *testing.T) {
	t.Parallel()
	events, _ := scriptedRun()
	var b bytes.Buffer
	g := &GitHub{W: &b, Program: scriptedArgv0}
	observeAll(g.Observe, events)
	golden(t, "github.golden", b.Bytes())
}
