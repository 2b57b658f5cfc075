package exitcodes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// judgeLines classifies an exit 1 of the terraform preset's programs
// after lines.
func judgeLines(t *testing.T, lines ...string) Verdict {
	t.Helper()
	c := newClassifier(t, rules{presets: []string{"terraform"}})
	s := c.NewScan()
	for _, l := range lines {
		s.Line([]byte(l + "\n"))
	}
	return c.Classify(Exit{Code: 1}, s, corpusNow())
}

func TestTerraformRulesSeeAPhraseTheBoxWrapped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lines []string
		want  Class
	}{
		{"split over two box lines", []string{"│ hashicorp/curl: provider registry registry.terraform.io does not", "│ have a provider named registry.terraform.io/hashicorp/curl"}, Terminal},
		{"with the padding terraform leaves", []string{"│ registry.terraform.io does not have a      ", "│ provider named registry.terraform.io/hashicorp/confluentcloud"}, Terminal},
		{"in colour", []string{"\x1b[31m│\x1b[0m registry.opentofu.org does not have a", "\x1b[31m│\x1b[0m provider named registry.opentofu.org/microsoft/msgraph"}, Terminal},
		{"an empty box line ends the paragraph", []string{"│ registry.terraform.io does not have a", "│", "│ provider named registry.terraform.io/hashicorp/curl"}, Transient},
		{"a line outside the box ends it", []string{"│ registry.terraform.io does not have a", "╵", "│ provider named registry.terraform.io/hashicorp/curl"}, Transient},
		{"lines without the box are not joined", []string{"registry.terraform.io does not have a", "provider named registry.terraform.io/hashicorp/curl"}, Transient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := judgeLines(t, tc.lines...)
			assert.Equal(t, tc.want, v.Class, "rule %q", v.Rule)
		})
	}
}

func TestAJoinedMatchCarriesTheJoinedLine(t *testing.T) {
	t.Parallel()
	v := judgeLines(t, "│ provider registry registry.opentofu.org does not have a", "│ provider named registry.opentofu.org/hashicorp/xenserver")
	assert.Equal(t, Terminal, v.Class)
	assert.Contains(t, v.Rule, "does not have a provider named")
	assert.Equal(t, []string{"provider registry registry.opentofu.org does not have a provider named registry.opentofu.org/hashicorp/xenserver"}, v.Lines)
}

func TestBoxLinesAreNeverSkipped(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"terraform"}})
	text := "│ registry.terraform.io does not have a\n│ provider named x\n"
	assert.True(t, c.MayMatch([]byte(text)), "a phrase split over box lines holds no literal on either")
	assert.True(t, c.MayMatch([]byte("╵\n")), "the corner that closes a box must reach Line")
	plain := newClassifier(t, rules{presets: []string{"curl"}})
	assert.False(t, plain.MayMatch([]byte(strings.Repeat("│ nothing here\n", 3))), "only the boxed presets' programs draw boxes")
}

func TestBoxTextStripsTheRuleAndItsColour(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"│ text  ":                 "text",
		"│":                        "",
		"\x1b[33m│\x1b[0m warning": "warning",
		"\x1b[31m│\x1b[0m":         "",
	} {
		got, ok := boxText(stripEscapes(nil, []byte(line)))
		assert.True(t, ok, "%q", line)
		assert.Equal(t, want, string(got), "%q", line)
	}
	for _, line := range []string{"text", "╷", "╵", "\x1b[31mtext", "  │ indented"} {
		_, ok := boxText(stripEscapes(nil, []byte(line)))
		assert.False(t, ok, "%q", line)
	}
}
