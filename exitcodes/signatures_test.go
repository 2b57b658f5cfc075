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

// A "not found" whose sentence goes on to say what the program does about
// it is an INFO line: the terminal signatures are not sought on it, while
// a "not found" that ends there, or that tells the user what to do, keeps
// its verdict, and so does a terminal line elsewhere in the output.
func TestNotFoundThatGoesOnToFetchIsNotTheError(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{signatures: true})
	failed := Exit{Start: Started, Code: 1}
	for _, line := range []string{
		"[default] Box 'precise64' was not found. Fetching box from specified URL for",
		"==> default: Box 'bento/ubuntu-16.04' could not be found. Attempting to find and install...",
		"Config file not found, one will be created with the defaults",
		"Image 'alpine:3.20' not found locally, pulling",
		"Cache not found. Downloading dependencies",
		"profile 'ci' was not found; falling back to the default profile",
	} {
		v := judge(c, failed, line, "Download failed.")
		assert.Equal(t, Transient, v.Class, "%q: %s", line, v.Rule)
	}
	for _, line := range []string{
		"Box 'precise64' was not found.",
		"Error: package 'foo' not found. Try `brew search foo`",
		"config file not found. Use --config to name one",
		"The box 'precise32' could not be found or",
	} {
		v := judge(c, failed, line)
		assert.Equal(t, Terminal, v.Class, "%q: %s", line, v.Rule)
	}
	v := judge(c, failed, "Box 'precise' was not found. Fetching box from specified URL...", "Error: box 'precise' was not found.")
	assert.Equal(t, Terminal, v.Class, v.Rule)
}

// Wording that asks, explicitly, to be tried again later beats even a
// sure credential refusal; a bare "please try again", which login
// prompts print after a refused password, does not.
func TestTryAgainLaterBeatsASureRefusalButBareTryAgainDoesNot(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{signatures: true})
	failed := Exit{Start: Started, Code: 1}
	for _, lines := range [][]string{
		{"Access denied with the following error:", "Too many users have viewed or downloaded this file recently. Please", "try accessing the file again later."},
		{"fatal: Authentication failed for 'https://example.com/repo.git'", "Too many failed attempts, please try again in a few minutes."},
		{"Invalid credentials.", "Service is under maintenance, retry after 30 seconds"},
		{"Maximum number of auth attempts reached. Please try again later"},
	} {
		v := judge(c, failed, lines...)
		assert.Equal(t, Transient, v.Class, "%q: %s", lines, v.Rule)
	}
	for _, lines := range [][]string{
		{"Invalid username or password. Please try again."},
		{"fatal: Authentication failed for 'https://example.com/repo.git'", "Please check your credentials and try again."},
		{"Access denied"},
		{"Access denied with the following error:", "Cannot retrieve the public link of the file. You may need to change", "the permission to 'Anyone with the link', or have had many accesses."},
	} {
		v := judge(c, failed, lines...)
		assert.Equal(t, Terminal, v.Class, "%q: %s", lines, v.Rule)
	}
}

// "Couldn't resolve host", the older curl wording that vagrant and
// others print, is a DNS failure for every program, not only under the
// curl preset.
func TestCouldntResolveHostIsTransientForAnyProgram(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{signatures: true})
	v := judge(c, Exit{Start: Started, Code: 1}, "Box 'precise64' was not found.", "Couldn't resolve host 'files.vagrantup.com'")
	assert.Equal(t, Transient, v.Class, v.Rule)
	assert.Contains(t, v.Rule, "resolve host")
}

// The error line (sigErrorLine) is judged last and decides only when no
// line carried a word of a failure that passes (sigUnsure). Judged alone,
// on every corpus case, it must take no transient case for terminal; the
// terminal cases that the other rules decide, whose wording was not
// written for it, estimate its reach on wording no rule has seen.
func TestErrorLineAloneTakesNoTransientCaseForTerminal(t *testing.T) {
	t.Parallel()
	var transient, terminal, caught, reached int
	cl, err := New(Config{Signatures: true})
	require.NoError(t, err)
	for _, c := range loadCorpus(t) {
		s := cl.NewScan()
		for _, l := range c.lines {
			s.Line([]byte(l + "\n"))
		}
		fires := false
		if s.hits != nil {
			_, fires = cl.errorLineVerdict(s)
		}
		switch c.want {
		case Transient:
			transient++
			assert.False(t, fires, "%s: %s: a transient case, judged terminal by its error line", c.file, c.title)
		case Terminal:
			terminal++
			if v := judgeCorpusCase(t, c); v.Class == Terminal && !strings.HasPrefix(v.Rule, "error line") {
				caught++
				if fires {
					reached++
				}
			}
		}
	}
	t.Logf("error line alone: %d transient cases, none taken for terminal; of the %d terminal cases other rules decide (of %d), it decides %d (%.1f%%)",
		transient, caught, terminal, reached, percent(reached, caught))
}

func TestAnErrorLineDecidesOnlyWhenNothingSpokeOfAFailureThatPasses(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Signatures: true})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		lines []string
		want  Class
		rule  string
	}{
		{"a static problem on an error line", []string{"Looking for matches…", "error: No remote refs found similar to ‘flathub’"}, Terminal, "error line"},
		{"a word of a passing failure on another line", []string{"error: No remote refs found similar to ‘flathub’", "retrying in 2s"}, Transient, ""},
		{"the word before the error line", []string{"Connecting to dl.flathub.org", "error: No remote refs found similar to ‘flathub’"}, Transient, ""},
		{"static words off an error line", []string{"No remote refs found similar to ‘flathub’"}, Transient, ""},
		{"an error line without static words", []string{"error: something went wrong"}, Transient, ""},
		{"a target triple is not an unknown thing", []string{"error: component failed for rust-docs-x86_64-unknown-linux-gnu"}, Transient, ""},
		{"another signature decides first", []string{"error: invalid response: HTTP 503"}, Transient, "signature"},
	} {
		t.Run(tc.name, func(t *testing.T) { assertJudged(t, c, tc.lines, tc.want, tc.rule) })
	}
}

// A checksum step handed a file that is not there reports what a failed
// download left behind: it is judged as an error line, so the download's
// failure wins, while a refused download (a 404) still decides, and the
// line alone is still terminal.
func TestAFailedDownloadBeatsTheChecksumOfAFileItNeverWrote(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Signatures: true})
	require.NoError(t, err)
	download := "Binary download from https://nodejs.org/dist/v20.16.0/node-v20.16.0-linux-x64.tar.xz failed, trying source."
	checksum := "Provided file to checksum does not exist."
	for _, tc := range []struct {
		name  string
		lines []string
		want  Class
		rule  string
	}{
		{"after a failed download", []string{download, checksum}, Transient, ""},
		{"after a 404", []string{"curl: (22) The requested URL returned error: 404", download, checksum}, Terminal, "404"},
		{"alone", []string{checksum}, Terminal, "error line"},
	} {
		t.Run(tc.name, func(t *testing.T) { assertJudged(t, c, tc.lines, tc.want, tc.rule) })
	}
}

// bun and pnpm print the status after the method and URL; relayed by any
// program, a 4xx there is terminal and a 5xx transient.
func TestAStatusAfterTheMethodAndURLIsJudgedByItsClass(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{signatures: true})
	for line, want := range map[string]Class{
		"error: GET https://registry.npmjs.org/@happier-dev%2fagents - 404":        Terminal,
		" ERR_PNPM_FETCH_404  GET https://registry.npmjs.org/%20: Not Found - 404": Terminal,
		"error: GET https://registry.npmjs.org/react - 503":                        Transient,
		"GET https://registry.npmjs.org/react: Service Unavailable - 503":          Transient,
	} {
		v := judge(c, Exit{Start: Started, Code: 1}, line)
		assert.Equal(t, want, v.Class, "%q: %s", line, v.Rule)
		assert.Contains(t, v.Rule, "signature", line)
	}
}

// assertJudged checks that c judges an exit 1 that printed lines as want,
// by a rule whose name holds rule (by no rule when rule is empty).
func assertJudged(t *testing.T, c *Classifier, lines []string, want Class, rule string) {
	t.Helper()
	s := c.NewScan()
	for _, l := range lines {
		s.Line([]byte(l))
	}
	v := c.Classify(Exit{Code: 1}, s, time.Time{})
	assert.Equal(t, want, v.Class, "rule %q", v.Rule)
	if rule == "" {
		assert.Empty(t, v.Rule)
	} else {
		assert.Contains(t, v.Rule, rule)
	}
}
