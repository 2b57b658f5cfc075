package cmd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration as Go writes it ("250ms", "1m30s") or as a
// plain number of seconds ("2", "0.5"). Negative, non-finite and
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
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("not a duration")
	}
	if d < 0 {
		return 0, errors.New("negative duration")
	}
	return d, nil
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

const wantDuration = "want a duration such as 250ms, 1m30s or a number of seconds such as 2.5"

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
