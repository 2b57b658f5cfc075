package exitcodes

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter is the longest wait ParseRetryAfter returns: a larger
// value, or a date further ahead, is capped to it. A server asking for
// more than a day is asking the caller to give up; the policy's own caps
// and the deadline decide what to do with the wait.
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a wait a server or tool asked for, as found after
// "Retry-After:" or in a --retry-after pattern's first capture group:
//
//   - seconds, whole or decimal: "30", "1.5";
//   - a Go duration: "2m", "1m30s", "250ms";
//   - an HTTP-date in any of the three forms of RFC 9110
//     ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
//     "Sun Nov  6 08:49:37 1994"), read as a time after now.
//
// Surrounding spaces and quotes are ignored. A date in the past means no
// wait (0, true). A negative number or duration is rejected (false): a
// server that asks for a negative wait is broken, and the caller's own
// backoff is safer than an immediate retry. Waits longer than
// MaxRetryAfter are capped to it, however large the number, so nothing
// overflows. Anything else is rejected (false).
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.Trim(value, " \t\r\n\"'")
	if v == "" || len(v) > 64 {
		return 0, false
	}
	if d, ok := parseSeconds(v); ok {
		return d, true
	}
	if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
		return 0, false
	}
	if d, ok := parseGoDuration(v); ok {
		return d, true
	}
	// The three date forms RFC 9110 section 5.6.7 tells a recipient to
	// accept: IMF-fixdate, then the obsolete RFC 850 and asctime forms,
	// the same three that net/http's ParseTime reads.
	layouts := [...]string{
		"Mon, 02 Jan 2006 15:04:05 GMT",
		"Monday, 02-Jan-06 15:04:05 GMT",
		"Mon Jan _2 15:04:05 2006",
	}
	for _, layout := range layouts {
		t, err := time.Parse(layout, v)
		if err != nil {
			continue
		}
		d := t.Sub(now) // Sub saturates instead of overflowing.
		return min(max(d, 0), MaxRetryAfter), true
	}
	return 0, false
}

// parseSeconds reads digits with an optional decimal fraction as seconds,
// capped to MaxRetryAfter.
func parseSeconds(v string) (time.Duration, bool) {
	whole, frac, hasFrac := strings.Cut(v, ".")
	if !isDigits(whole) || (hasFrac && !isDigits(frac)) {
		return 0, false
	}
	whole = strings.TrimLeft(whole, "0")
	limit := int64(MaxRetryAfter / time.Second)
	if len(whole) > 18 {
		return MaxRetryAfter, true
	}
	secs := int64(0)
	if whole != "" {
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil {
			return MaxRetryAfter, true
		}
		secs = n
	}
	if secs >= limit {
		return MaxRetryAfter, true
	}
	d := time.Duration(secs) * time.Second
	if hasFrac {
		// Nanosecond precision is plenty: keep 9 digits.
		if len(frac) > 9 {
			frac = frac[:9]
		}
		frac += strings.Repeat("0", 9-len(frac))
		n, _ := strconv.ParseInt(frac, 10, 64)
		d += time.Duration(n)
	}
	return d, true
}

// parseGoDuration reads an unsigned Go duration such as "2m" or "1h30m",
// with the syntax of time.ParseDuration, capping it to MaxRetryAfter
// instead of failing when it would overflow.
func parseGoDuration(v string) (time.Duration, bool) {
	units := [...]struct {
		name string
		size time.Duration
	}{
		{"ns", time.Nanosecond}, {"us", time.Microsecond}, {"µs", time.Microsecond},
		{"μs", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second},
		{"m", time.Minute}, {"h", time.Hour},
	}
	total := 0.0 // in nanoseconds; float64 so that no sum can overflow
	for v != "" {
		i, digits := 0, 0
		for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.') {
			if v[i] != '.' {
				digits++
			}
			i++
		}
		num := v[:i]
		if digits == 0 || strings.Count(num, ".") > 1 {
			return 0, false
		}
		v = v[i:]
		unit := -1
		for j, u := range units {
			if strings.HasPrefix(v, u.name) && (unit < 0 || len(u.name) > len(units[unit].name)) {
				unit = j
			}
		}
		if unit < 0 {
			return 0, false
		}
		v = v[len(units[unit].name):]
		n, err := strconv.ParseFloat(num, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		total += n * float64(units[unit].size)
	}
	if total >= float64(MaxRetryAfter) {
		return MaxRetryAfter, true
	}
	return time.Duration(total), true
}

// parseMillis reads a whole number of milliseconds, capped to
// MaxRetryAfter; anything else, negative numbers included, is rejected.
func parseMillis(v string) (time.Duration, bool) {
	v = strings.Trim(v, " \t\"'")
	if !isDigits(v) {
		return 0, false
	}
	v = strings.TrimLeft(v, "0")
	if len(v) > 12 {
		return MaxRetryAfter, true
	}
	n := int64(0)
	if v != "" {
		n, _ = strconv.ParseInt(v, 10, 64)
	}
	return min(time.Duration(n)*time.Millisecond, MaxRetryAfter), true
}
