package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/internal/statefile"
)

// parseMetrics reads path as node_exporter would.
func parseMetrics(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	families, err := p.TextToMetricFamilies(f)
	require.NoError(t, err)
	return families
}

// value returns the value of the series of metric with exactly labels
// (name, value, name, value…), failing the test if there is none.
func value(t *testing.T, families map[string]*dto.MetricFamily, metric string, labels ...string) float64 {
	t.Helper()
	f := families[metric]
	require.NotNil(t, f, "no %s", metric)
	want := map[string]string{}
	for i := 0; i < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		if assert.ObjectsAreEqual(want, got) {
			if f.GetType() == dto.MetricType_COUNTER {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	require.Failf(t, "no series", "%s%v", metric, want)
	return 0
}

func writeRun(t *testing.T, path, name string, e Ending) {
	t.Helper()
	m := &MetricsFile{Path: path, Name: name}
	warning, err := m.Write(context.Background(), e)
	require.NoError(t, err)
	require.Empty(t, warning)
}

func TestMetricsFileHasHelpTypeAndOneSeriesPerMetric(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	_, end := scriptedRun()
	writeRun(t, path, "curl", end)

	families := parseMetrics(t, path)
	for name, typ := range map[string]dto.MetricType{
		"retry_attempts_total":             dto.MetricType_COUNTER,
		"retry_runs_total":                 dto.MetricType_COUNTER,
		"retry_last_run_timestamp_seconds": dto.MetricType_GAUGE,
		"retry_last_run_duration_seconds":  dto.MetricType_GAUGE,
		"retry_last_attempts":              dto.MetricType_GAUGE,
	} {
		require.Contains(t, families, name)
		assert.Equal(t, typ, families[name].GetType(), name)
		assert.NotEmpty(t, families[name].GetHelp(), name)
	}
	assert.Equal(t, 5.0, value(t, families, "retry_attempts_total", "name", "curl"))
	assert.Equal(t, 1.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "exhausted"))
	assert.Equal(t, 0.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "success"),
		"every outcome has a series from the first run, so increase() sees its first change")
	assert.Len(t, families["retry_runs_total"].Metric, len(Outcomes()))
	assert.InDelta(t, float64(end.end().UnixMilli())/1000, value(t, families, "retry_last_run_timestamp_seconds", "name", "curl"), 1e-3)
	assert.InDelta(t, 10.916, value(t, families, "retry_last_run_duration_seconds", "name", "curl"), 1e-9)
	assert.Equal(t, 5.0, value(t, families, "retry_last_attempts", "name", "curl"))

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "node_exporter runs as another user")
}

func TestMetricsCountersAccumulateAcrossRunsAndGaugesShowTheLast(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	all := endings()
	runs := []Ending{all["attempts exhausted"], all["success after a retry"], all["success after a retry"]}
	for _, e := range runs {
		writeRun(t, path, "curl", e)
	}
	families := parseMetrics(t, path)
	assert.Equal(t, 9.0, value(t, families, "retry_attempts_total", "name", "curl"), "5 + 2 + 2")
	assert.Equal(t, 1.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "exhausted"))
	assert.Equal(t, 2.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "success"))
	assert.Equal(t, 0.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "terminal"))
	assert.Equal(t, 2.0, value(t, families, "retry_last_attempts", "name", "curl"))
	assert.InDelta(t, 0.3, value(t, families, "retry_last_run_duration_seconds", "name", "curl"), 1e-9)
}

func TestMetricsFileSharedByTwoNamesKeepsEachNamesSeries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	all := endings()
	writeRun(t, path, "curl", all["attempts exhausted"])
	writeRun(t, path, "deploy", all["terminal: command not found"])
	writeRun(t, path, "curl", all["success after a retry"])

	families := parseMetrics(t, path)
	assert.Equal(t, 7.0, value(t, families, "retry_attempts_total", "name", "curl"))
	assert.Equal(t, 1.0, value(t, families, "retry_attempts_total", "name", "deploy"))
	assert.Equal(t, 1.0, value(t, families, "retry_runs_total", "name", "deploy", "outcome", "terminal"))
	assert.Equal(t, 1.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "success"))
	assert.Equal(t, 0.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "terminal"))
	assert.Equal(t, 1.0, value(t, families, "retry_last_attempts", "name", "deploy"))
	assert.Equal(t, 2.0, value(t, families, "retry_last_attempts", "name", "curl"))
	assert.Len(t, families["retry_runs_total"].Metric, 2*len(Outcomes()))
}

func TestMetricsFileOfAnEarlierReleaseCarriesItsCountersOn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	require.NoError(t, os.WriteFile(path, beforeState(t), 0o644))
	writeRun(t, path, "curl", endings()["success after a retry"])
	families := parseMetrics(t, path)
	assert.Equal(t, 9.0, value(t, families, "retry_attempts_total", "name", "curl"), "7 before, and 2")
	assert.Equal(t, 2.0, value(t, families, "retry_runs_total", "name", "curl", "outcome", "success"))
	assert.Equal(t, 5.0, value(t, families, "retry_attempts_total", "name", "ünïcödé"), "the other names are kept")
	assert.FileExists(t, path+".json", "the counters are kept beside the file from now on")

	require.NoError(t, os.WriteFile(path, nil, 0o644))
	writeRun(t, path, "curl", endings()["success after a retry"])
	assert.Equal(t, 11.0, value(t, parseMetrics(t, path), "retry_attempts_total", "name", "curl"),
		"once there is a state file, the metrics file is only written")
}

func TestOtherMetricsInAFileOfAnEarlierReleaseAreDroppedWithAWarning(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	require.NoError(t, os.WriteFile(path, []byte(
		"# HELP backup_last_success_timestamp_seconds Set by the backup script.\n"+
			"# TYPE backup_last_success_timestamp_seconds gauge\n"+
			"backup_last_success_timestamp_seconds{job=\"db\"} 1.7e+09\n"+
			"retry_attempts_total{name=\"curl\"} 3\n"), 0o644))
	m := &MetricsFile{Path: path, Name: "curl"}
	warning, err := m.Write(context.Background(), endings()["success after a retry"])
	require.NoError(t, err)
	assert.Contains(t, warning, path)
	assert.Contains(t, warning, "line 1")
	assert.Contains(t, warning, "give other metrics a file of their own")
	assert.NotContains(t, warning, "\n")
	families := parseMetrics(t, path)
	assert.NotContains(t, families, "backup_last_success_timestamp_seconds")
	assert.Equal(t, 5.0, value(t, families, "retry_attempts_total", "name", "curl"), "retry's own counts go on")

	warning, err = m.Write(context.Background(), endings()["success after a retry"])
	require.NoError(t, err)
	assert.Empty(t, warning, "said once")
}

func TestMetricsFileThatIsCorruptIsReplacedWithAWarning(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ file, previous string }{
		"a metrics file of ours not in the text format": {"retry.prom", "retry_attempts_total{name=\"curl\" 12\n"},
		"a metrics file with one of ours of another type": {"retry.prom", "# TYPE retry_attempts_total gauge\n" +
			"retry_attempts_total{name=\"curl\"} 12\n"},
		"a state file that is not JSON":     {"retry.prom.json", "\x00\x01\x02"},
		"an empty state file":               {"retry.prom.json", ""},
		"a state file without a version":    {"retry.prom.json", `{"names":{"curl":{"attempts_total":12}}}`},
		"a state file with the wrong types": {"retry.prom.json", `{"version":1,"names":{"curl":{"attempts_total":"12"}}}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "retry.prom")
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.previous), 0o644))
			m := &MetricsFile{Path: path, Name: "curl"}
			warning, err := m.Write(context.Background(), endings()["success after a retry"])
			require.NoError(t, err)
			assert.Contains(t, warning, filepath.Join(dir, tc.file))
			assert.Contains(t, warning, "replaced it")
			assert.NotContains(t, warning, "\n")
			assert.False(t, strings.HasPrefix(warning, "retry:"), "the caller adds the prefix")
			families := parseMetrics(t, path)
			assert.Equal(t, 2.0, value(t, families, "retry_attempts_total", "name", "curl"), "counting starts again")
		})
	}
}

func TestMetricsStateOfANewerReleaseIsLeftAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	newer := `{"version":2,"names":{}}`
	require.NoError(t, os.WriteFile(path+".json", []byte(newer), 0o644))
	m := &MetricsFile{Path: path, Name: "curl"}
	_, err := m.Write(context.Background(), endings()["success after a retry"])
	assert.ErrorContains(t, err, "version 2, written by a newer retry")
	data, err := os.ReadFile(path + ".json")
	require.NoError(t, err)
	assert.Equal(t, newer, string(data))
	assert.NoFileExists(t, path)
}

func TestMetricsStateThatIsASymlinkOrAFIFOIsRefused(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(path string) error{
		"a symlink": func(path string) error { return os.Symlink(filepath.Join(filepath.Dir(path), "elsewhere"), path) },
		"a FIFO":    func(path string) error { return syscall.Mkfifo(path, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "retry.prom")
			require.NoError(t, plant(path+".json"))
			m := &MetricsFile{Path: path, Name: "curl"}
			_, err := m.Write(context.Background(), endings()["success after a retry"])
			assert.ErrorContains(t, err, path+".json")
			assert.NoFileExists(t, path)
			assert.NoFileExists(t, filepath.Join(filepath.Dir(path), "elsewhere"))
		})
	}
}

func TestMetricsFileThatCannotBeReadIsLeftAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	require.NoError(t, os.Mkdir(path, 0o755))
	m := &MetricsFile{Path: path, Name: "curl"}
	_, err := m.Write(context.Background(), endings()["success after a retry"])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "metrics file: ")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, info.IsDir())
}

func TestMetricsLabelValuesAreEscaped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	name := "say \"hi\"\\\nbye, {x=\"1\"}"
	writeRun(t, path, name, endings()["success after a retry"])
	writeRun(t, path, name, endings()["success after a retry"])
	families := parseMetrics(t, path)
	assert.Equal(t, 4.0, value(t, families, "retry_attempts_total", "name", name), "the name reads back exactly, and matches")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `name="say \"hi\"\\\nbye, {x=\"1\"}"`)
}

func TestMetricsFileNeedsAName(t *testing.T) {
	t.Parallel()
	m := &MetricsFile{Path: filepath.Join(t.TempDir(), "retry.prom")}
	_, err := m.Write(context.Background(), endings()["success after a retry"])
	assert.ErrorContains(t, err, "name")
}

func TestMetricsFileNeedsANameInUTF8(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	m := &MetricsFile{Path: path, Name: "caf\xe9"} // Latin-1, from a program name
	_, err := m.Write(context.Background(), endings()["success after a retry"])
	assert.ErrorContains(t, err, "UTF-8")
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "a label value that is not UTF-8 would make node_exporter drop the whole file")
}

func TestConcurrentMetricsWritersLoseNoCount(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	const writers, runs = 4, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			name := []string{"curl", "deploy"}[w%2]
			for range runs {
				m := &MetricsFile{Path: path, Name: name}
				_, err := m.Write(context.Background(), endings()["success after a retry"])
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	families := parseMetrics(t, path)
	for _, name := range []string{"curl", "deploy"} {
		assert.Equal(t, float64(writers/2*runs), value(t, families, "retry_runs_total", "name", name, "outcome", "success"), name)
		assert.Equal(t, float64(writers/2*runs*2), value(t, families, "retry_attempts_total", "name", name), name)
	}
}

func TestMetricsWriterWaitsForTheLockOnlyAsLongAsItMay(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	holder, err := statefile.Lock(context.Background(), path+".lock", 0o644, time.Second)
	require.NoError(t, err)
	defer holder()

	start := time.Now()
	m := &MetricsFile{Path: path, Name: "curl", LockWait: 200 * time.Millisecond}
	_, err = m.Write(context.Background(), endings()["success after a retry"])
	assert.ErrorContains(t, err, "still held by another process after 200ms")
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 200*time.Millisecond)
	assert.Less(t, elapsed, 5*time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	m.LockWait = time.Minute
	go func() {
		time.Sleep(100 * time.Millisecond) // the writer is waiting, or about to
		cancel()
	}()
	start = time.Now()
	_, err = m.Write(ctx, endings()["success after a retry"])
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 10*time.Second, "cancellation ends the wait, not the minute")
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written without the lock")
}

func TestMetricsWriterTakesTheLockOnceItIsFree(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "retry.prom")
	holder, err := statefile.Lock(context.Background(), path+".lock", 0o644, time.Second)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		m := &MetricsFile{Path: path, Name: "curl", LockWait: time.Minute}
		_, err := m.Write(context.Background(), endings()["success after a retry"])
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("wrote while the lock was held: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	holder()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not take the freed lock")
	}
	assert.Equal(t, 2.0, value(t, parseMetrics(t, path), "retry_attempts_total", "name", "curl"))
}

func TestMetricsLockFileThatIsASymlinkIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "retry.prom")
	planted := filepath.Join(dir, "planted")
	require.NoError(t, os.Symlink(planted, path+".lock"))
	m := &MetricsFile{Path: path, Name: "curl"}
	_, err := m.Write(context.Background(), endings()["success after a retry"])
	assert.ErrorContains(t, err, "is a symlink; refusing to follow it")
	assert.NoFileExists(t, planted, "nothing is created through a link planted in a shared directory")
	assert.NoFileExists(t, path)
}
