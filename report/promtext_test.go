package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// beforeState is a metrics file that the release before the state file
// wrote: seven runs of five names, among them names that need escapes,
// that sort differently quoted, and that are not ASCII.
func beforeState(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "metrics-before-state.prom"))
	require.NoError(t, err)
	return data
}

// expfmtParse reads data with prometheus/common's parser, as node_exporter
// does.
func expfmtParse(t testing.TB, data []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(data))
	require.NoError(t, err, "node_exporter's parser rejects:\n%s", data)
	return families
}

func TestMetricsOfAnEarlierReleaseAreReadAndWrittenBackByteForByte(t *testing.T) {
	t.Parallel()
	before := beforeState(t)
	st := newMetricsState()
	require.NoError(t, seedMetrics(before, st))
	assert.Len(t, st.Names, 5)
	assert.Equal(t, 7.0, st.Names["curl"].Attempts)
	assert.Equal(t, 1.0, st.Names["say \"hi\"\\\nbye, {x=\"1\"}"].Runs["success"])
	assert.Equal(t, string(before), string(appendExposition(nil, st)),
		"the same names, labels, HELP and TYPE lines, order and numbers as before")
	expfmtParse(t, appendExposition(nil, st))
}

func TestSeedingLeavesOutWhatIsNotRetrysAndSaysWhere(t *testing.T) {
	t.Parallel()
	st := newMetricsState()
	err := seedMetrics([]byte("# written by backup.sh\n\n"+
		"retry_attempts_total{name=\"curl\"} 3\n"+
		"# HELP backup_last_success_timestamp_seconds Set by the backup script.\n"+
		"backup_last_success_timestamp_seconds{job=\"db\"} 1.7e+09\n"+
		"\x00\x01\n"), st)
	require.ErrorIs(t, err, errForeign)
	assert.ErrorContains(t, err, "line 4: ")
	assert.Equal(t, 3.0, st.Names["curl"].Attempts, "retry's series are read all the same")
	assert.Len(t, st.Names, 1)
}

func TestSeedingAcceptsWhatTheFormatAllowsInRetrysLines(t *testing.T) {
	t.Parallel()
	st := newMetricsState()
	require.NoError(t, seedMetrics([]byte("  # TYPE  retry_runs_total counter \n"+
		"retry_runs_total { outcome = \"success\" , name=\"a\\\\b\", }\t2   1700000000000\n"+
		"retry_last_run_duration_seconds{name=\"a\\\\b\"} 1e-3"), st))
	assert.Equal(t, 2.0, st.Names[`a\b`].Runs["success"])
	assert.Equal(t, 0.001, st.Names[`a\b`].LastDuration)
}

func TestSeedingRejectsRetrysLinesItCannotRead(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, err string }{
		"an unclosed brace":        {"retry_attempts_total{name=\"curl\" 12\n", "line 1: retry_attempts_total: expected ',' or '}' after label name"},
		"no labels":                {"retry_attempts_total 12\n", "retry_attempts_total without its labels"},
		"a label missing":          {"retry_runs_total{name=\"curl\"} 1\n", `labels ["name"], not ["name" "outcome"]`},
		"a label too many":         {"retry_attempts_total{name=\"curl\",job=\"x\"} 1\n", "not [\"name\"]"},
		"a label twice":            {"retry_attempts_total{name=\"a\",name=\"b\"} 1\n", "label name twice"},
		"an unquoted value":        {"retry_attempts_total{name=curl} 1\n", "not quoted"},
		"an unknown escape":        {"retry_attempts_total{name=\"\\t\"} 1\n", "invalid escape"},
		"an unterminated value":    {"retry_attempts_total{name=\"curl} 1\n", "unterminated"},
		"a value not UTF-8":        {"retry_attempts_total{name=\"\xff\"} 1\n", "not UTF-8"},
		"a label name that is not": {"retry_attempts_total{1a=\"x\"} 1\n", "expected a label name"},
		"no value":                 {"retry_attempts_total{name=\"curl\"}\n", "expected a value"},
		"a value that is a word":   {"retry_attempts_total{name=\"curl\"} many\n", `value "many"`},
		"a negative count":         {"retry_attempts_total{name=\"curl\"} -1\n", `value "-1"`},
		"NaN":                      {"retry_last_attempts{name=\"curl\"} NaN\n", `value "NaN"`},
		"text after the timestamp": {"retry_last_attempts{name=\"curl\"} 1 2 3\n", "at most a timestamp"},
		"another type":             {"# TYPE retry_attempts_total gauge\nretry_attempts_total{name=\"curl\"} 12\n", "line 1: retry_attempts_total is not a counter"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := seedMetrics([]byte(tc.in), newMetricsState())
			assert.ErrorContains(t, err, tc.err)
			assert.NotErrorIs(t, err, errForeign)
		})
	}
}

// FuzzSeedMetrics checks that seedMetrics never panics, that what it
// reads is written so that it reads back the same, and that node_exporter's
// parser reads what is written.
func FuzzSeedMetrics(f *testing.F) {
	for _, seed := range []string{
		string(beforeState(f)),
		"",
		"retry_runs_total { outcome = \"success\" , name=\"a\\\\b\", }\t2   1700000000000\n",
		"# HELP backup Set by the backup script.\nbackup{job=\"db\"} 1.7e+09\nretry_last_attempts{name=\"x\"} 2\n",
		"# TYPE retry_attempts_total gauge\nretry_attempts_total{name=\"curl\"} 12\n",
		"retry_attempts_total{name=\"curl\" 12\n",
		"retry_last_run_timestamp_seconds{name=\"\\n\\\"\"} 1.767323056594e+09\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := newMetricsState()
		if err := seedMetrics(data, st); err != nil && !errors.Is(err, errForeign) {
			return
		}
		written := appendExposition(nil, st)
		again := newMetricsState()
		require.NoError(t, seedMetrics(written, again), "reading back:\n%s", written)
		require.Equal(t, st, again)
		require.Equal(t, written, appendExposition(nil, again))
		expfmtParse(t, written)
	})
}
