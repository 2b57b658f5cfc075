package exitcodes

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusCase is one labelled failure from testdata/corpus (see its README).
type corpusCase struct {
	file, title string
	argv        []string
	exit        Exit
	want        Class
	rule        string
	hint        time.Duration
	hasHint     bool
	preset      string
	source      string
	lines       []string
}

// loadCorpus reads every case under testdata/corpus.
func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	return loadCases(t, filepath.Join("testdata", "corpus"))
}

// loadCases reads every case in the *.txt files of dir.
func loadCases(t *testing.T, dir string) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var cases []corpusCase
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		sc := bufio.NewScanner(f)
		var cur *corpusCase
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			where := fmt.Sprintf("%s:%d", name, n)
			switch {
			case strings.HasPrefix(line, "=== "):
				cases = append(cases, corpusCase{file: filepath.Base(name), title: strings.TrimPrefix(line, "=== "), preset: "auto"})
				cur = &cases[len(cases)-1]
			case line == "" || strings.HasPrefix(line, "#"):
			case cur == nil:
				t.Fatalf("%s: text before the first case", where)
			case line == "|" || strings.HasPrefix(line, "| "):
				cur.lines = append(cur.lines, strings.TrimPrefix(strings.TrimPrefix(line, "|"), " "))
			default:
				key, value, ok := strings.Cut(line, ": ")
				require.True(t, ok, "%s: want key: value, got %q", where, line)
				parseCorpusField(t, where, cur, key, value)
			}
		}
		require.NoError(t, sc.Err())
	}
	for _, c := range cases {
		require.NotEmpty(t, c.argv, "%s: %s: no argv", c.file, c.title)
		require.NotZero(t, c.want, "%s: %s: no want", c.file, c.title)
	}
	return cases
}

// parseCorpusField sets one key of a case.
func parseCorpusField(t *testing.T, where string, c *corpusCase, key, value string) {
	t.Helper()
	switch key {
	case "argv":
		c.argv = splitArgv(value)
	case "exit":
		switch {
		case value == "timeout":
			c.exit = Exit{Code: 143, TimedOut: true}
		case value == "not found":
			c.exit = Exit{Code: NotFound, Start: ProgramMissing}
		case value == "not executable":
			c.exit = Exit{Code: NotExecutable, Start: ProgramNotExecutable}
		case strings.HasPrefix(value, "signal "):
			sig, err := ParseSignal(strings.TrimPrefix(value, "signal "))
			require.NoError(t, err, where)
			c.exit = Signaled(sig)
		default:
			code, err := strconv.Atoi(value)
			require.NoError(t, err, where)
			c.exit = Exit{Code: code}
		}
	case "want":
		switch value {
		case "transient":
			c.want = Transient
		case "terminal":
			c.want = Terminal
		case "success":
			c.want = Success
		default:
			t.Fatalf("%s: want %q: want transient, terminal or success", where, value)
		}
	case "rule":
		c.rule = value
	case "hint":
		d, err := time.ParseDuration(value)
		require.NoError(t, err, where)
		c.hint, c.hasHint = d, true
	case "preset":
		c.preset = value
	case "source":
		c.source = value
	default:
		t.Fatalf("%s: unknown key %q", where, key)
	}
}

// splitArgv splits a command line on spaces, keeping 'single-quoted'
// words whole.
func splitArgv(s string) []string {
	var words []string
	var b strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
			inWord = true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

// corpusNow is the fixed time the corpus is judged at.
func corpusNow() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }

// judgeCorpusCase classifies c the way the runner would: presets from its
// argv, each line scanned, then Classify.
func judgeCorpusCase(t *testing.T, c corpusCase) Verdict {
	t.Helper()
	presets, err := SelectPresets(c.preset, c.argv)
	require.NoError(t, err)
	cl, err := New(Config{Presets: presets, Signatures: SignaturesFor(c.preset)})
	require.NoError(t, err)
	scan := cl.NewScan()
	for _, l := range c.lines {
		scan.Line([]byte(l + "\n"))
	}
	return cl.Classify(c.exit, scan, corpusNow())
}

func TestCorpusCasesAreClassifiedAsLabelled(t *testing.T) {
	t.Parallel()
	for _, c := range loadCorpus(t) {
		t.Run(c.file+"/"+c.title, func(t *testing.T) {
			t.Parallel()
			v := judgeCorpusCase(t, c)
			assert.Equal(t, c.want, v.Class, "rule %q, lines %q", v.Rule, c.lines)
			if c.rule != "" {
				assert.Contains(t, v.Rule, c.rule)
			}
			if c.hasHint {
				assert.True(t, v.HasHint, "no hint")
				assert.Equal(t, c.hint, v.Hint)
			}
		})
	}
}

func TestCorpusPrecisionAndRecallMeetTheBar(t *testing.T) {
	t.Parallel()
	cases := loadCorpus(t)
	var tp, fp, fn, terminal, transient, byRule int
	// Per file (one tool each): terminal verdicts, right ones, terminal cases.
	type counts struct{ cases, right, termVerdicts, termRight, termCases int }
	perFile := map[string]*counts{}
	for _, c := range cases {
		v := judgeCorpusCase(t, c)
		n := perFile[c.file]
		if n == nil {
			n = &counts{}
			perFile[c.file] = n
		}
		n.cases++
		if v.Class == c.want {
			n.right++
		}
		if v.Class == Terminal {
			n.termVerdicts++
			if c.want == Terminal {
				n.termRight++
			}
		}
		if c.want == Terminal {
			n.termCases++
		}
		switch {
		case c.want == Transient && v.Class == Transient:
			tp++
			transient++
			if v.Rule != "" {
				byRule++
			} else {
				t.Logf("transient by the default table only: %s: %s", c.file, c.title)
			}
		case c.want == Transient:
			fn++
			transient++
			t.Logf("missed transient: %s: %s (rule %q)", c.file, c.title, v.Rule)
		case c.want == Terminal && v.Class == Transient:
			fp++
			terminal++
			t.Logf("terminal taken as transient: %s: %s (rule %q)", c.file, c.title, v.Rule)
		case c.want == Terminal:
			terminal++
		}
	}
	require.GreaterOrEqual(t, len(cases), 800, "the corpus must hold at least 800 cases")
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	var termVerdicts, termRight, termCases int
	for _, n := range perFile {
		termVerdicts += n.termVerdicts
		termRight += n.termRight
		termCases += n.termCases
	}
	t.Logf("corpus: %d cases (%d transient, %d terminal)", len(cases), transient, terminal)
	t.Logf("terminal verdicts: precision %.2f%% (%d of %d right), recall %.2f%% (%d of %d terminal cases)",
		percent(termRight, termVerdicts), termRight, termVerdicts, percent(termRight, termCases), termRight, termCases)
	t.Logf("transient precision %.2f%% (%d of %d transient verdicts right; terminal cases taken as transient: %d)", 100*precision, tp, tp+fp, fp)
	t.Logf("transient recall %.2f%% (%d of %d transient cases found, %d of them by a named rule rather than the default table)", 100*recall, tp, tp+fn, byRule)
	files := make([]string, 0, len(perFile))
	for f := range perFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		n := perFile[f]
		t.Logf("  %-16s %3d cases, %3d right; terminal precision %6.2f%%, recall %6.2f%%", f, n.cases, n.right, percent(n.termRight, n.termVerdicts), percent(n.termRight, n.termCases))
	}
	assert.Zero(t, fp, "a terminal failure (auth, certificate, not found, usage) must never be taken as transient")
	assert.GreaterOrEqual(t, recall, 0.97, "transient recall below 97%")
}

// unsourced are the corpus files written before cases carried a source:
// their wording is from the tools' documentation and issue trackers, as
// the README says, without a reference per case.
var unsourced = []string{"apt.txt", "aws.txt", "curl.txt", "defaults.txt", "docker.txt", "git.txt", "go.txt", "holdout.txt", "kubectl.txt", "npm.txt", "pip.txt", "rsync.txt", "ssh.txt", "terraform.txt", "wget.txt"}

func TestCorpusCasesSayWhereTheirWordingComesFrom(t *testing.T) {
	t.Parallel()
	for _, c := range loadCorpus(t) {
		if !slices.Contains(unsourced, c.file) {
			assert.NotEmpty(t, c.source, "%s: %s: no source", c.file, c.title)
		}
	}
}

// heldOutScore counts, for a set of cases, how often terminal cases were
// not retried and transient ones were, split by whether the program has a
// preset of its own.
type heldOutScore struct {
	terminal, terminalRight   [2]int // [without preset, with preset]
	transient, transientRight int
	misses                    []string
}

// scoreCases judges cases and counts the goals of issue 14.
func scoreCases(t *testing.T, cases []corpusCase) heldOutScore {
	t.Helper()
	var sc heldOutScore
	for _, c := range cases {
		v := judgeCorpusCase(t, c)
		presets, err := SelectPresets(c.preset, c.argv)
		require.NoError(t, err)
		own := 0
		if len(presets) > 0 {
			own = 1
		}
		switch c.want {
		case Terminal:
			sc.terminal[own]++
			if v.Class == Terminal {
				sc.terminalRight[own]++
				continue
			}
		case Transient:
			sc.transient++
			if v.Class == Transient {
				sc.transientRight++
				continue
			}
		default:
			continue
		}
		sc.misses = append(sc.misses, fmt.Sprintf("%s: %s: want %s, got %s (rule %q)", c.file, c.title, c.want, v.Class, v.Rule))
	}
	return sc
}

// percent is n of total as a percentage, 100 for an empty total.
func percent(n, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(n) / float64(total)
}

func TestHeldOutFigures(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "heldout")
	if files, err := filepath.Glob(filepath.Join(dir, "*.txt")); err == nil && len(files) == 0 {
		t.Skip("no held-out set is in place: testdata/heldout has no *.txt (a new one must be written blind)")
	}
	cases := loadCases(t, dir)
	for _, c := range cases {
		require.NotEmpty(t, c.source, "%s: %s: no source", c.file, c.title)
	}
	sc := scoreCases(t, cases)
	t.Logf("held out: %d cases", len(cases))
	t.Logf("terminal never retried, programs without a preset: %.1f%% (%d of %d)", percent(sc.terminalRight[0], sc.terminal[0]), sc.terminalRight[0], sc.terminal[0])
	t.Logf("terminal never retried, programs with a preset: %.1f%% (%d of %d)", percent(sc.terminalRight[1], sc.terminal[1]), sc.terminalRight[1], sc.terminal[1])
	t.Logf("transient retried: %.1f%% (%d of %d)", percent(sc.transientRight, sc.transient), sc.transientRight, sc.transient)
	for _, m := range sc.misses {
		t.Logf("  miss: %s", m)
	}
	// Floors, not targets: these cases are never tuned on, so the figures
	// may only be watched for regressions. They are the figures
	// docs/classification.md reports for the set once it is scored; issue
	// 14's goals (90 % of the terminal cases without a preset, all of
	// those with one, 95 % of the transient ones) are not all met by any
	// set so far.
	assert.GreaterOrEqual(t, sc.transientRight, heldOutFloorTransient, "a held-out transient failure taken as terminal fails a pipeline")
	assert.GreaterOrEqual(t, sc.terminalRight[1], heldOutFloorWithPreset, "programs with a preset fell below the figure documented")
	assert.GreaterOrEqual(t, sc.terminalRight[0], heldOutFloorWithoutPreset, "programs without a preset fell below the figure documented")
}

// The floors are the fourteenth held-out set's figures as it was scored,
// once, after the tuning on the thirteenth (docs/classification.md, "Held
// out, fourteenth set"): terminal cases judged terminal, 22 of 60
// without a preset and 12 of 24 with one; 59 of 66 transient cases
// retried (89.4 %: none of issue 14's goals of 90 %, 100 % and 95 % is
// met by this set).
const (
	heldOutFloorWithoutPreset = 22
	heldOutFloorWithPreset    = 12
	heldOutFloorTransient     = 59
)
