package exitcodes

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryPresetCompilesAndDescribesItself(t *testing.T) {
	t.Parallel()
	infos := Presets()
	require.NotEmpty(t, infos)
	var names []string
	for _, p := range infos {
		names = append(names, p.Name)
		assert.NotEmpty(t, p.Description, p.Name)
		assert.NotEmpty(t, p.Programs, p.Name)
	}
	c, err := New(Config{Presets: names, Signatures: true})
	require.NoError(t, err)
	assert.Equal(t, names, c.Presets())
	// Laying out the rules parses every exit list, and compiling them
	// compiles every pattern: both panic on a bad constant.
	l := c.compiled()
	for _, m := range l.matchers {
		assert.NotNil(t, m.need, "pattern %q requires no literal, so every line would go to the regexp", m.re)
	}
	assert.False(t, l.anyLine, "every built-in pattern has a literal prefilter")
}

func TestBuiltInRulesAreLaidOutOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Presets: allPresetNames(), Signatures: true})
	require.NoError(t, err)
	assert.True(t, c.NeedsOutput())
	v := c.Classify(Exit{Code: 0}, c.NewScan(), time.Time{})
	assert.Equal(t, Success, v.Class)
	assert.Nil(t, c.lazy.sources, "a silent success lays out no rule")
	assert.Nil(t, c.lazy.matchers)

	v = c.Classify(Exit{Code: 3}, c.NewScan(), time.Time{})
	assert.Equal(t, Terminal, v.Class, "az's exit 3 decides without output")
	assert.NotNil(t, c.lazy.sources, "a failure lays the rules out")
	assert.Nil(t, c.lazy.matchers, "but compiles no pattern while nothing was printed")

	s := c.NewScan()
	s.Line([]byte("HTTP 404: Not Found"))
	assert.NotNil(t, c.lazy.matchers, "the first line compiles them")
	assert.Equal(t, Terminal, c.Classify(Exit{Code: 1}, s, time.Time{}).Class)
}

func TestPresetRulesListsEveryRuleThenTheHints(t *testing.T) {
	t.Parallel()
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			rows, err := PresetRules(p.Name)
			require.NoError(t, err)
			require.NotEmpty(t, rows)
			hints := 0
			for _, r := range rows {
				assert.Contains(t, []string{"transient", "terminal", "hint"}, r.Class)
				assert.NotEmpty(t, r.Description)
				assert.NotEmpty(t, r.Exit)
				if r.Match != "" {
					_, err := regexp.Compile(r.Match)
					assert.NoError(t, err, r.Match)
				}
				if r.Exit != "any" {
					_, err := ParseExitList(r.Exit)
					assert.NoError(t, err, r.Exit)
				}
				if r.Class == "hint" {
					hints++
				} else {
					assert.Zero(t, hints, "hints come after the rules")
				}
			}
			assert.Equal(t, len(commonHints()), hints)
		})
	}
}

func TestPresetRulesRejectsAnUnknownName(t *testing.T) {
	t.Parallel()
	_, err := PresetRules("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown preset "nope": want one of curl,`)
	assert.Contains(t, err.Error(), `a program a preset covers such as helm, or signatures`)
}

func TestPresetRulesAcceptsAProgramThatAPresetCovers(t *testing.T) {
	t.Parallel()
	byName, err := PresetRules("kubectl")
	require.NoError(t, err)
	for _, program := range []string{"helm", "/usr/local/bin/helm", "pip3.12"} {
		rows, err := PresetRules(program)
		require.NoError(t, err, program)
		require.NotEmpty(t, rows, program)
		if program != "pip3.12" {
			assert.Equal(t, byName, rows, program)
		}
	}
}

func TestPresetRulesListsTheSignatures(t *testing.T) {
	t.Parallel()
	rows, err := PresetRules(SignaturesName)
	require.NoError(t, err)
	require.Len(t, rows, len(signatureTable()))
	classes := map[string]int{}
	for _, r := range rows {
		classes[r.Class]++
		assert.Equal(t, "any", r.Exit)
		assert.NotEmpty(t, r.Description)
		_, err := regexp.Compile(r.Match)
		assert.NoError(t, err, r.Match)
	}
	for _, want := range []string{"terminal", "transient", "last-error"} {
		assert.NotZero(t, classes[want], want)
	}
	_, clash := findPreset(presetTable(), SignaturesName)
	assert.False(t, clash, "no preset may be named like the signatures")
}

func TestPresetsHaveDistinctNamesAndPrograms(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, p := range Presets() {
		for _, prog := range append([]string{"preset " + p.Name}, p.Programs...) {
			other, dup := seen[prog]
			assert.False(t, dup, "%s is claimed by %s and %s", prog, other, p.Name)
			seen[prog] = p.Name
		}
	}
}

func TestHTTPStatusFragmentsSplitEveryStatus(t *testing.T) {
	t.Parallel()
	retry := regexp.MustCompile(`^` + httpRetry + `$`)
	stop := regexp.MustCompile(`^` + httpStop + `$`)
	for code := 400; code <= 599; code++ {
		s := strconv.Itoa(code)
		wantRetry := code == 408 || code == 429 || code >= 500
		wantStop := (code < 500 && !wantRetry) || code == 501 || code == 505
		assert.Equal(t, wantRetry, retry.MatchString(s), "retry %d", code)
		assert.Equal(t, wantStop, stop.MatchString(s), "stop %d", code)
	}
}

func TestBrewStopsWhenItsCurlLacksTheProtocol(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"brew"}, signatures: true})
	v := judge(c, Exit{Code: 1},
		"curl: (4) A requested feature, protocol or option was not found built-in in this libcurl due to a build-time decision.",
		`Error: Failed to download resource "gettext"`,
		"Download failed: https://ftp.gnu.org/gnu/gettext/gettext-0.19.5.1.tar.xz")
	assert.Equal(t, Terminal, v.Class, v.Rule)
	v = judge(c, Exit{Code: 1},
		"curl: (56) Recv failure: Connection reset by peer",
		`Error: Failed to download resource "gettext"`)
	assert.Equal(t, Transient, v.Class, "a download cut by the network is still retried: %s", v.Rule)
}

func TestAnsibleRetriesAnUnexpectedExceptionThatIsATimeout(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"ansible"}, signatures: true})
	for _, line := range []string{
		"ERROR! Unexpected Exception, this is probably a bug: The read operation timed out",
		"ERROR! Unexpected Exception, this is probably a bug: <urlopen error [Errno 104] Connection reset by peer>",
		"[ERROR]: Unexpected Exception, this is probably a bug: <urlopen error [Errno -3] Temporary failure in name resolution>",
	} {
		assert.Equal(t, Transient, judge(c, Exit{Code: 1}, line).Class, line)
	}
	for _, line := range []string{
		"ERROR! Unexpected Exception, this is probably a bug: 'NoneType' object is not iterable",
		"[ERROR]: Unexpected Exception, this is probably a bug: list index out of range",
	} {
		assert.Equal(t, Terminal, judge(c, Exit{Code: 250}, line).Class, line)
	}
}
