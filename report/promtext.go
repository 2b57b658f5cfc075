package report

// The Prometheus text exposition format (version 0.0.4), as far as
// MetricsFile needs it: it writes its file whole from its state, and reads
// the file once, when it finds no state beside it, to carry on the counts
// that releases before the state file kept in the file itself. That reader
// (seedMetrics) knows only what MetricsFile writes. The binary does not
// link prometheus/common, and protobuf with it, for this; the tests check
// what is written with that parser.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendExposition appends st in the text exposition format: the five
// metrics by name, each with its HELP and TYPE lines and a series for each
// name, names in order; retry_runs_total has a series for each outcome the
// name has, outcomes in order.
func appendExposition(b []byte, st *metricsState) []byte {
	names := sortedQuoted(st.Names)
	escape := strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	for _, metric := range metricNames() {
		help, typ, _ := metricSpec(metric)
		b = fmt.Appendf(b, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric, typ)
		for _, name := range names {
			s := st.Names[name]
			if metric != metricRuns {
				b = appendSample(b, escape, metric, *s.value(metric), "name", name)
				continue
			}
			for _, outcome := range sortedQuoted(s.Runs) {
				b = appendSample(b, escape, metric, s.Runs[outcome], "name", name, "outcome", outcome)
			}
		}
	}
	return b
}

// sortedQuoted returns m's keys in the order of their quoted forms, the
// order earlier releases wrote label values in.
func sortedQuoted[V any](m map[string]V) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Compare(strconv.Quote(a), strconv.Quote(b))
	})
}

// appendSample appends one sample line, label values escaped; labels are
// name, value pairs.
func appendSample(b []byte, escape *strings.Replacer, metric string, v float64, labels ...string) []byte {
	b = append(b, metric...)
	for i := 0; i < len(labels); i += 2 {
		b = fmt.Appendf(b, `%c%s="%s"`, "{,"[min(i, 1)], labels[i], escape.Replace(labels[i+1]))
	}
	b = append(b, "} "...)
	return append(strconv.AppendFloat(b, v, 'g', -1, 64), '\n')
}

// errForeign says that a file held more than MetricsFile's metrics.
var errForeign = errors.New("not one of retry's metrics")

// seedMetrics reads into st the series of a file that an earlier release
// wrote. It fails, naming the line, on a sample of one of MetricsFile's
// metrics that it cannot read, or a TYPE line that gives one of them
// another type. Any other line but a comment (another metric, text that is
// not the format) is left out, and then the error wraps errForeign, naming
// the first such line, with st filled all the same.
func seedMetrics(data []byte, st *metricsState) error {
	var foreign error
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		err := seedLine(strings.Trim(line, " \t\n"), st)
		if errors.Is(err, errForeign) {
			foreign = cmp.Or(foreign, fmt.Errorf("line %d: %w", n, err))
		} else if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return foreign
}

func seedLine(line string, st *metricsState) error {
	if comment, ok := strings.CutPrefix(line, "#"); ok {
		w := strings.Fields(comment)
		if len(w) < 2 || w[0] != "HELP" && w[0] != "TYPE" {
			return nil // a plain comment
		}
		_, typ, ours := metricSpec(w[1])
		switch {
		case !ours:
			return errForeign
		case w[0] == "TYPE" && (len(w) != 3 || w[2] != typ):
			return fmt.Errorf("%s is not a %s", w[1], typ)
		}
		return nil
	}
	if line == "" {
		return nil
	}
	metric := line[:strings.IndexAny(line+"{", "{ \t")]
	if _, _, ours := metricSpec(metric); !ours {
		return errForeign
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(line[len(metric):], " \t"), "{")
	if !ok {
		return fmt.Errorf("%s without its labels", metric)
	}
	labels := map[string]string{}
	for {
		if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "}"); ok {
			break
		}
		name, value, after, err := readLabel(rest)
		if _, twice := labels[name]; err == nil && twice {
			err = fmt.Errorf("label %s twice", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", metric, err)
		}
		labels[name], rest = value, after
	}
	fields := strings.Fields(rest) // a value and perhaps a timestamp, ignored
	if len(fields) == 0 || len(fields) > 2 {
		return fmt.Errorf("%s: expected a value, and at most a timestamp, after the labels", metric)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%s: value %q is not a number of 0 or more", metric, fields[0])
	}
	want := []string{"name"}
	if metric == metricRuns {
		want = append(want, "outcome")
	}
	if got := slices.Sorted(maps.Keys(labels)); !slices.Equal(got, want) {
		return fmt.Errorf("%s: labels %q, not %q", metric, got, want)
	}
	if s := st.series(labels["name"]); metric == metricRuns {
		s.Runs[labels["outcome"]] = v
	} else {
		*s.value(metric) = v
	}
	return nil
}

// readLabel reads name="value" and what follows, up to a comma or the
// closing brace, from s; the value has the escapes \\, \" and \n and is
// UTF-8.
func readLabel(s string) (name, value, rest string, err error) {
	name, rest, _ = strings.Cut(s, "=")
	name = strings.Trim(name, " \t")
	if !isLabelName(name) {
		return "", "", "", errors.New("expected a label name and '='")
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), `"`)
	if !ok {
		return "", "", "", fmt.Errorf("the value of label %s is not quoted", name)
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '\\' && i+1 < len(rest) {
			i++
			c = map[byte]byte{'\\': '\\', '"': '"', 'n': '\n'}[rest[i]]
			if c == 0 {
				return "", "", "", fmt.Errorf("label %s: invalid escape", name)
			}
		} else if c == '"' {
			rest, value = strings.TrimLeft(rest[i+1:], " \t"), b.String()
			if r, comma := strings.CutPrefix(rest, ","); comma {
				rest = r
			} else if !strings.HasPrefix(rest, "}") {
				return "", "", "", fmt.Errorf("expected ',' or '}' after label %s", name)
			}
			if !utf8.ValidString(value) {
				return "", "", "", fmt.Errorf("label %s: value not UTF-8", name)
			}
			return name, value, rest, nil
		}
		b.WriteByte(c)
	}
	return "", "", "", fmt.Errorf("label %s: unterminated value", name)
}

// isLabelName reports whether s is a label name, [a-zA-Z_][a-zA-Z0-9_]*.
func isLabelName(s string) bool {
	for i, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
