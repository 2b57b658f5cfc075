package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The metrics a MetricsFile keeps, each labelled name="…".
const (
	metricAttempts      = "retry_attempts_total"
	metricRuns          = "retry_runs_total" // also labelled outcome="…"
	metricLastTimestamp = "retry_last_run_timestamp_seconds"
	metricLastDuration  = "retry_last_run_duration_seconds"
	metricLastAttempts  = "retry_last_attempts"
)

// metricSpec is the HELP text and TYPE of each metric a MetricsFile keeps.
func metricSpec(name string) (help string, typ dto.MetricType, ok bool) {
	switch name {
	case metricAttempts:
		return "Attempts made by retry, the first attempt of each run included.", dto.MetricType_COUNTER, true
	case metricRuns:
		return "Runs of retry, by how they ended.", dto.MetricType_COUNTER, true
	case metricLastTimestamp:
		return "When the last run ended, in seconds since the Unix epoch.", dto.MetricType_GAUGE, true
	case metricLastDuration:
		return "How long the last run took, waits included, in seconds.", dto.MetricType_GAUGE, true
	case metricLastAttempts:
		return "Attempts made by the last run.", dto.MetricType_GAUGE, true
	}
	return "", 0, false
}

// DefaultLockWait is how long MetricsFile.Write waits for another retry
// writing the same file when LockWait is 0.
const DefaultLockWait = 5 * time.Second

// MetricsFile keeps counters and last-run gauges in a file in the
// Prometheus text exposition format, for node_exporter's textfile collector
// (--metrics-file FILE): retry_attempts_total and
// retry_runs_total{outcome=…} count across runs; retry_last_run_timestamp_seconds,
// retry_last_run_duration_seconds and retry_last_attempts describe the last
// run. Every series is labelled name="…", so several commands can share one
// file: a run updates its own series and keeps everything else in the file.
//
// Writers take turns: Write holds an exclusive flock(2) on Path+".lock"
// while it reads, updates and replaces the file, so concurrent runs never
// lose each other's counts. The lock file is left in place (its name does
// not end in .prom, so the collector ignores it). The file is replaced
// atomically with mode 0644, so node_exporter, usually another user, can
// read it; it holds only names and numbers.
type MetricsFile struct {
	// Path is the file to update, such as
	// /var/lib/node_exporter/textfile/retry.prom.
	Path string
	// Name is the value of the name label: the caller's --name, by default
	// the program name. It must not be empty.
	Name string
	// LockWait bounds the wait for another writer; 0 means
	// DefaultLockWait.
	LockWait time.Duration
}

// Write adds the run that ended as e to the file. A previous file that is
// not valid text exposition format, or that holds one of retry's metrics
// with another type, is replaced: its counters start again from zero, and
// warning says so (one line, without the "retry: " prefix, for the caller to
// print). err is set when the file could not be read, locked or written;
// the file is then left as it was.
func (m *MetricsFile) Write(ctx context.Context, e Ending) (warning string, err error) {
	if m.Name == "" {
		return "", errors.New("metrics file: the name label is empty")
	}
	wait := m.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	unlock, err := lockFile(ctx, m.Path+".lock", wait)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	defer unlock()

	families, warning, err := readMetrics(m.Path)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	m.add(families, e)
	var b bytes.Buffer
	if err := writeMetrics(&b, families); err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	if err := writeFileAtomic(m.Path, b.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	return warning, nil
}

// readMetrics parses the previous file. A missing file is empty; a file
// that does not parse, or holds one of our metrics with the wrong type, is
// treated as empty with a warning.
func readMetrics(path string) (families map[string]*dto.MetricFamily, warning string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*dto.MetricFamily{}, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err = p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return map[string]*dto.MetricFamily{}, replaced(path, OneLine(err.Error())), nil
	}
	for name, f := range families {
		if _, typ, ok := metricSpec(name); ok && f.GetType() != typ {
			why := fmt.Sprintf("%s is a %s, not a %s", name, lower(f.GetType()), lower(typ))
			return map[string]*dto.MetricFamily{}, replaced(path, why), nil
		}
	}
	return families, "", nil
}

func replaced(path, why string) string {
	return fmt.Sprintf("metrics file %s was not valid (%s); replaced it, so its counters start again from 0", path, why)
}

func lower(t dto.MetricType) string { return strings.ToLower(t.String()) }

// add counts the run that ended as e in families.
func (m *MetricsFile) add(families map[string]*dto.MetricFamily, e Ending) {
	name := label("name", m.Name)
	r := e.Result
	attempts := series(families, metricAttempts, name)
	attempts.Counter.Value = some(attempts.GetCounter().GetValue() + float64(len(r.Attempts)))
	for _, o := range Outcomes() {
		series(families, metricRuns, name, label("outcome", string(o))) // every outcome, from 0
	}
	runs := series(families, metricRuns, name, label("outcome", string(e.outcome())))
	runs.Counter.Value = some(runs.GetCounter().GetValue() + 1)
	series(families, metricLastTimestamp, name).Gauge.Value = some(float64(e.end().UnixMilli()) / 1000)
	series(families, metricLastDuration, name).Gauge.Value = some(r.Elapsed.Seconds())
	series(families, metricLastAttempts, name).Gauge.Value = some(float64(len(r.Attempts)))
}

func label(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: some(name), Value: some(value)}
}

// series returns the series of metric with exactly labels, made at zero if
// the family or the series is missing. It sets the family's HELP and TYPE
// to ours.
func series(families map[string]*dto.MetricFamily, metric string, labels ...*dto.LabelPair) *dto.Metric {
	help, typ, _ := metricSpec(metric)
	f := families[metric]
	if f == nil {
		f = &dto.MetricFamily{Name: some(metric)}
		families[metric] = f
	}
	f.Help, f.Type = some(help), typ.Enum()
	want := labelKey(labels)
	for _, s := range f.Metric {
		if labelKey(s.Label) == want {
			return s
		}
	}
	s := &dto.Metric{Label: labels}
	if typ == dto.MetricType_COUNTER {
		s.Counter = &dto.Counter{Value: some(0.0)}
	} else {
		s.Gauge = &dto.Gauge{Value: some(0.0)}
	}
	f.Metric = append(f.Metric, s)
	return s
}

// labelKey identifies a label set whatever its order. Names and values
// are quoted so that no two different sets share a key.
func labelKey(labels []*dto.LabelPair) string {
	keys := make([]string, len(labels))
	for i, l := range labels {
		keys[i] = fmt.Sprintf("%q=%q", l.GetName(), l.GetValue())
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// writeMetrics writes every family in a stable order: families by name,
// series by their labels, labels by name, so that the file changes only
// where a value does.
func writeMetrics(w io.Writer, families map[string]*dto.MetricFamily) error {
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := families[name]
		for _, s := range f.Metric {
			slices.SortFunc(s.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
		}
		slices.SortStableFunc(f.Metric, func(a, b *dto.Metric) int {
			return strings.Compare(labelKey(a.Label), labelKey(b.Label))
		})
		f.Metric = slices.CompactFunc(f.Metric, func(a, b *dto.Metric) bool {
			return labelKey(a.Label) == labelKey(b.Label)
		})
		if _, err := expfmt.MetricFamilyToText(w, f); err != nil {
			return err
		}
	}
	return nil
}
