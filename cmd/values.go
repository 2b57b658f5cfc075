package cmd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ParseDuration reads a duration as Go writes it ("250ms", "1m30s"), as a
// plain number of seconds ("2", "0.5"), or with a day suffix in front
// ("1d", "1d12h"), as GNU timeout takes one. Negative, non-finite and
// out-of-range values are errors.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && isPlainNumber(s) {
		if math.IsNaN(secs) || secs < 0 {
			return 0, errors.New("negative duration")
		}
		if secs*float64(time.Second) > math.MaxInt64 {
			return 0, errors.New("duration too long")
		}
		return time.Duration(math.Round(secs * float64(time.Second))), nil
	}
	if days, rest, ok := strings.Cut(s, "d"); ok && isPlainNumber(days) {
		return withDays(days, rest)
	}
	d, err := time.ParseDuration(s)
	if err != nil && inGoSyntax(s) {
		return 0, errors.New("duration too long") // refused for its size alone
	}
	if err != nil {
		return 0, errors.New("not a duration")
	}
	if d < 0 {
		return 0, errors.New("negative duration")
	}
	return d, nil
}

// inGoSyntax reports whether s is written as time.ParseDuration reads
// durations: numbers, each with at most one dot, each followed by a
// unit, with an optional "+" in front.
func inGoSyntax(s string) bool {
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return false
	}
	isNum := func(c byte) bool { return c >= '0' && c <= '9' || c == '.' }
	for s != "" {
		i := 0
		for i < len(s) && isNum(s[i]) {
			i++
		}
		if i == 0 || strings.Count(s[:i], ".") > 1 || s[:i] == "." {
			return false
		}
		s = s[i:]
		j := 0
		for j < len(s) && !isNum(s[j]) {
			j++
		}
		switch s[:j] {
		case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
		default:
			return false
		}
		s = s[j:]
	}
	return true
}

// withDays reads a duration with a day suffix, as GNU timeout takes one:
// "1d", "1.5d", or days followed by Go's syntax ("1d12h").
func withDays(days, rest string) (time.Duration, error) {
	n, err := strconv.ParseFloat(days, 64)
	if err != nil || days == "" || days == "-" {
		return 0, errors.New("not a duration")
	}
	if n < 0 {
		return 0, errors.New("negative duration")
	}
	var more time.Duration
	if rest != "" {
		if more, err = time.ParseDuration(rest); err != nil || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
			return 0, errors.New("not a duration")
		}
	}
	total := n*float64(24*time.Hour) + float64(more)
	if total >= math.MaxInt64 {
		return 0, errors.New("duration too long")
	}
	return time.Duration(math.Round(total)), nil
}

// isPlainNumber accepts digits with at most one dot, so that ParseFloat's
// other forms (hex, exponents, "inf", "nan", underscores) are not taken as
// seconds.
func isPlainNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	dots := 0
	for _, r := range s {
		switch {
		case r == '.':
			dots++
		case r < '0' || r > '9':
			return false
		}
	}
	return dots <= 1 && s != "."
}

const wantDuration = "want a duration such as 250ms, 1m30s, 1d12h or a number of seconds such as 2.5"

// durationValue is a flag holding a duration in ParseDuration's syntax.
type durationValue struct {
	d    *time.Duration
	flag string
}

func (v durationValue) Set(s string) error {
	d, err := ParseDuration(s)
	if err != nil {
		return &UsageError{Flag: "--" + v.flag, Value: s, Err: err, Want: wantDuration}
	}
	*v.d = d
	return nil
}

func (v durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return "0"
	}
	return v.d.String()
}

func (durationValue) Type() string { return "duration" }

// positiveDurationValue is a duration flag that must be above 0 when given.
type positiveDurationValue struct{ durationValue }

func (v positiveDurationValue) Set(s string) error {
	d, err := ParseDuration(s)
	if err == nil && d <= 0 {
		return &UsageError{Flag: "--" + v.flag, Value: d.String(), Want: "want a duration above 0, such as 250ms"}
	}
	return v.durationValue.Set(s)
}

// countValue is a flag holding a count: a whole number, 0 or more.
type countValue struct {
	n    *int
	flag string
}

func (v countValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return &UsageError{Flag: "--" + v.flag, Value: s, Want: "want a whole number, 0 or more"}
	}
	*v.n = n
	return nil
}

func (v countValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strconv.Itoa(*v.n)
}

func (countValue) Type() string { return "count" }

// seedValue is the --seed flag: any unsigned 64-bit number.
type seedValue struct {
	seed *uint64
	set  *bool
}

func (v seedValue) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return &UsageError{Flag: "--seed", Value: s, Want: fmt.Sprintf("want a whole number from 0 to %d", uint64(math.MaxUint64))}
	}
	*v.seed, *v.set = n, true
	return nil
}

func (v seedValue) String() string {
	if v.set == nil || !*v.set {
		return ""
	}
	return strconv.FormatUint(*v.seed, 10)
}

func (seedValue) Type() string { return "number" }

// sizeUnit returns the bytes of a size's unit: K, KiB, M, MiB… are powers
// of 1024 and KB, MB… powers of 1000, as GNU coreutils reads them (head -c,
// sort -S); case does not matter.
func sizeUnit(u string) (float64, bool) {
	switch strings.ToLower(u) {
	case "", "b":
		return 1, true
	case "k", "kib":
		return 1 << 10, true
	case "m", "mib":
		return 1 << 20, true
	case "g", "gib":
		return 1 << 30, true
	case "t", "tib":
		return 1 << 40, true
	case "kb":
		return 1e3, true
	case "mb":
		return 1e6, true
	case "gb":
		return 1e9, true
	case "tb":
		return 1e12, true
	}
	return 0, false
}

// ParseSize reads a number of bytes with an optional unit: 1048576, 512K,
// 512MiB, 1.5GiB, 100MB. Negative and out-of-range values are errors.
func ParseSize(s string) (int64, error) {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
	unit, ok := sizeUnit(s[len(num):])
	switch {
	case num == "":
		return 0, errors.New("no number")
	case strings.HasPrefix(num, "-"):
		return 0, errors.New("negative size")
	case !ok:
		return 0, fmt.Errorf("unknown unit %q", s[len(num):])
	case !isPlainNumber(num):
		return 0, errors.New("not a number")
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	bytes := math.Round(n * unit)
	if bytes >= math.MaxInt64 {
		return 0, errors.New("size too large")
	}
	return int64(bytes), nil
}

// FormatSize writes n the way ParseSize reads it, in the largest binary
// unit that divides it: 1GiB, 512MiB, 1000.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

const wantSize = "want a number of bytes with an optional unit, such as 512MiB, 1GiB or 100MB"

// sizeValue is a flag holding a number of bytes in ParseSize's syntax.
type sizeValue struct {
	n    *int64
	flag string
}

func (v sizeValue) Set(s string) error {
	n, err := ParseSize(s)
	if err != nil {
		return &UsageError{Flag: "--" + v.flag, Value: s, Err: err, Want: wantSize}
	}
	*v.n = n
	return nil
}

func (v sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	return FormatSize(*v.n)
}

func (sizeValue) Type() string { return "size" }

// stringsValue is a repeatable flag that keeps every value given, in
// order, as pflag's StringArray does, but without pflag's CSV writer:
// pflag renders each StringArray's default through encoding/csv when the
// flag is bound, which cost a tenth of retry's own start. Its defaults
// are empty, so appending from the first value on is what StringArray
// does too.
type stringsValue struct{ p *[]string }

func (v stringsValue) Set(s string) error {
	*v.p = append(*v.p, s)
	return nil
}

// Type names the value as pflag's StringArray does, for usage and docs.
func (v stringsValue) Type() string { return "stringArray" }

// String renders the values as pflag's StringArray does, [a,"b,c"], and
// an empty list as "" so that usage shows no default.
func (v stringsValue) String() string {
	if len(*v.p) == 0 {
		return ""
	}
	quoted := make([]string, len(*v.p))
	for i, s := range *v.p {
		quoted[i] = s
		if s == `\.` || strings.ContainsAny(s, ",\"\r\n") || strings.IndexFunc(s, unicode.IsSpace) == 0 {
			quoted[i] = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return "[" + strings.Join(quoted, ",") + "]"
}
