package exitcodes

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStripEscapesLeavesTheWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text":                     "plain text",
		"\x1b[31mError:\x1b[0m x":        "Error: x",
		"\x1b[1;38;5;196mred\x1b[39;49m": "red",
		"\x1b[2K\x1b[1Gnpm ERR! 404":     "npm ERR! 404",
		"\x1b]8;;https://x.example/\x1b\\link\x1b]8;;\x1b\\ text": "link text",
		"\x1b]0;title\x07after":                                   "after",
		"\x1b(Bcharset":                                           "charset",
		"\x1b7saved\x1b8":                                         "saved",
		"cut \x1b[31":                                             "cut ",
		"cut \x1b]8;;https://x.example/":                          "cut ",
		"lone \x1b":                                               "lone ",
	} {
		assert.Equal(t, want, string(stripEscapes(nil, []byte(in))), "%q", in)
	}
}

func FuzzStripEscapes(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\", "\x1b", "\x1b[", "\x1b]", "a\x1b(", "\x1b[\x1b[m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := stripEscapes(nil, []byte(s))
		if len(out) > len(s) {
			t.Fatalf("%q grew to %q", s, out)
		}
		if !strings.Contains(s, "\x1b") && string(out) != s {
			t.Fatalf("%q without escapes changed to %q", s, out)
		}
		if bytes.IndexByte(out, esc) >= 0 && !strings.Contains(s, "\x1b\x1b") && !strings.Contains(s, "\x1b[\x1b") && !strings.Contains(s, "\x1b(\x1b") {
			t.Fatalf("%q kept an escape: %q", s, out)
		}
	})
}

// Programs that colour their output whatever it goes to put escapes
// inside the words the rules look for: terraform writes "Error: " and the
// summary in colours of their own. Such output was retried as if no rule
// had spoken.
func TestColouredOutputIsJudgedByItsWords(t *testing.T) {
	t.Parallel()
	terraform := newClassifier(t, rules{presets: []string{"terraform"}, signatures: true})
	signatures := newClassifier(t, rules{signatures: true})
	for _, tc := range []struct {
		name  string
		c     *Classifier
		lines []string
		want  Class
	}{
		{"terraform's coloured configuration error", terraform, []string{
			"\x1b[31m╷\x1b[0m\x1b[0m",
			"\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid reference\x1b[0m",
			"\x1b[31m│\x1b[0m \x1b[0m",
			"\x1b[31m╵\x1b[0m\x1b[0m",
		}, Terminal},
		{"terraform's coloured state lock", terraform, []string{
			"\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mError acquiring the state lock\x1b[0m",
		}, Transient},
		{"a 404 with its status coloured", signatures, []string{"error: \x1b[31m404\x1b[0m Not Found"}, Terminal},
		{"a refused connection in colour", signatures, []string{"\x1b[31merror:\x1b[0m dial tcp 10.0.0.1:5432: connect: \x1b[1mconnection refused\x1b[0m"}, Transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(tc.lines, "\n") + "\n"
			assert.True(t, tc.c.MayMatch([]byte(text)), "the lines reach the scan")
			s := tc.c.NewScan()
			for _, l := range tc.lines {
				s.Line([]byte(l))
			}
			v := tc.c.Classify(Exit{Code: 1}, s, time.Time{})
			assert.Equal(t, tc.want, v.Class, "rule %q", v.Rule)
			assert.NotContains(t, v.Rule+strings.Join(v.Lines, "\n"), "\x1b", "the verdict quotes the words, not the escapes")
		})
	}
}
