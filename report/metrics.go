package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
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

// The metric types a MetricsFile writes.
const (
	typeCounter = "counter"
	typeGauge   = "gauge"
)

// metricNames lists the metrics in the order of the file.
func metricNames() []string {
	return []string{metricAttempts, metricLastAttempts, metricLastDuration, metricLastTimestamp, metricRuns}
}

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
// file: a run updates its own series and keeps the other names'.
//
// The series live in a state file beside the metrics file, Path+".json"
// (see metricsState), and the metrics file is written whole from it: the
// file is retry's alone. Writers take turns: Write holds an exclusive
// flock(2) on Path+".lock" while it reads and updates the state and
// replaces both files, so concurrent runs never lose each other's counts.
// Neither file beside Path ends in .prom, so the collector ignores them.
// Both are replaced atomically with mode 0644, so node_exporter, usually
// another user, can read the metrics; they hold only names and numbers.
//
// A Path that leads to a device, a FIFO, a socket or a file descriptor
// (/dev/stderr, /dev/fd/N) is written into instead, with this run's
// metrics alone: there is nothing to add to, and nothing is made beside it.
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

// metricsStateVersion is the version of the state file's format that
// this release writes; it reads it and earlier ones.
const metricsStateVersion = 1

// metricsState is what the state file beside a metrics file holds, as
// JSON: every name's series.
type metricsState struct {
	Version int                    `json:"version"`
	Names   map[string]*nameSeries `json:"names"`
}

// nameSeries are the values of one name's series.
type nameSeries struct {
	Attempts      float64            `json:"attempts_total"`
	Runs          map[string]float64 `json:"runs_total"` // by outcome
	LastTimestamp float64            `json:"last_run_timestamp_seconds"`
	LastDuration  float64            `json:"last_run_duration_seconds"`
	LastAttempts  float64            `json:"last_attempts"`
}

func newMetricsState() *metricsState {
	return &metricsState{Version: metricsStateVersion, Names: map[string]*nameSeries{}}
}

// series returns name's series, made at zero if missing.
func (st *metricsState) series(name string) *nameSeries {
	s := st.Names[name]
	if s == nil {
		s = &nameSeries{}
		st.Names[name] = s
	}
	if s.Runs == nil {
		s.Runs = map[string]float64{}
	}
	return s
}

// value returns the value of metric, one of those without an outcome.
func (s *nameSeries) value(metric string) *float64 {
	switch metric {
	case metricAttempts:
		return &s.Attempts
	case metricLastTimestamp:
		return &s.LastTimestamp
	case metricLastDuration:
		return &s.LastDuration
	}
	return &s.LastAttempts
}

// Write adds the run that ended as e to the file. A state file that is
// not valid is replaced: the counters start again from zero, and warning
// says so (one line, without the "retry: " prefix, for the caller to
// print); so does a first run that finds a metrics file but no state (see
// seed). err is set when the files could not be read, locked or written;
// they are then left as they were.
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
	unlock, err := statefile.Lock(ctx, t.path+".lock", 0o644, wait)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	defer unlock()

	st, warning, err := load(t.path)
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	m.add(st, e)
	state, err := json.Marshal(st)
	if err == nil {
		// The state first: a crash between the two leaves a metrics
		// file behind its state, which the next run writes again.
		err = statefile.Replace(t.path+".json", append(state, '\n'), 0o644)
	}
	if err == nil {
		err = statefile.Replace(t.path, appendExposition(nil, st), 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("metrics file: %w", err)
	}
	return warning, nil
}

// alone renders the metrics of the run that ended as e, and no other.
func (m *MetricsFile) alone(e Ending) []byte {
	st := newMetricsState()
	m.add(st, e)
	return appendExposition(nil, st)
}

// load reads the state beside the metrics file. A state that is not valid
// JSON of a version this release knows is replaced with a warning; one of
// a newer version is an error, so that a newer retry's state is never
// clobbered. file is the metrics file itself, where any links led.
func load(file string) (st *metricsState, warning string, err error) {
	path := file + ".json"
	data, err := readRegular(path)
	switch {
	case err != nil:
		return nil, "", err
	case data == nil:
		return seed(file)
	}
	st = &metricsState{}
	if err := json.Unmarshal(data, st); err != nil || st.Version < 1 {
		why := "no version"
		if err != nil {
			why = OneLine(err.Error())
		}
		return newMetricsState(), replaced("metrics state file", path, why), nil
	}
	if st.Version > metricsStateVersion {
		return nil, "", fmt.Errorf("state file %s is version %d, written by a newer retry; left it alone", path, st.Version)
	}
	if st.Names == nil {
		st.Names = map[string]*nameSeries{}
	}
	for name := range st.Names {
		st.series(name) // no nil series or outcomes
	}
	return st, "", nil
}

// seed starts the state of a metrics file that has none from the file
// itself, as releases before the state file wrote it, so that an upgrade
// carries the counters on. What else the file holds is dropped, once,
// with a warning: the file is retry's alone from then on.
func seed(file string) (*metricsState, string, error) {
	st := newMetricsState()
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return st, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	err = seedMetrics(data, st)
	switch {
	case errors.Is(err, errForeign):
		return st, fmt.Sprintf("metrics file %s held more than retry's metrics (%s); retry now writes it whole, "+
			"keeping its counts in %s.json, so the rest is gone: give other metrics a file of their own", file, err, file), nil
	case err != nil:
		return newMetricsState(), replaced("metrics file", file, OneLine(err.Error())), nil
	}
	return st, "", nil
}

func replaced(what, path, why string) string {
	return fmt.Sprintf("%s %s was not valid (%s); replaced it, so its counters start again from 0", what, path, why)
}

// readRegular returns the content of the regular file at path, or nil if
// there is none. It does not follow a symbolic link, and does not block on
// a FIFO.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("state file %s: is a symlink; refusing to follow it", path)
	case err != nil:
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("state file %s: not a regular file", path)
	}
	data, err := io.ReadAll(f)
	if err == nil && data == nil {
		data = []byte{} // present but empty: not valid, not absent
	}
	return data, err
}

// add counts the run that ended as e in st.
func (m *MetricsFile) add(st *metricsState, e Ending) {
	s := st.series(m.Name)
	r := e.Result
	s.Attempts += float64(len(r.Attempts))
	for _, o := range Outcomes() {
		s.Runs[string(o)] += 0 // every outcome, from 0
	}
	s.Runs[string(e.outcome())]++
	s.LastTimestamp = float64(e.end().UnixMilli()) / 1000
	s.LastDuration = r.Elapsed.Seconds()
	s.LastAttempts = float64(len(r.Attempts))
}
