package exitcodes

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// update rewrites generated documentation instead of comparing it:
// go test ./exitcodes/ -run TestClassificationDoc -update
var update = flag.Bool("update", false, "rewrite the generated sections of docs/classification.md")

// Markers around the generated preset tables in docs/classification.md.
const (
	docBegin = "<!-- BEGIN GENERATED PRESET TABLES: go test ./exitcodes/ -run TestClassificationDoc -update -->"
	docEnd   = "<!-- END GENERATED PRESET TABLES -->"
)

func TestClassificationDocListsEveryPresetRule(t *testing.T) {
	path := filepath.Join("..", "docs", "classification.md")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	doc := string(data)
	begin := strings.Index(doc, docBegin)
	end := strings.Index(doc, docEnd)
	require.True(t, begin >= 0 && end > begin, "%s must hold the markers %q and %q", path, docBegin, docEnd)
	want := doc[:begin] + docBegin + "\n\n" + renderPresetTables(t) + "\n" + doc[end:]
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, doc, "docs/classification.md is out of date: run go test ./exitcodes/ -run TestClassificationDoc -update")
}

// renderPresetTables renders one Markdown table per preset.
func renderPresetTables(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range Presets() {
		rows, err := PresetRules(p.Name)
		require.NoError(t, err)
		fmt.Fprintf(&b, "### %s\n\n*%s*\n\nPicked by `--preset auto` for %s.\n\n", p.Name, p.Description, codeList(p.Programs))
		b.WriteString("| # | class | exit | output matches | why |\n|---|---|---|---|---|\n")
		for i, r := range rows {
			match := "(exit status alone)"
			if r.Match != "" {
				match = code(r.Match)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %s |\n", i+1, r.Class, r.Exit, match, cell(r.Description))
		}
		b.WriteString("\n")
	}
	rows, err := PresetRules(SignaturesName)
	require.NoError(t, err)
	info := SignatureInfo()
	fmt.Fprintf(&b, "### %s\n\n*%s*\n\nApplied to every program unless `--preset none`, after its preset. `transient` rows starting \"sure\" (an explicit \"try again later\") beat every other row; `terminal` rows starting \"sure\" beat the other transient rows; other `terminal` rows give way to a transient one, and are not sought on a line an `info` row matched (a missing thing the program goes on to fetch or create); `last-error` rows mark where a runtime reported the error that ended the program; `error-line` rows are judged last, when no other row decided, and only when no line of the output matched an `unsure` row (the words of a failure that passes).\n\n", info.Name, info.Description)
	b.WriteString("| # | class | output matches | why |\n|---|---|---|---|\n")
	for i, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, r.Class, code(r.Match), cell(r.Description))
	}
	b.WriteString("\n")
	return b.String()
}

// codeList formats names as a comma-separated list of code spans.
func codeList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return strings.Join(out, ", ")
}

// code formats a pattern as a code span inside a table cell: pipes are
// escaped, as GitHub's tables require even in code.
func code(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// cell escapes text for a table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
