package report

// A small, strict reader and writer of the Prometheus text exposition format
// (version 0.0.4), the format node_exporter's textfile collector reads. It
// exists so that the retry binary does not link prometheus/common and, with
// it, protobuf: MetricsFile needs only to read a file, change a few numbers
// and write it back.
//
// The reader accepts the format as its specification describes it, UTF-8
// names in quotes included ({"my.metric", "my.label"="v"}), and also a
// family whose samples are not all together, which node_exporter reads
// too. It rejects the rest, including what node_exporter's parser lets
// through but the specification does not (a type in capitals, a metric
// name that runs into its value, a histogram bucket without its le label):
// a file retry rejects is replaced with a warning, while a file it misread
// would be rewritten wrong without one. So a file it accepts is one
// node_exporter reads the same way, and what it writes node_exporter reads
// too; the tests check both against prometheus/common's parser. Plain
// comments are dropped, as node_exporter drops them.
//
// Samples keep their own names, so a histogram's _bucket, _sum and _count
// samples, or a summary's, stay in their family and are written back in
// the order they were read; nothing but MetricsFile's own series is
// reinterpreted.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The metric types of the text format, as its TYPE lines spell them.
const (
	typeCounter   = "counter"
	typeGauge     = "gauge"
	typeHistogram = "histogram"
	typeSummary   = "summary"
	typeUntyped   = "untyped"
)

// A metricFamily is the samples that share a metric name, with the HELP
// and TYPE lines for that name.
type metricFamily struct {
	name string
	help string // "" when there is no HELP line
	typ  string // one of the type constants; "" only while parsing, before a TYPE line or sample
	// samples are in file order. A counter's, gauge's or untyped family's
	// samples are named like the family; a histogram's and a summary's
	// carry their suffix (_bucket, _sum, _count).
	samples []*metricSample
}

// A metricSample is one sample line.
type metricSample struct {
	name         string
	labels       []labelPair // in file order
	value        float64
	timestamp    int64 // milliseconds since the Unix epoch, if hasTimestamp
	hasTimestamp bool
}

type labelPair struct{ name, value string }

// parseExposition reads data as the text exposition format. It returns the
// families that have at least one sample, by name, or an error that names
// the first line that is not valid.
func parseExposition(data []byte) (map[string]*metricFamily, error) {
	p := expositionParser{families: map[string]*metricFamily{}}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		text, ok := strings.CutSuffix(line, "\n")
		if !ok {
			return nil, fmt.Errorf("line %d: the file does not end in a newline", n)
		}
		if err := p.line(text); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	for name := range p.families {
		if owner := p.owner(name); owner != nil {
			return nil, fmt.Errorf("%s is also a sample name of the %s %s", quoteName(name), owner.typ, quoteName(owner.name))
		}
	}
	for name, f := range p.families {
		if len(f.samples) == 0 {
			delete(p.families, name)
		}
	}
	return p.families, nil
}

type expositionParser struct {
	families map[string]*metricFamily
}

func (p *expositionParser) line(line string) error {
	line = trimBlanks(line)
	switch {
	case line == "":
		return nil
	case line[0] == '#':
		return p.comment(line[1:])
	default:
		return p.sample(line)
	}
}

// comment reads what follows a '#': a HELP line, a TYPE line, or a plain
// comment, which it ignores.
func (p *expositionParser) comment(s string) error {
	s = trimBlanks(s)
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	keyword := s[:end]
	if keyword != "HELP" && keyword != "TYPE" {
		return nil
	}
	s = trimBlanks(s[end:])
	var name string
	var err error
	if strings.HasPrefix(s, `"`) {
		name, s, err = readQuoted(s)
		if err != nil {
			return fmt.Errorf("metric name in %s line: %w", keyword, err)
		}
	} else {
		name, s = readName(s, isMetricNameByte)
	}
	if name == "" || s != "" && !isBlank(s[0]) {
		return fmt.Errorf("%s line without a valid metric name", keyword)
	}
	s = trimBlanks(s)

	if keyword == "HELP" {
		help, err := unescapeHelp(s)
		if err != nil {
			return fmt.Errorf("HELP for %s: %w", quoteName(name), err)
		}
		f := p.family(name)
		if help == "" {
			return nil // an empty HELP says nothing, but names a family
		}
		if f.help != "" {
			return fmt.Errorf("second HELP line for %s", quoteName(name))
		}
		f.help = help
		return nil
	}
	switch s {
	case typeCounter, typeGauge, typeHistogram, typeSummary, typeUntyped:
	default:
		return fmt.Errorf("TYPE for %s: %q is not counter, gauge, histogram, summary or untyped", quoteName(name), s)
	}
	f := p.family(name)
	switch {
	case len(f.samples) > 0:
		return fmt.Errorf("TYPE line for %s after its samples", quoteName(name))
	case f.typ != "":
		return fmt.Errorf("second TYPE line for %s", quoteName(name))
	}
	f.typ = s
	return nil
}

// sample reads a sample line:
//
//	name [{label="value",…}] value [timestamp]
//	{"name"[, label="value",…]} value [timestamp]
func (p *expositionParser) sample(s string) error {
	var name string
	var labels []labelPair
	var err error
	if s[0] == '{' {
		s = trimBlanks(s[1:])
		if !strings.HasPrefix(s, `"`) {
			return errors.New("a metric name in braces must be quoted")
		}
		if name, s, err = readQuoted(s); err != nil {
			return fmt.Errorf("metric name: %w", err)
		}
		if name == "" {
			return errors.New("empty metric name")
		}
		s = trimBlanks(s)
		switch {
		case strings.HasPrefix(s, ","):
			labels, s, err = readLabels(s[1:])
		case strings.HasPrefix(s, "}"):
			s = s[1:]
		default:
			err = fmt.Errorf("expected ',' or '}' after metric name %s", quoteName(name))
		}
	} else {
		name, s = readName(s, isMetricNameByte)
		if name == "" || s != "" && !isBlank(s[0]) && s[0] != '{' {
			return errors.New("a sample line must start with a metric name")
		}
		s = trimBlanks(s)
		if strings.HasPrefix(s, "{") {
			labels, s, err = readLabels(s[1:])
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", quoteName(name), err)
	}

	sm := &metricSample{name: name, labels: labels}
	valueText, s := readToken(trimBlanks(s))
	if sm.value, err = parseValue(valueText); err != nil {
		return fmt.Errorf("%s: %w", quoteName(name), err)
	}
	if s != "" {
		stamp, rest := readToken(trimBlanks(s))
		if rest != "" {
			return fmt.Errorf("%s: unexpected %q after the timestamp", quoteName(name), rest)
		}
		if sm.timestamp, err = strconv.ParseInt(stamp, 10, 64); err != nil {
			return fmt.Errorf("%s: timestamp %q is not an integer", quoteName(name), stamp)
		}
		sm.hasTimestamp = true
	}

	f := p.familyOf(name)
	if f.typ == "" {
		f.typ = typeUntyped
	}
	if err := checkSample(f, sm); err != nil {
		return fmt.Errorf("%s: %w", quoteName(name), err)
	}
	f.samples = append(f.samples, sm)
	return nil
}

// family returns the family called name, made empty if there is none.
func (p *expositionParser) family(name string) *metricFamily {
	f := p.families[name]
	if f == nil {
		f = &metricFamily{name: name}
		p.families[name] = f
	}
	return f
}

// familyOf returns the family a sample called name belongs to: the family
// of that name, else the histogram or summary whose samples have names
// like it, else a new family.
func (p *expositionParser) familyOf(name string) *metricFamily {
	if f := p.families[name]; f != nil {
		return f
	}
	if f := p.owner(name); f != nil {
		return f
	}
	return p.family(name)
}

// owner returns the histogram or summary family whose samples may be called
// name (foo for foo_bucket, foo_sum, foo_count), or nil.
func (p *expositionParser) owner(name string) *metricFamily {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		f := p.families[base]
		if f != nil && (f.typ == typeHistogram || f.typ == typeSummary && suffix != "_bucket") {
			return f
		}
	}
	return nil
}

// checkSample rejects a sample that does not fit its family's type: a
// histogram has only _bucket samples with an le label, and _sum and _count
// samples without one; a summary has samples named like it with a quantile
// label, and _sum and _count samples without one. Bucket counts and
// histogram counts are not negative.
func checkSample(f *metricFamily, s *metricSample) error {
	var special string // the label that bounds a bucket or names a quantile
	switch f.typ {
	case typeHistogram:
		special = "le"
	case typeSummary:
		special = "quantile"
	default:
		return nil
	}
	i := slices.IndexFunc(s.labels, func(l labelPair) bool { return l.name == special })
	suffix := strings.TrimPrefix(s.name, f.name)
	switch {
	case f.typ == typeHistogram && suffix == "_bucket" || f.typ == typeSummary && suffix == "":
		if i < 0 {
			return fmt.Errorf("a sample of the %s %s needs the %s label", f.typ, quoteName(f.name), special)
		}
		if _, err := parseValue(s.labels[i].value); err != nil {
			return fmt.Errorf("label %s: %w", special, err)
		}
	case suffix == "_sum" || suffix == "_count":
		if i >= 0 {
			return fmt.Errorf("the %s sample of the %s %s must not have the %s label", suffix, f.typ, quoteName(f.name), special)
		}
	default:
		return fmt.Errorf("not a sample name of the %s %s", f.typ, quoteName(f.name))
	}
	if f.typ == typeHistogram && suffix != "_sum" && s.value < 0 {
		return fmt.Errorf("negative count in the histogram %s", quoteName(f.name))
	}
	return nil
}

// readLabels reads label pairs up to and including the closing brace; the
// opening brace, or the comma after a quoted metric name, is already read.
// It returns what follows the brace.
func readLabels(s string) (labels []labelPair, rest string, err error) {
	for {
		s = trimBlanks(s)
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], nil
		}
		var name string
		if strings.HasPrefix(s, `"`) {
			if name, s, err = readQuoted(s); err != nil {
				return nil, "", fmt.Errorf("label name: %w", err)
			}
		} else {
			name, s = readName(s, isLabelNameByte)
		}
		switch {
		case name == "":
			return nil, "", errors.New("expected a label name or '}'")
		case name == "__name__":
			return nil, "", errors.New("label name __name__ is reserved")
		case slices.ContainsFunc(labels, func(l labelPair) bool { return l.name == name }):
			return nil, "", fmt.Errorf("second label %s", quoteLabel(name))
		}
		s = trimBlanks(s)
		if !strings.HasPrefix(s, "=") {
			return nil, "", fmt.Errorf("expected '=' after label name %s", quoteLabel(name))
		}
		s = trimBlanks(s[1:])
		if !strings.HasPrefix(s, `"`) {
			return nil, "", fmt.Errorf("the value of label %s must be quoted", quoteLabel(name))
		}
		var value string
		if value, s, err = readQuoted(s); err != nil {
			return nil, "", fmt.Errorf("label %s: %w", quoteLabel(name), err)
		}
		labels = append(labels, labelPair{name, value})
		s = trimBlanks(s)
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "}"):
		default:
			return nil, "", fmt.Errorf("expected ',' or '}' after label %s", quoteLabel(name))
		}
	}
}

// readQuoted reads a double-quoted string with the escapes \\, \" and \n,
// which must be valid UTF-8 and, if it names something, not empty. It
// returns the string and what follows the closing quote.
func readQuoted(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			value = b.String()
			if !utf8.ValidString(value) {
				return "", "", fmt.Errorf("%q is not valid UTF-8", value)
			}
			return value, s[i+1:], nil
		case '\\':
			i++
			if i == len(s) {
				return "", "", errors.New("unterminated quoted string")
			}
			c, err := unescape(s[i])
			if err != nil {
				return "", "", err
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated quoted string")
}

// unescapeHelp reads a HELP line's docstring: any UTF-8 text with the
// escapes \\ and \n (and \", which node_exporter accepts too).
func unescapeHelp(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", errors.New("the text is not valid UTF-8")
	}
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i == len(s) {
			return "", errors.New(`the text ends in a lone \`)
		}
		c, err := unescape(s[i])
		if err != nil {
			return "", err
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// unescape returns the byte that the escape sequence \c stands for in a
// label value or a HELP text: \\, \" or \n.
func unescape(c byte) (byte, error) {
	switch c {
	case '\\', '"':
		return c, nil
	case 'n':
		return '\n', nil
	}
	return 0, fmt.Errorf("invalid escape sequence \\%c", c)
}

// parseValue reads a sample value: a decimal floating-point number, NaN,
// +Inf or -Inf. It rejects the other spellings strconv.ParseFloat knows
// (inf, nan, hexadecimal, underscores) and numbers out of range.
func parseValue(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	}
	if s == "" {
		return 0, errors.New("expected a value")
	}
	if strings.ContainsFunc(s, func(r rune) bool {
		return !('0' <= r && r <= '9' || r == '.' || r == 'e' || r == 'E' || r == '+' || r == '-')
	}) {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	return v, nil
}

// readName reads the longest prefix of s that is an unquoted name made of
// bytes ok accepts, not starting with a digit.
func readName(s string, ok func(byte) bool) (name, rest string) {
	i := 0
	for i < len(s) && ok(s[i]) && !(i == 0 && isDigit(s[i])) {
		i++
	}
	return s[:i], s[i:]
}

// readToken reads up to the next blank.
func readToken(s string) (token, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

func trimBlanks(s string) string { return strings.TrimLeft(s, " \t") }

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isLabelNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || isDigit(c)
}

func isMetricNameByte(c byte) bool { return isLabelNameByte(c) || c == ':' }

// isPlainName reports whether name can be written without quotes, ok
// saying which bytes may appear in it.
func isPlainName(name string, ok func(byte) bool) bool {
	n, rest := readName(name, ok)
	return n != "" && rest == ""
}

// quoteName and quoteLabel spell a name for an error message as the file
// would.
func quoteName(name string) string  { return string(appendName(nil, name, isMetricNameByte)) }
func quoteLabel(name string) string { return string(appendName(nil, name, isLabelNameByte)) }

// appendExposition appends the families in the text exposition format:
// families by name, each with its HELP line if it has one, its TYPE line
// and its samples in order. A family without samples is left out, as the
// format cannot say it exists.
func appendExposition(b []byte, families map[string]*metricFamily) []byte {
	names := make([]string, 0, len(families))
	for name, f := range families {
		if len(f.samples) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		f := families[name]
		if f.help != "" {
			b = append(b, "# HELP "...)
			b = appendName(b, f.name, isMetricNameByte)
			b = append(b, ' ')
			b = appendEscaped(b, f.help, false)
			b = append(b, '\n')
		}
		b = append(b, "# TYPE "...)
		b = appendName(b, f.name, isMetricNameByte)
		b = append(b, ' ')
		b = append(b, f.typ...)
		b = append(b, '\n')
		for _, s := range f.samples {
			b = appendSample(b, s)
		}
	}
	return b
}

func appendSample(b []byte, s *metricSample) []byte {
	sep := byte('{')
	if isPlainName(s.name, isMetricNameByte) {
		b = append(b, s.name...)
	} else {
		b = append(b, sep)
		b = appendName(b, s.name, isMetricNameByte)
		sep = ','
	}
	for _, l := range s.labels {
		b = append(b, sep)
		b = appendName(b, l.name, isLabelNameByte)
		b = append(b, `="`...)
		b = appendEscaped(b, l.value, true)
		b = append(b, '"')
		sep = ','
	}
	if sep == ',' {
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendValue(b, s.value)
	if s.hasTimestamp {
		b = append(b, ' ')
		b = strconv.AppendInt(b, s.timestamp, 10)
	}
	return append(b, '\n')
}

// appendName appends name as is if it is a plain name, else quoted.
func appendName(b []byte, name string, ok func(byte) bool) []byte {
	if isPlainName(name, ok) {
		return append(b, name...)
	}
	b = append(b, '"')
	b = appendEscaped(b, name, true)
	return append(b, '"')
}

// appendEscaped appends s with backslash and newline escaped, and the
// double quote too if quoted.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendValue appends v in the shortest form that reads back exactly.
func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
