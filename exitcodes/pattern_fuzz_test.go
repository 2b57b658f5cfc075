package exitcodes

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileLimit is far above what any pattern takes to compile here, even
// under the race detector (RE2 compiles in time linear in the pattern's
// size, and refuses patterns whose program would be too large); it only
// catches a blow-up.
const compileLimit = 30 * time.Second

// FuzzCompilePatterns checks that any user pattern either compiles, into a
// classifier whose literal prefilter never rejects a line the pattern
// matches, or is refused with a *PatternError that names it in one line.
func FuzzCompilePatterns(f *testing.F) {
	for _, s := range []string{`timeout`, `(?i)connection (reset|refused)`, `5\d\d`, `Retry-After: (\S+)`, `(`, `[z-a]`, `a{1001}`,
		`(a*)*b`, `(a|aa)+$`, `((a{100}){100}){100}`, `\xff`, "\x00", `(?i)ſ`, `\C`, `(?P<x>a)`, `a**`, `x{2}{3}`, strings.Repeat("(", 2000)} {
		f.Add(s, []byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaab timeout 503 Retry-After: 3"))
	}
	f.Fuzz(func(t *testing.T, pattern string, line []byte) {
		start := time.Now()
		res, err := CompilePatterns([]string{"ok", pattern})
		assert.Less(t, time.Since(start), compileLimit, "compiling %d bytes", len(pattern))
		if err != nil {
			var pe *PatternError
			require.True(t, errors.As(err, &pe), "a *PatternError: %v", err)
			assert.Equal(t, pattern, pe.Pattern, "it names the bad pattern, not the good one")
			assertMessageRules(t, err.Error())
			// The pattern is quoted shortened to 80 characters (and 40
			// in the parser's own words), each at worst a \U escape.
			assert.LessOrEqual(t, len(err.Error()), 1500, "the message quotes a shortened pattern")
			return
		}
		require.Len(t, res, 2)
		c, err := New(Config{RetryIf: res, StopIf: []*regexp.Regexp{res[1]}})
		require.NoError(t, err)
		checkPrefilter(t, c, line)
		s := c.NewScan()
		s.Line(line)
		checkVerdict(t, Exit{Code: 1}, c.Classify(Exit{Code: 1}, s, time.Unix(0, 0)))
	})
}

func TestHugeAndPathologicalPatternsCompileFastOrAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, pattern string
		refused       string // empty when it must compile
	}{
		// Linux passes no argument longer than 128 KiB to a program.
		{"the longest literal argv can hold", strings.Repeat("x", 128<<10-1), ""},
		{"nested stars", strings.Repeat("(a*)*", 500) + "b", "too large"},
		{"nested stars that fit", strings.Repeat("(a*)*", 100) + "b", ""},
		{"a repeat count above 1000", `a{1001}`, "invalid repeat count"},
		{"nested repeats multiplied past 1000", `((a{1000}){1000}){1000}`, "invalid repeat count"},
		{"nesting past the depth limit", strings.Repeat("(", 5000) + strings.Repeat(")", 5000), "expression nests too deeply"},
		{"an unclosed group", `(timeout`, "missing closing )"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := CompilePatterns([]string{tc.pattern})
			assert.Less(t, time.Since(start), compileLimit)
			if tc.refused != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.refused)
				assertMessageRules(t, err.Error())
				assert.Less(t, len(err.Error()), 1500, "a huge pattern is shortened in the message")
				return
			}
			require.NoError(t, err)
			// RE2 matches in time linear in the line: a pathological
			// pattern on the longest line a scanner sees stays fast.
			c, err := New(Config{RetryIf: res})
			require.NoError(t, err)
			line := []byte(strings.Repeat("a", 64<<10))
			start = time.Now()
			s := c.NewScan()
			s.Line(line)
			c.Classify(Exit{Code: 1}, s, time.Unix(0, 0))
			assert.Less(t, time.Since(start), compileLimit)
		})
	}
}

func TestCompilePatternsRefusesAProgramTooLargeToMatchQuickly(t *testing.T) {
	t.Parallel()
	// Every preset compiles to fewer than 500 instructions; RE2 matches
	// in time proportional to the line times the program's size.
	pattern := strings.Repeat("(?:a{1000})", 10) + "c"
	_, err := CompilePatterns([]string{pattern})
	require.Error(t, err)
	var pe *PatternError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "too large")
}
