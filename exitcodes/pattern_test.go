package exitcodes

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatcherFindsTheLiteralsEveryMatchContains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		want    []literal
	}{
		{`returned error: 503`, []literal{{s: "returned error: 503", fold: false}}},
		{`returned error: (?:408|429|5[0-9][0-9])\b`, []literal{{s: "returned error: ", fold: false}}},
		{`ETIMEDOUT|ECONNRESET`, []literal{{s: "TIMEDOUT", fold: false}, {s: "CONNRESET", fold: false}}},
		{`(?i)connection reset`, []literal{{s: "connection reset", fold: true}}},
		{`(?i)Connection RESET|refused`, []literal{{s: "connection reset", fold: true}, {s: "refused", fold: true}}},
		{`x+yz`, []literal{{s: "yz", fold: false}}},
		{`(abc){2,}`, []literal{{s: "abc", fold: false}}},
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
			var got []literal
			for _, l := range m.need {
				got = append(got, literal{s: l.s, fold: l.fold})
			}
			assert.Equal(t, tt.want, got)
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
				assert.True(t, m.mayMatch([]byte(l), folded, gramsOf([]byte(l)), gramsOf(folded)), "pattern %q rejected matching line %q", p, l)
			}
		}
	}
}

func TestMatcherRejectsLinesWithoutTheLiteral(t *testing.T) {
	t.Parallel()
	m := newMatcher(regexp.MustCompile(`returned error: 5\d\d`))
	assert.False(t, m.mayMatch([]byte("all good"), nil, nil, nil))
	assert.True(t, m.mayMatch([]byte("returned error: 5xx"), nil, gramsOf([]byte("returned error: 5xx")), nil), "the literal is there; the regexp decides")
}

func TestFoldLineLowersASCIIAndTheLettersThatFoldToIt(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "kelvin sign and long s: k s é", string(foldLine(nil, []byte("KELVIN Sign AND long S: \u212A \u017F é"))))
	assert.Equal(t, "\xff", string(foldLine(nil, []byte("\xff"))))
}

// gramsOf returns the gram set of line.
func gramsOf(line []byte) *gramSet {
	var g gramSet
	g.fill(line)
	return &g
}

func TestGramSetRejectsLiteralsTheLineLacks(t *testing.T) {
	t.Parallel()
	g := gramsOf([]byte("connection reset by peer"))
	assert.True(t, g.has(literalGrams("reset by")))
	assert.True(t, g.has(literalGrams("x")), "a one-byte literal has no bigram to test")
	assert.False(t, g.has(literalGrams("refused")))
}

func TestMatcherRareGramsRejectLinesWithoutAnyLiteral(t *testing.T) {
	t.Parallel()
	m := newMatcher(regexp.MustCompile(`ETIMEDOUT|ECONNRESET|EAI_AGAIN|(?i)connection refused`))
	require.True(t, m.rareAll)
	for _, l := range []string{"npm ERR! code ETIMEDOUT", "read ECONNRESET", "getaddrinfo EAI_AGAIN", "dial tcp: Connection REFUSED"} {
		folded := foldLine(nil, []byte(l))
		assert.True(t, m.mayMatch([]byte(l), folded, gramsOf([]byte(l)), gramsOf(folded)), "line %q holds a literal", l)
	}
	quiet := []byte("Downloading packages: 42 of 97")
	assert.False(t, m.mayMatch(quiet, foldLine(nil, quiet), gramsOf(quiet), gramsOf(foldLine(nil, quiet))))

	short := newMatcher(regexp.MustCompile(`x|yz|abc|defg`))
	require.Len(t, short.need, 4)
	assert.False(t, short.rareAll, "a one-byte literal has no bigram, so the test is skipped")
	assert.True(t, short.mayMatch([]byte("x"), nil, gramsOf([]byte("x")), nil))
	assert.False(t, newMatcher(regexp.MustCompile(`ETIMEDOUT|ECONNRESET`)).rareAll, "two literals: the loop is as fast")
}

func TestEveryPresetPatternFitsTheSizeCap(t *testing.T) {
	t.Parallel()
	for _, info := range append(Presets(), SignatureInfo()) {
		rows, err := PresetRules(info.Name)
		require.NoError(t, err)
		for _, r := range rows {
			if r.Match == "" {
				continue
			}
			assert.LessOrEqual(t, programSize(r.Match), MaxPatternSize, "%s preset: %s", info.Name, r.Match)
		}
	}
}

func TestALongLineOfKeywordsIsScannedInBoundedTime(t *testing.T) {
	t.Parallel()
	// The runner cuts lines at 64 KiB. A line that is all keywords runs
	// every pattern's regexp over all of it: with every preset and the
	// signatures this took about 150 ms on the 2-core machine, 2.9 s under
	// -race, and 10.6 s under -race at load 9. The bound catches a blow-up
	// (a pattern gone quadratic or worse), not a slow machine.
	c, err := New(Config{Presets: allPresetNames(), Signatures: true})
	require.NoError(t, err)
	c.NewScan().Line([]byte("compile the patterns first"))
	line := []byte(strings.Repeat("HTTP Error status code: panic Cannot find module 'a' connection ", 64<<10/64))
	start := time.Now()
	c.NewScan().Line(line)
	assert.Less(t, time.Since(start), 60*time.Second)
}
