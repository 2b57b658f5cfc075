package exitcodes

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on what a verdict carries, so that a give-up message stays short
// whatever the command printed.
const (
	// MaxLines is the most output lines a Verdict carries.
	MaxLines = 3
	// MaxLineChars is the most characters (runes) of one Verdict line.
	MaxLineChars = 200
	// maxMatchChars is the most characters of matched text quoted in a
	// Verdict's Rule.
	maxMatchChars = 40
	// maxHintBytes is the most bytes of a captured Retry-After value kept.
	maxHintBytes = 64
)

// cutLine returns line as valid UTF-8 of at most MaxLineChars characters,
// ending in "…" when it was cut.
func cutLine(line []byte) string {
	// A rune takes at most 4 bytes, so this prefix still holds more than
	// MaxLineChars characters whenever the line does.
	return shorten(string(line[:min(len(line), 4*(MaxLineChars+1))]), MaxLineChars)
}

// shorten returns s as valid UTF-8 of at most n characters (n > 1),
// invalid bytes replaced by U+FFFD, ending in "…" when it was cut.
func shorten(s string, n int) string {
	if len(s) <= n && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// quote wraps s in double quotes for a rule name, escaping it Go-style
// only when it holds a quote, a control character or invalid UTF-8, so
// that patterns such as 5\d\d read as written.
func quote(s string) string {
	if strings.Contains(s, `"`) || !utf8.ValidString(s) ||
		strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return strconv.Quote(s)
	}
	return `"` + s + `"`
}
