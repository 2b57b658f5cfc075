package exitcodes

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A signature's own literals (sigDef.need) replace the prefilter found in
// its pattern, so a literal list that missed a form would make that form
// silently never match.
func TestSignatureLiteralsAreInEveryCorpusLineItsPatternMatches(t *testing.T) {
	t.Parallel()
	cases := loadCorpus(t)
	for _, d := range signatureTable() {
		if d.need == nil {
			continue
		}
		re := regexp.MustCompile(d.match)
		for _, c := range cases {
			for _, l := range c.lines {
				if !re.MatchString(l) {
					continue
				}
				assert.True(t, containsAny(l, d.need),
					"%s: %s: %q matches %q but holds none of %q", c.file, c.title, l, d.desc, d.need)
			}
		}
	}
}

// Every signature row keeps under the size Go's backtracking matcher
// takes, which runs far faster on a line than the automaton larger
// programs need.
func TestSignaturesStaySmallEnoughForTheBacktracker(t *testing.T) {
	t.Parallel()
	const backtrackLimit = 500 // regexp's maxBacktrackProg
	grown := map[string]bool{"no such package, version, artifact or object": true}
	for _, d := range signatureTable() {
		if grown[d.desc] {
			continue // older than this rule; matched only on lines its literals pass
		}
		assert.LessOrEqual(t, programSize(d.match), backtrackLimit, d.desc)
	}
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// The generic forms of a missing or unsupported thing are meant for an
// error's last words; a line that goes on to say what the program does
// instead is an info line, and must leave a failure to the rest of the
// output and the default table.
func TestInfoLinesThatShareATerminalFamilysWordsDecideNothing(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Signatures: true})
	require.NoError(t, err)
	for _, line := range []string{
		"Warning: ccache not found, building without it",
		"Cache not found for input keys: Linux-node-3f2a",
		"HTTP/2 is not supported by the proxy, retrying with HTTP/1.1",
		"No config file specified, using defaults",
		"Unable to find image 'alpine:3.20' locally",
	} {
		s := c.NewScan()
		s.Line([]byte(line))
		v := c.Classify(Exit{Code: 1}, s, time.Time{})
		assert.Equal(t, Transient, v.Class, line)
		assert.Empty(t, v.Rule, "%q decided the failure", line)
	}
}
