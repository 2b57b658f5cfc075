package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// expfmtParse reads data with prometheus/common's parser, as node_exporter
// does. That parser panics on some inputs (a quoted metric name in braces
// of a histogram, right after another family's line); panicked says so.
func expfmtParse(data []byte) (families map[string]*dto.MetricFamily, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err = p.TextToMetricFamilies(bytes.NewReader(data))
	return families, err, false
}

// sampleView and familyView show families in a form assert.Equal compares
// exactly: values by their bits, so NaN equals NaN and -0 differs from 0.
type sampleView struct {
	Name         string
	Labels       []labelPair
	Bits         uint64
	Timestamp    int64
	HasTimestamp bool
}

type familyView struct {
	Help, Type string
	Samples    []sampleView
}

func view(families map[string]*metricFamily) map[string]familyView {
	v := map[string]familyView{}
	for name, f := range families {
		fv := familyView{Help: f.help, Type: f.typ}
		for _, s := range f.samples {
			fv.Samples = append(fv.Samples, sampleView{s.name, s.labels, math.Float64bits(s.value), s.timestamp, s.hasTimestamp})
		}
		v[name] = fv
	}
	return v
}

// checkAccepted asserts what must hold of every input parseExposition
// accepts: writing the families and reading them back gives the same
// families, and node_exporter's parser accepts both the input and what we
// write, with the same family names, types and HELP texts.
func checkAccepted(t *testing.T, input []byte, families map[string]*metricFamily) {
	t.Helper()
	written := appendExposition(nil, families)
	again, err := parseExposition(written)
	require.NoError(t, err, "reading back what we wrote:\n%s", written)
	require.Equal(t, view(families), view(again), "written:\n%s", written)
	assert.Equal(t, written, appendExposition(nil, again), "writing is stable")

	theirs, err, panicked := expfmtParse(written)
	require.False(t, panicked, "expfmt panicked on what we wrote:\n%s", written)
	require.NoError(t, err, "expfmt rejects what we wrote:\n%s", written)
	assertSameShape(t, families, theirs)

	theirs, err, panicked = expfmtParse(input)
	if !panicked {
		require.NoError(t, err, "expfmt rejects an input we accept")
		assertSameShape(t, families, theirs)
	}
}

func assertSameShape(t *testing.T, ours map[string]*metricFamily, theirs map[string]*dto.MetricFamily) {
	t.Helper()
	type shape struct{ Help, Type string }
	want := map[string]shape{}
	for name, f := range ours {
		want[name] = shape{f.help, f.typ}
	}
	got := map[string]shape{}
	for name, f := range theirs {
		got[name] = shape{f.GetHelp(), lower(f.GetType())}
	}
	assert.Equal(t, want, got)
}

func lower(t dto.MetricType) string {
	return map[dto.MetricType]string{
		dto.MetricType_COUNTER:   typeCounter,
		dto.MetricType_GAUGE:     typeGauge,
		dto.MetricType_HISTOGRAM: typeHistogram,
		dto.MetricType_SUMMARY:   typeSummary,
		dto.MetricType_UNTYPED:   typeUntyped,
	}[t]
}

func TestExpositionFormatIsReadAndWrittenBack(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, out string }{
		"an empty file": {"", ""},
		"comments and blank lines are dropped": {
			"# written by backup.sh\n\n  \t\n#\n# help foo lowercase is a comment\nfoo 1\n",
			"# TYPE foo untyped\nfoo 1\n"},
		"HELP and TYPE in either order, before the samples": {
			"# TYPE foo counter\n# HELP foo Says \\\"hi\\\", a \\\\ and a\\nnewline.  \nfoo 3\n",
			"# HELP foo Says \"hi\", a \\\\ and a\\nnewline.  \n# TYPE foo counter\nfoo 3\n"},
		"an empty HELP is no HELP": {
			"# HELP foo \n# HELP foo\n# HELP foo text\nfoo 1\n",
			"# HELP foo text\n# TYPE foo untyped\nfoo 1\n"},
		"families come out by name, samples in file order": {
			"b{x=\"2\"} 2\nb{x=\"1\"} 1\na 0\nb{x=\"2\"} 2\n",
			"# TYPE a untyped\na 0\n# TYPE b untyped\nb{x=\"2\"} 2\nb{x=\"1\"} 1\nb{x=\"2\"} 2\n"},
		"samples of one family need not be together": {
			"# TYPE a gauge\na{x=\"1\"} 1\nb 2\na{x=\"2\"} 3\n",
			"# TYPE a gauge\na{x=\"1\"} 1\na{x=\"2\"} 3\n# TYPE b untyped\nb 2\n"},
		"blanks and tabs between tokens, a trailing comma, empty braces": {
			"  foo { a = \"1\" ,\tb=\"2\", }\t5   1700000000000\nbar{} 1\nbaz{a=\"1\"}2\n",
			"# TYPE bar untyped\nbar 1\n# TYPE baz untyped\nbaz{a=\"1\"} 2\n# TYPE foo untyped\nfoo{a=\"1\",b=\"2\"} 5 1700000000000\n"},
		"label values with escapes and any UTF-8": {
			"foo{a=\"say \\\"hi\\\"\\\\\\nbye, {x=\\\"1\\\"}\",b=\"ünï\tcödé\"} 1\n",
			"# TYPE foo untyped\nfoo{a=\"say \\\"hi\\\"\\\\\\nbye, {x=\\\"1\\\"}\",b=\"ünï\tcödé\"} 1\n"},
		"special and exact values": {
			"a NaN\nb +Inf\nc -Inf\nd -0\ne 1.767323056594e+09\nf .5\ng 1E3\nh 0.1 -5\n",
			"# TYPE a untyped\na NaN\n# TYPE b untyped\nb +Inf\n# TYPE c untyped\nc -Inf\n# TYPE d untyped\nd -0\n" +
				"# TYPE e untyped\ne 1.767323056594e+09\n# TYPE f untyped\nf 0.5\n# TYPE g untyped\ng 1000\n# TYPE h untyped\nh 0.1 -5\n"},
		"a histogram keeps its buckets, sum and count": {
			"# HELP rt Request time.\n# TYPE rt histogram\nrt_bucket{le=\"0.1\"} 1\nrt_bucket{le=\"+Inf\"} 3\nrt_sum 4.5\nrt_count 3\n",
			"# HELP rt Request time.\n# TYPE rt histogram\nrt_bucket{le=\"0.1\"} 1\nrt_bucket{le=\"+Inf\"} 3\nrt_sum 4.5\nrt_count 3\n"},
		"a summary keeps its quantiles, sum and count": {
			"# TYPE rt summary\nrt{quantile=\"0.5\",path=\"/\"} 0.2\nrt_sum{path=\"/\"} 9\nrt_count{path=\"/\"} 30\n",
			"# TYPE rt summary\nrt{quantile=\"0.5\",path=\"/\"} 0.2\nrt_sum{path=\"/\"} 9\nrt_count{path=\"/\"} 30\n"},
		"a _count without a histogram or summary is a family of its own": {
			"# TYPE jobs counter\njobs_count 3\njobs 1\n",
			"# TYPE jobs counter\njobs 1\n# TYPE jobs_count untyped\njobs_count 3\n"},
		"UTF-8 names in quotes, plain names unquoted": {
			"# HELP \"my.metric\" Dotted.\n# TYPE \"my.metric\" gauge\n{\"my.metric\",\"my.label\"=\"x\",\"a\"=\"y\"} 1\n{\"plain\"} 2\n{ \"my.metric\" , } 3\n",
			"# HELP \"my.metric\" Dotted.\n# TYPE \"my.metric\" gauge\n{\"my.metric\",\"my.label\"=\"x\",a=\"y\"} 1\n{\"my.metric\"} 3\n# TYPE plain untyped\nplain 2\n"},
		// prometheus/common v0.73.1 panics on this one (a nil map), so
		// the old --metrics-file writer crashed on a file holding it.
		"a UTF-8 histogram sample right after another family": {
			"# TYPE h histogram\n# TYPE g gauge\ng 1\n{\"h_bucket\",a=\"b\",le=\"1\"} 1\n",
			"# TYPE g gauge\ng 1\n# TYPE h histogram\nh_bucket{a=\"b\",le=\"1\"} 1\n"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			families, err := parseExposition([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.out, string(appendExposition(nil, families)))
			checkAccepted(t, []byte(tc.in), families)
		})
	}
}

func TestExpositionValuesReadExactly(t *testing.T) {
	t.Parallel()
	families, err := parseExposition([]byte("a NaN\nb +Inf\nc -Inf\nd 0.1\ne{x=\"1\"} -2 17\n"))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(families["a"].samples[0].value))
	assert.Equal(t, math.Inf(1), families["b"].samples[0].value)
	assert.Equal(t, math.Inf(-1), families["c"].samples[0].value)
	assert.Equal(t, 0.1, families["d"].samples[0].value)
	assert.Equal(t, &metricSample{name: "e", labels: []labelPair{{"x", "1"}}, value: -2, timestamp: 17, hasTimestamp: true},
		families["e"].samples[0])
}

func TestExpositionThatIsNotValidIsRejected(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ in, err string }{
		"no newline at the end":             {"foo 1", "line 1: the file does not end in a newline"},
		"binary garbage":                    {"\x00\x01\x02\n", "line 1: a sample line must start with a metric name"},
		"carriage returns":                  {"foo 1\r\n", `value "1\r" is not a number`},
		"an unclosed brace":                 {"foo{a=\"1\" 12\n", "expected ',' or '}' after label a"},
		"an unterminated label value":       {"foo{a=\"1} 12\n", "unterminated quoted string"},
		"an unquoted label value":           {"foo{a=1} 12\n", "the value of label a must be quoted"},
		"no '=' after a label name":         {"foo{a} 12\n", "expected '=' after label name a"},
		"a leading comma":                   {"foo{,a=\"1\"} 12\n", "expected a label name or '}'"},
		"an unknown escape":                 {"foo{a=\"\\t\"} 1\n", `invalid escape sequence \t`},
		"a label value not UTF-8":           {"foo{a=\"\xff\"} 1\n", "not valid UTF-8"},
		"a HELP not UTF-8":                  {"# HELP foo \xff\nfoo 1\n", "not valid UTF-8"},
		"a HELP ending in a backslash":      {"# HELP foo a\\\nfoo 1\n", `lone \`},
		"the reserved label __name__":       {"foo{__name__=\"bar\"} 1\n", "reserved"},
		"a label twice":                     {"foo{a=\"1\",a=\"2\"} 1\n", "second label a"},
		"no value":                          {"foo\n", "expected a value"},
		"no value after the labels":         {"foo{a=\"1\"}\n", "expected a value"},
		"a value that is a word":            {"foo bar\n", `value "bar" is not a number`},
		"inf in lower case":                 {"foo inf\n", `value "inf" is not a number`},
		"Inf without a sign":                {"foo Inf\n", `value "Inf" is not a number`},
		"a hexadecimal value":               {"foo 0x1p3\n", "not a number"},
		"underscores in a value":            {"foo 1_000\n", "not a number"},
		"a value out of range":              {"foo 1e999\n", "not a number"},
		"a metric name that runs on":        {"foo-1 2\n", "must start with a metric name"},
		"a name starting with a digit":      {"1foo 2\n", "must start with a metric name"},
		"a blank after the value":           {"foo 1 \n", "timestamp \"\" is not an integer"},
		"a timestamp that is a float":       {"foo 1 1.5\n", `timestamp "1.5" is not an integer`},
		"text after the timestamp":          {"foo 1 2 3\n", `unexpected " 3" after the timestamp`},
		"a quoted name outside braces":      {"\"my.metric\" 1\n", "must start with a metric name"},
		"an unquoted name in braces":        {"{foo} 1\n", "a metric name in braces must be quoted"},
		"braces without a name":             {"{a=\"b\"} 1\n", "a metric name in braces must be quoted"},
		"an empty quoted name":              {"{\"\"} 1\n", "empty metric name"},
		"two names":                         {"{\"a\",\"b\"} 1\n", "expected '=' after label name b"},
		"a second HELP":                     {"# HELP foo a\n# HELP foo b\nfoo 1\n", "line 2: second HELP line for foo"},
		"a second TYPE":                     {"# TYPE foo gauge\n# TYPE foo gauge\nfoo 1\n", "line 2: second TYPE line for foo"},
		"a TYPE after the samples":          {"foo 1\n# TYPE foo gauge\n", "line 2: TYPE line for foo after its samples"},
		"an unknown type":                   {"# TYPE foo gaugehistogram\nfoo 1\n", "is not counter, gauge"},
		"a type in capitals":                {"# TYPE foo Counter\nfoo 1\n", `"Counter" is not counter`},
		"a TYPE without a type":             {"# TYPE foo\nfoo 1\n", `"" is not counter`},
		"text after the type":               {"# TYPE foo counter extra\nfoo 1\n", `"counter extra"`},
		"a HELP with an invalid name":       {"# HELP\tfoo.bar x\n", "HELP line without a valid metric name"},
		"a TYPE without a name":             {"# TYPE\n", "TYPE line without a valid metric name"},
		"a histogram bucket without le":     {"# TYPE h histogram\nh_bucket 1\n", "needs the le label"},
		"a histogram bound not a number":    {"# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", "label le: value \"x\" is not a number"},
		"a histogram sum with le":           {"# TYPE h histogram\nh_sum{le=\"1\"} 1\n", "must not have the le label"},
		"a histogram sample named h":        {"# TYPE h histogram\nh 1\n", "not a sample name of the histogram h"},
		"a negative histogram count":        {"# TYPE h histogram\nh_count -1\n", "negative count"},
		"a summary sample without quantile": {"# TYPE s summary\ns 1\n", "needs the quantile label"},
		"a summary count with quantile":     {"# TYPE s summary\ns_count{quantile=\"1\"} 1\n", "must not have the quantile label"},
		"a family named like a summary's sum": {
			"# TYPE s summary\ns{quantile=\"1\"} 1\n# TYPE s_sum gauge\ns_sum 1\n",
			"s_sum is also a sample name of the summary s"},
		"a HELP for a histogram's bucket": {
			"# TYPE h histogram\n# HELP h_bucket Buckets.\nh_bucket{le=\"1\"} 1\n",
			"h_bucket is also a sample name of the histogram h"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := parseExposition([]byte(tc.in))
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// FuzzReadMetrics checks that parseExposition never panics and that
// whatever it accepts is written so that it reads back the same, and so
// that node_exporter's parser reads it; and that counting a run into an
// accepted file keeps it valid.
func FuzzReadMetrics(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "metrics.golden"))
	require.NoError(f, err)
	for _, seed := range []string{
		string(golden),
		"",
		"# HELP backup_last_success_timestamp_seconds Set by the backup script.\n" +
			"# TYPE backup_last_success_timestamp_seconds gauge\n" +
			"backup_last_success_timestamp_seconds{job=\"db\"} 1.7e+09\n",
		"foo{a=\"say \\\"hi\\\"\\\\\\nbye\",b=\"ü\"} NaN 1700000000000\nbar +Inf\nbaz -Inf\n",
		"# TYPE rt histogram\nrt_bucket{le=\"0.1\"} 1\nrt_bucket{le=\"+Inf\"} 3\nrt_sum 4.5\nrt_count 3\n",
		"# TYPE rt summary\nrt{quantile=\"0.5\"} 0.2\nrt_sum 9\nrt_count 30\n",
		"# HELP \"my.metric\" Dotted.\n# TYPE \"my.metric\" gauge\n{\"my.metric\",\"my.label\"=\"x\"} 1\n",
		"  foo { a = \"1\" ,\tb=\"2\", }\t5   1700000000000\n# comment\n\n",
		"# TYPE retry_attempts_total gauge\nretry_attempts_total{name=\"curl\"} 12\n",
		"retry_attempts_total{name=\"curl\" 12\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		families, err := parseExposition(data)
		if err != nil {
			return
		}
		checkAccepted(t, data, families)

		for name, fam := range families {
			if _, typ, ok := metricSpec(name); ok && fam.typ != typ {
				return // readMetrics replaces such a file
			}
		}
		m := &MetricsFile{Name: "curl"}
		m.add(families, endings()["success after a retry"])
		written := appendExposition(nil, families)
		_, err = parseExposition(written)
		require.NoError(t, err, "reading back a run counted into the file:\n%s", written)
		_, err, panicked := expfmtParse(written)
		require.False(t, panicked)
		require.NoError(t, err, "expfmt rejects a run counted into the file:\n%s", written)
	})
}
