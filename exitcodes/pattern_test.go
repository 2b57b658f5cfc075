package exitcodes

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMatcherFindsTheLiteralsEveryMatchContains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    []literal
	}{
		{`returned error: 503`, []literal{{"returned error: 503", false}}},
		{`returned error: (?:408|429|5[0-9][0-9])\b`, []literal{{"returned error: ", false}}},
		{`ETIMEDOUT|ECONNRESET`, []literal{{"TIMEDOUT", false}, {"CONNRESET", false}}},
		{`(?i)connection reset`, []literal{{"connection reset", true}}},
		{`(?i)Connection RESET|refused`, []literal{{"connection reset", true}, {"refused", true}}},
		{`x+yz`, []literal{{"yz", false}}},
		{`(abc){2,}`, []literal{{"abc", false}}},
		{`a*`, nil},
		{`(|abc)`, nil},
		{`[0-9]+`, nil},
		{`(?i)straße`, nil},
		{"\uFFFD", nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			t.Parallel()
			m := newMatcher(regexp.MustCompile(tt.pattern))
			assert.Equal(t, tt.want, m.need)
		})
	}
}

func TestMatcherNeverRejectsALineTheRegexpMatches(t *testing.T) {
	t.Parallel()
	patterns := []string{
		`(?i)connection reset`, `(?i)kelvin`, `(?i)ssl`, `returned error: 5\d\d`, `ETIMEDOUT|ECONNRESET`,
		`(?i)unauthorized|denied`, `^HTTP/\d 503`, `x+y`,
	}
	lines := []string{
		"Connection RESET by peer", "\u212Aelvin", "\u017F\u017FL error", "curl: (22) The requested URL returned error: 503",
		"npm ERR! code ECONNRESET", "UNAUTHORIZED", "DENIED", "HTTP/2 503", "xxxy", "nothing here", "\xff\xfe broken utf8 ssl",
	}
	for _, p := range patterns {
		m := newMatcher(regexp.MustCompile(p))
		for _, l := range lines {
			folded := foldLine(nil, []byte(l))
			if m.re.MatchString(l) {
				assert.True(t, m.mayMatch([]byte(l), folded), "pattern %q rejected matching line %q", p, l)
			}
		}
	}
}

func TestMatcherRejectsLinesWithoutTheLiteral(t *testing.T) {
	t.Parallel()
	m := newMatcher(regexp.MustCompile(`returned error: 5\d\d`))
	assert.False(t, m.mayMatch([]byte("all good"), nil))
	assert.True(t, m.mayMatch([]byte("returned error: 5xx"), nil), "the literal is there; the regexp decides")
}

func TestFoldLineLowersASCIIAndTheLettersThatFoldToIt(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "kelvin sign and long s: k s é", string(foldLine(nil, []byte("KELVIN Sign AND long S: \u212A \u017F é"))))
	assert.Equal(t, "\xff", string(foldLine(nil, []byte("\xff"))))
}
