package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"retry/internal/statefile"
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
func metricSpec(name string) (help, typ string, ok bool) {
	switch name {
	case metricAttempts:
		return "Attempts made by retry, the first attempt of each run included.", typeCounter, true
	case metricRuns:
		return "Runs of retry, by how they ended.", typeCounter, true
	case metricLastTimestamp:
		return "When the last run ended, in seconds since the Unix epoch.", typeGauge, true
	case metricLastDuration:
		return "How long the last run took, waits included, in seconds.", typeGauge, true
	case metricLastAttempts:
		return "Attempts made by the last run.", typeGauge, true
	}
	return "", "", false
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
// (see statefile.Lock)
// while it reads, updates and replaces the file, so concurrent runs never
// lose each other's counts. The lock file is left in place (its name does
// not end in .prom, so the collector ignores it). The file is replaced
// atomically with mode 0644, so node_exporter, usually another user, can
// read it; it holds only names and numbers.
//
// A Path that leads to a device, a FIFO, a socket or a file descriptor
// (/dev/stderr, /dev/fd/N) is written into instead, with this run's
// metrics alone: there is nothing to read back and add to, and no lock
// file is made beside it.
type MetricsFile struct {
	// Path is the file to update, such as
	// /var/lib/node_exporter/textfile/retry.prom.
	Path string
	// W, when set, receives this run's metrics alone instead of Path:
	// --metrics-file - writes them to retry's stderr.
	W io.Writer
	// Name is the value of the name label: the caller's --name, by default
	// the program name. It must be valid UTF-8 and not empty.
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
	if !utf8.ValidString(m.Name) {
		return "", fmt.Errorf("metrics file: the name label %q is not valid UTF-8", m.Name)
	}
	if m.W != nil {
		if _, err := m.W.Write(m.alone(e)); err != nil {
			return "", fmt.Errorf("metrics file: %w", err)
		}
		return "", nil
	}
	t, err := lookTarget(m.Path)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	if t.stream {
		if err := t.write(ctx, m.alone(e)); err != nil {
			return "", fmt.Errorf("metrics file: %w", err)
		}
		return "", nil
	}
	wait := m.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	unlock, err := statefile.Lock(ctx, m.Path+".lock", 0o644, wait)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	defer unlock()

	families, warning, err := readMetrics(m.Path)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	m.add(families, e)
	if err := statefile.Replace(m.Path, appendExposition(nil, families), 0o644); err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	return warning, nil
}

// alone renders the metrics of the run that ended as e, and no other.
func (m *MetricsFile) alone(e Ending) []byte {
	families := map[string]*metricFamily{}
	m.add(families, e)
	return appendExposition(nil, families)
}

// readMetrics parses the previous file. A missing file is empty; a file
// that does not parse, or holds one of our metrics with the wrong type, is
// treated as empty with a warning.
func readMetrics(path string) (families map[string]*metricFamily, warning string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*metricFamily{}, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	families, err = parseExposition(data)
	if err != nil {
		return map[string]*metricFamily{}, replaced(path, OneLine(err.Error())), nil
	}
	for name, f := range families {
		if _, typ, ok := metricSpec(name); ok && f.typ != typ {
			why := fmt.Sprintf("%s is a %s, not a %s", name, f.typ, typ)
			return map[string]*metricFamily{}, replaced(path, why), nil
		}
	}
	return families, "", nil
}

func replaced(path, why string) string {
	return fmt.Sprintf("metrics file %s was not valid (%s); replaced it, so its counters start again from 0", path, why)
}

// add counts the run that ended as e in families.
func (m *MetricsFile) add(families map[string]*metricFamily, e Ending) {
	name := labelPair{"name", m.Name}
	r := e.Result
	series(families, metricAttempts, name).value += float64(len(r.Attempts))
	for _, o := range Outcomes() {
		series(families, metricRuns, name, labelPair{"outcome", string(o)}) // every outcome, from 0
	}
	series(families, metricRuns, name, labelPair{"outcome", string(e.outcome())}).value++
	series(families, metricLastTimestamp, name).value = float64(e.end().UnixMilli()) / 1000
	series(families, metricLastDuration, name).value = r.Elapsed.Seconds()
	series(families, metricLastAttempts, name).value = float64(len(r.Attempts))
	for metric := range families {
		if _, _, ok := metricSpec(metric); ok {
			tidy(families[metric])
		}
	}
}

// series returns the series of metric with exactly labels, made at zero if
// the family or the series is missing. It sets the family's HELP and TYPE
// to ours.
func series(families map[string]*metricFamily, metric string, labels ...labelPair) *metricSample {
	help, typ, _ := metricSpec(metric)
	f := families[metric]
	if f == nil {
		f = &metricFamily{name: metric}
		families[metric] = f
	}
	f.help, f.typ = help, typ
	want := labelKey(labels)
	for _, s := range f.samples {
		if labelKey(s.labels) == want {
			return s
		}
	}
	s := &metricSample{name: metric, labels: labels}
	f.samples = append(f.samples, s)
	return s
}

// tidy puts one of our families in a stable order, so that the file
// changes only where a value does: labels by name, series by their labels.
// Of two series with the same labels it keeps the first, the one series
// updated.
func tidy(f *metricFamily) {
	for _, s := range f.samples {
		slices.SortFunc(s.labels, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	}
	slices.SortStableFunc(f.samples, func(a, b *metricSample) int {
		return strings.Compare(labelKey(a.labels), labelKey(b.labels))
	})
	f.samples = slices.CompactFunc(f.samples, func(a, b *metricSample) bool {
		return labelKey(a.labels) == labelKey(b.labels)
	})
}

// labelKey identifies a label set whatever its order. Names and values
// are quoted so that no two different sets share a key.
func labelKey(labels []labelPair) string {
	keys := make([]string, len(labels))
	for i, l := range labels {
		keys[i] = fmt.Sprintf("%q=%q", l.name, l.value)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}
