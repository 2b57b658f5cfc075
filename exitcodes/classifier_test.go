package exitcodes

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rules builds a Config from flag-like strings; empty strings are left out.
type rules struct {
	retryOnExit, stopOnExit string
	retryIf, stopIf         []string
	retryAfter              []string
	presets                 []string
	signatures              bool
}

// newClassifier builds a Classifier from r, failing the test on bad input.
func newClassifier(t testing.TB, r rules) *Classifier {
	t.Helper()
	var cfg Config
	var err error
	if r.retryOnExit != "" {
		cfg.RetryOnExit, err = ParseExitList(r.retryOnExit)
		require.NoError(t, err)
	}
	if r.stopOnExit != "" {
		cfg.StopOnExit, err = ParseExitList(r.stopOnExit)
		require.NoError(t, err)
	}
	cfg.RetryIf, err = CompilePatterns(r.retryIf)
	require.NoError(t, err)
	cfg.StopIf, err = CompilePatterns(r.stopIf)
	require.NoError(t, err)
	cfg.RetryAfter, err = CompilePatterns(r.retryAfter)
	require.NoError(t, err)
	cfg.Presets = r.presets
	cfg.Signatures = r.signatures
	c, err := New(cfg)
	require.NoError(t, err)
	return c
}

// judge scans lines and classifies e.
func judge(c *Classifier, e Exit, lines ...string) Verdict {
	s := c.NewScan()
	for _, l := range lines {
		s.Line([]byte(l + "\n"))
	}
	return c.Classify(e, s, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
}

func TestClassifierAppliesThePrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules rules
		exit  Exit
		lines []string
		class Class
		rule  string
	}{
		{
			name:  "exit 0 is success even when a stop pattern matched",
			rules: rules{stopIf: []string{"error"}},
			exit:  Exit{Code: 0}, lines: []string{"error: but recovered"},
			class: Success,
		},
		{
			name:  "exit 0 is success even when listed in --stop-on-exit",
			rules: rules{stopOnExit: "0-255"},
			exit:  Exit{Code: 0},
			class: Success,
		},
		{
			name:  "stop-on-exit beats retry-on-exit",
			rules: rules{retryOnExit: "1-10", stopOnExit: "2"},
			exit:  Exit{Code: 2},
			class: Terminal, rule: "--stop-on-exit 2",
		},
		{
			name:  "stop-if beats retry-on-exit",
			rules: rules{retryOnExit: "1", stopIf: []string{"denied"}},
			exit:  Exit{Code: 1}, lines: []string{"access denied"},
			class: Terminal, rule: `--stop-if "denied"`,
		},
		{
			name:  "stop-if beats retry-if on the same output",
			rules: rules{retryIf: []string{"timeout"}, stopIf: []string{"denied"}},
			exit:  Exit{Code: 1}, lines: []string{"timeout", "denied"},
			class: Terminal, rule: `--stop-if "denied"`,
		},
		{
			name:  "retry-on-exit names the item that matched",
			rules: rules{retryOnExit: "1,100-110"},
			exit:  Exit{Code: 105},
			class: Transient, rule: "--retry-on-exit 100-110",
		},
		{
			name:  "retry-if names its pattern",
			rules: rules{retryIf: []string{"timeout"}},
			exit:  Exit{Code: 1}, lines: []string{"read timeout after 5s"},
			class: Transient, rule: `--retry-if "timeout"`,
		},
		{
			name:  "an allow-list makes an unmatched failure terminal",
			rules: rules{retryIf: []string{"timeout"}},
			exit:  Exit{Code: 1}, lines: []string{"something else"},
			class: Terminal, rule: "no --retry-on-exit or --retry-if rule matched",
		},
		{
			name:  "an allow-list by exit code makes other codes terminal",
			rules: rules{retryOnExit: "75"},
			exit:  Exit{Code: 1},
			class: Terminal, rule: "no --retry-on-exit or --retry-if rule matched",
		},
		{
			name:  "an allow-list beats the presets",
			rules: rules{retryOnExit: "75", presets: []string{"curl"}},
			exit:  Exit{Code: 7},
			class: Terminal,
		},
		{
			name:  "the user's retry rule beats a terminal preset rule",
			rules: rules{retryOnExit: "22", presets: []string{"curl"}},
			exit:  Exit{Code: 22}, lines: []string{"curl: (22) The requested URL returned error: 404"},
			class: Transient, rule: "--retry-on-exit 22",
		},
		{
			name:  "the user's stop rule beats a transient preset rule",
			rules: rules{stopOnExit: "7", presets: []string{"curl"}},
			exit:  Exit{Code: 7},
			class: Terminal, rule: "--stop-on-exit 7",
		},
		{
			name:  "stop rules alone keep the presets",
			rules: rules{stopOnExit: "3", presets: []string{"curl"}},
			exit:  Exit{Code: 22}, lines: []string{"curl: (22) The requested URL returned error: 404"},
			class: Terminal, rule: `curl preset, "returned error: 404"`,
		},
		{
			name:  "stop rules alone keep the defaults",
			rules: rules{stopIf: []string{"fatal"}},
			exit:  Exit{Code: 1},
			class: Transient,
		},
		{
			name:  "a preset beats the default table",
			rules: rules{presets: []string{"curl"}},
			exit:  Exit{Code: 60},
			class: Terminal, rule: "curl preset, exit 60 (certificate, pinned key or TLS configuration problem)",
		},
		{
			name:  "the defaults decide what no preset rule covers",
			rules: rules{presets: []string{"curl"}},
			exit:  Exit{Code: 64},
			class: Terminal, rule: "sysexits EX_USAGE",
		},
		{
			name:  "no rules at all is the default table",
			exit:  Exit{Code: 1},
			class: Transient,
		},
		{
			name:  "not found stays terminal under a broad retry range",
			rules: rules{retryOnExit: "1-255"},
			exit:  Exit{Code: NotFound, Start: ProgramMissing},
			class: Terminal, rule: "not found",
		},
		{
			name:  "a shell's exit 127 stays terminal under a broad retry range",
			rules: rules{retryOnExit: "100-200"},
			exit:  Exit{Code: 127},
			class: Terminal, rule: "exit 127 means not found",
		},
		{
			name:  "not found is retried when 127 is listed by itself",
			rules: rules{retryOnExit: "127"},
			exit:  Exit{Code: NotFound, Start: ProgramMissing},
			class: Transient, rule: "--retry-on-exit 127",
		},
		{
			name:  "not executable is retried when 126 is listed by itself",
			rules: rules{retryOnExit: "1,126"},
			exit:  Exit{Code: 126},
			class: Transient, rule: "--retry-on-exit 126",
		},
		{
			name:  "a retry-if pattern does not make not found transient",
			rules: rules{retryIf: []string{"."}},
			exit:  Exit{Code: NotFound, Start: ProgramMissing}, lines: []string{"anything"},
			class: Terminal,
		},
		{
			name:  "SIGPIPE is never retried, whatever the rules say",
			rules: rules{retryOnExit: "SIGPIPE,141"},
			exit:  Signaled(syscall.SIGPIPE),
			class: Terminal, rule: "the reader went away",
		},
		{
			name:  "a shell's 141 is never retried either",
			rules: rules{retryOnExit: "141"},
			exit:  Exit{Code: 141},
			class: Terminal,
		},
		{
			name:  "a listed signal makes a crash transient",
			rules: rules{retryOnExit: "SIGSEGV"},
			exit:  Signaled(syscall.SIGSEGV),
			class: Transient, rule: "--retry-on-exit SIGSEGV",
		},
		{
			name:  "a timeout stays transient under an allow-list",
			rules: rules{retryIf: []string{"503"}},
			exit:  Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true},
			class: Transient,
		},
		{
			name:  "stop-on-exit timeout makes a timeout terminal",
			rules: rules{stopOnExit: "timeout"},
			exit:  Exit{Code: 143, Signal: syscall.SIGTERM, TimedOut: true},
			class: Terminal, rule: "--stop-on-exit timeout",
		},
		{
			name:  "stop-if applies to a timed-out attempt's output",
			rules: rules{stopIf: []string{"denied"}},
			exit:  Exit{Code: 143, TimedOut: true}, lines: []string{"denied"},
			class: Terminal,
		},
		{
			name:  "presets leave a death by signal to the defaults",
			rules: rules{presets: []string{"git"}},
			exit:  Signaled(syscall.SIGSEGV), lines: []string{"fatal: the remote end hung up unexpectedly"},
			class: Terminal, rule: "a crash",
		},
		{
			name:  "across presets terminal beats transient",
			rules: rules{presets: []string{"curl", "ssh"}},
			exit:  Exit{Code: 7}, lines: []string{"Permission denied (publickey)."},
			class: Terminal, rule: "ssh preset",
		},
		{
			name:  "signatures judge what no preset decided",
			rules: rules{signatures: true},
			exit:  Exit{Code: 1}, lines: []string{"HTTP 404: Not Found (https://api.github.com/repos/o/r)"},
			class: Terminal, rule: `signature "HTTP 404"`,
		},
		{
			name:  "a preset beats the signatures",
			rules: rules{presets: []string{"git"}, signatures: true},
			exit:  Exit{Code: 128}, lines: []string{"HTTP 404 from the mirror", "fatal: early EOF"},
			class: Transient, rule: "git preset",
		},
		{
			name:  "the user's rules beat the signatures",
			rules: rules{retryIf: []string{"Not Found"}, signatures: true},
			exit:  Exit{Code: 1}, lines: []string{"HTTP 404: Not Found"},
			class: Transient, rule: "--retry-if",
		},
		{
			name:  "signatures leave a sysexits code to the default table",
			rules: rules{signatures: true},
			exit:  Exit{Code: 64}, lines: []string{"connection refused"},
			class: Terminal, rule: "sysexits EX_USAGE",
		},
		{
			name:  "signatures leave a shell's 128+n to the default table",
			rules: rules{signatures: true},
			exit:  Exit{Code: 137}, lines: []string{"HTTP 404: Not Found"},
			class: Transient,
		},
		{
			name:  "signatures leave a death by signal to the default table",
			rules: rules{signatures: true},
			exit:  Signaled(syscall.SIGKILL), lines: []string{"HTTP 404: Not Found"},
			class: Transient,
		},
		{
			name:  "a transient signature beats a plain terminal one",
			rules: rules{signatures: true},
			exit:  Exit{Code: 1}, lines: []string{"skip a.tgz: 404 Not Found", "b.tgz: connect: connection refused"},
			class: Transient, rule: `signature "connection refused"`,
		},
		{
			name:  "a sure terminal signature beats a transient one",
			rules: rules{signatures: true},
			exit:  Exit{Code: 1}, lines: []string{"attempt 1: i/o timeout", "attempt 2: x509: certificate signed by unknown authority"},
			class: Terminal, rule: `signature "x509: certificate"`,
		},
		{
			name:  "the error a runtime died of is judged first",
			rules: rules{signatures: true},
			exit:  Exit{Code: 1}, lines: []string{"WARNING: connection reset, retrying", "Traceback (most recent call last):", "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://x/"},
			class: Terminal, rule: `signature "HTTPError: 404"`,
		},
		{
			name:  "a start failure goes through the exit lists by its code",
			rules: rules{stopOnExit: "125"},
			exit:  Exit{Code: 125, Start: StartFailed},
			class: Terminal, rule: "--stop-on-exit 125",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := judge(newClassifier(t, tt.rules), tt.exit, tt.lines...)
			assert.Equal(t, tt.class, v.Class, "rule %q", v.Rule)
			if tt.rule != "" {
				assert.Contains(t, v.Rule, tt.rule)
			}
		})
	}
}

func TestClassifierWithNoRulesAgreesWithTheDefaultTable(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{})
	exits := []Exit{
		{Code: 0}, {Code: 1}, {Code: 2}, {Code: 64}, {Code: 75}, {Code: 78}, {Code: 126}, {Code: 127},
		{Code: 130}, {Code: 137}, {Code: 139}, {Code: 141}, {Code: 255},
		Signaled(syscall.SIGKILL), Signaled(syscall.SIGINT), Signaled(syscall.SIGSEGV), Signaled(syscall.SIGPIPE),
		{Code: 143, Signal: syscall.SIGTERM, TimedOut: true},
		{Code: NotFound, Start: ProgramMissing}, {Code: NotExecutable, Start: ProgramNotExecutable},
		{Code: Usage, Start: StartFailed},
	}
	for _, e := range exits {
		t.Run(e.String(), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, Classify(e), c.Classify(e, nil, time.Time{}))
			assert.Equal(t, Classify(e), c.Classify(e, c.NewScan(), time.Time{}))
		})
	}
}

func TestDefaultClassifyKeepsItsTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		exit Exit
		want Verdict
	}{
		{Exit{Code: 0}, Verdict{Class: Success}},
		{Exit{Code: 1}, Verdict{Class: Transient}},
		{Exit{Code: 64}, Verdict{Class: Terminal, Rule: "sysexits EX_USAGE"}},
		{Exit{Code: 75}, Verdict{Class: Transient, Rule: "sysexits EX_TEMPFAIL"}},
		{Exit{Code: 126}, Verdict{Class: Terminal, Rule: "exit 126 means not executable"}},
		{Exit{Code: 127}, Verdict{Class: Terminal, Rule: "exit 127 means not found"}},
		{Exit{Code: 130}, Verdict{Class: Terminal, Rule: "128+SIGINT, an interrupt"}},
		{Exit{Code: 137}, Verdict{Class: Transient}},
		{Signaled(syscall.SIGSEGV), Verdict{Class: Terminal, Rule: "a crash"}},
		{Signaled(syscall.SIGKILL), Verdict{Class: Transient}},
		{Exit{Code: 143, TimedOut: true}, Verdict{Class: Transient}},
		{Exit{Code: 127, Start: ProgramMissing}, Verdict{Class: Terminal, Rule: "not found"}},
		{Exit{Code: 126, Start: ProgramNotExecutable}, Verdict{Class: Terminal, Rule: "not executable"}},
		{Exit{Code: 125, Start: StartFailed}, Verdict{Class: Transient, Rule: "start failed"}},
	}
	for _, tt := range tests {
		t.Run(tt.exit.String(), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Classify(tt.exit))
		})
	}
}

func TestVerdictCarriesTheLastThreeDecidingLinesCut(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{retryIf: []string{"busy", "retry"}})
	long := "busy " + strings.Repeat("é", 500)
	v := judge(c, Exit{Code: 1}, "busy 1", "noise", "retry 2", "busy 3", "more noise", long)
	require.Equal(t, Transient, v.Class)
	require.Len(t, v.Lines, MaxLines)
	assert.Equal(t, "retry 2", v.Lines[0])
	assert.Equal(t, "busy 3", v.Lines[1])
	assert.Equal(t, MaxLineChars, utf8.RuneCountInString(v.Lines[2]))
	assert.True(t, strings.HasSuffix(v.Lines[2], "…"))
	assert.Contains(t, v.Rule, `"busy"`, "the pattern that matched last names the rule")
}

func TestVerdictLinesComeOnlyFromTheDecidingClass(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"git"}})
	v := judge(c, Exit{Code: 128},
		"Cloning into 'repo'...",
		"error: RPC failed; curl 56 GnuTLS recv error (-9): A TLS packet with unexpected length was received.",
		"fatal: early EOF",
		"fatal: index-pack failed",
	)
	require.Equal(t, Transient, v.Class, v.Rule)
	assert.Equal(t, []string{
		"error: RPC failed; curl 56 GnuTLS recv error (-9): A TLS packet with unexpected length was received.",
		"fatal: early EOF",
		"fatal: index-pack failed",
	}, v.Lines)
}

func TestVerdictHasNoLinesWhenTheExitStatusDecided(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{stopOnExit: "2", retryIf: []string{"x"}})
	v := judge(c, Exit{Code: 2}, "x")
	assert.Equal(t, Terminal, v.Class)
	assert.Empty(t, v.Lines)
}

func TestRuleQuotesMatchedTextShortAndSafe(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"npm"}})
	v := judge(c, Exit{Code: 1}, `npm ERR! network request to https://registry.npmjs.org/x failed, reason: socket hang up`+strings.Repeat(" x", 100))
	assert.Equal(t, `npm preset, "socket hang up"`, v.Rule)

	c = newClassifier(t, rules{retryIf: []string{`say "(\w+)"\t`}})
	v = judge(c, Exit{Code: 1}, "say \"hi\"\t")
	assert.Equal(t, `--retry-if "say \"(\\w+)\"\\t"`, v.Rule, "quotes and tabs are escaped Go-style")

	c = newClassifier(t, rules{retryIf: []string{`5\d\d`}})
	v = judge(c, Exit{Code: 1}, "HTTP 503")
	assert.Equal(t, `--retry-if "5\d\d"`, v.Rule, "a pattern without quotes reads as written")
}

func TestTransientVerdictCarriesTheLastRetryAfterHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rules rules
		lines []string
		want  time.Duration
		ok    bool
	}{
		{
			name:  "user pattern in seconds",
			rules: rules{retryAfter: []string{`retry in (\d+)s`}},
			lines: []string{"busy, retry in 12s"}, want: 12 * time.Second, ok: true,
		},
		{
			name:  "the last match wins",
			rules: rules{retryAfter: []string{`retry in (\S+)`}},
			lines: []string{"retry in 5", "retry in 7"}, want: 7 * time.Second, ok: true,
		},
		{
			name:  "an HTTP-date is read against now",
			rules: rules{retryAfter: []string{`until (.*)$`}},
			lines: []string{"until Wed, 01 Jan 2025 00:01:00 GMT"}, want: time.Minute, ok: true,
		},
		{
			name:  "the user's pattern beats the preset's header",
			rules: rules{retryAfter: []string{`wait (\d+)`}, presets: []string{"curl"}},
			lines: []string{"wait 3", "Retry-After: 60"}, want: 3 * time.Second, ok: true,
		},
		{
			name:  "the preset's header when the user's value is garbage",
			rules: rules{retryAfter: []string{`wait (\S+)`}, presets: []string{"curl"}},
			lines: []string{"wait soon", "Retry-After: 60"}, want: time.Minute, ok: true,
		},
		{
			name:  "grpc pushback in milliseconds",
			rules: rules{presets: []string{"go"}},
			lines: []string{"grpc-retry-pushback-ms: 250"}, want: 250 * time.Millisecond, ok: true,
		},
		{
			name:  "aws debug dict with x-amz-retry-after",
			rules: rules{presets: []string{"aws"}},
			lines: []string{`Response headers: {'x-amz-request-id': 'X', 'x-amz-retry-after': '2000'}`}, want: 2 * time.Second, ok: true,
		},
		{
			name:  "no hint without a match",
			rules: rules{presets: []string{"curl"}},
			lines: []string{"nothing"},
		},
		{
			name:  "a negative wait is no hint",
			rules: rules{retryAfter: []string{`wait (\S+)`}},
			lines: []string{"wait -5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// 56 is a transient exit for curl, and no preset's terminal one.
			v := judge(newClassifier(t, tt.rules), Exit{Code: 56}, tt.lines...)
			require.Equal(t, Transient, v.Class)
			assert.Equal(t, tt.ok, v.HasHint)
			assert.Equal(t, tt.want, v.Hint)
		})
	}
}

func TestTerminalVerdictCarriesNoHint(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"curl"}})
	v := judge(c, Exit{Code: 22}, "Retry-After: 30", "curl: (22) The requested URL returned error: 404")
	assert.Equal(t, Terminal, v.Class)
	assert.False(t, v.HasHint)
	assert.Zero(t, v.Hint)
}

func TestNeedsOutputOnlyWhenSomePatternApplies(t *testing.T) {
	t.Parallel()
	assert.False(t, newClassifier(t, rules{}).NeedsOutput())
	assert.False(t, newClassifier(t, rules{retryOnExit: "1", stopOnExit: "2"}).NeedsOutput())
	assert.True(t, newClassifier(t, rules{retryIf: []string{"x"}}).NeedsOutput())
	assert.True(t, newClassifier(t, rules{stopIf: []string{"x"}}).NeedsOutput())
	assert.True(t, newClassifier(t, rules{retryAfter: []string{"(x)"}}).NeedsOutput())
	assert.True(t, newClassifier(t, rules{presets: []string{"curl"}}).NeedsOutput())
	c, err := New(Config{Signatures: true})
	require.NoError(t, err)
	assert.True(t, c.NeedsOutput(), "the signatures read every program's output")
}

func TestNewRejectsUnknownPresetsAndRetryAfterWithoutGroup(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Presets: []string{"curl", "kurl"}})
	require.Error(t, err)
	assert.Equal(t, `unknown preset "kurl": want auto, none or one of `+strings.Join(presetNames(presetTable()), ", "), err.Error())

	_, err = New(Config{RetryAfter: []*regexp.Regexp{regexp.MustCompile(`Retry-After: \d+`)}})
	var pe *PatternError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `Retry-After: \d+`, pe.Pattern)
	assert.Equal(t, `pattern "Retry-After: \\d+": no capture group: want the wait in parentheses, as "Retry-After: (\S+)"`, err.Error())
}

func TestNewDropsDuplicatePresets(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{presets: []string{"git", "curl", "git"}})
	assert.Equal(t, []string{"git", "curl"}, c.Presets())
}

func TestCompilePatternsNamesTheBadPattern(t *testing.T) {
	t.Parallel()
	res, err := CompilePatterns([]string{"ok", "(unclosed", "also ok"})
	assert.Nil(t, res)
	var pe *PatternError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "(unclosed", pe.Pattern)
	assert.Equal(t, `pattern "(unclosed": missing closing ) in "(unclosed": want a Go regular expression (RE2 syntax)`, err.Error())

	_, err = CompilePatterns([]string{`(?<!x)y`})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "want a Go regular expression (RE2 syntax)")

	res, err = CompilePatterns(nil)
	require.NoError(t, err)
	assert.Empty(t, res)
}

func TestScanIsSafeForConcurrentLines(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{retryIf: []string{"retry"}, presets: []string{"curl"}})
	s := c.NewScan()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				s.Line(fmt.Appendf(nil, "stream %d line %d retry", g, i))
			}
		}()
	}
	wg.Wait()
	v := c.Classify(Exit{Code: 1}, s, time.Time{})
	assert.Equal(t, Transient, v.Class)
	assert.Len(t, v.Lines, MaxLines)
}

func TestScanMemoryIsBoundedByThePatterns(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{retryIf: []string{"x"}})
	s := c.NewScan()
	line := []byte(strings.Repeat("x", 64<<10))
	for range 1000 {
		s.Line(line)
	}
	require.Len(t, s.hits, 1)
	total := len(s.hits[0].text) + len(s.hits[0].value)
	for _, l := range s.hits[0].lines {
		total += len(l.text)
	}
	assert.LessOrEqual(t, total, 4*(MaxLineChars*MaxLines+maxMatchChars))
}

func TestNilScanAndForeignScanAreSafe(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{retryIf: []string{"x"}})
	var s *Scan
	s.Line([]byte("x"))
	assert.Equal(t, Terminal, c.Classify(Exit{Code: 1}, nil, time.Time{}).Class)

	other := newClassifier(t, rules{retryIf: []string{"y"}, stopIf: []string{"z"}})
	foreign := other.NewScan()
	foreign.Line([]byte("z"))
	assert.Equal(t, Terminal, c.Classify(Exit{Code: 1}, foreign, time.Time{}).Class)
}

func TestThrottledVerdictSaysTheServerAskedToSlowDown(t *testing.T) {
	t.Parallel()
	curl := newClassifier(t, rules{presets: []string{"curl"}, signatures: true})
	any := newClassifier(t, rules{signatures: true})
	for _, tc := range []struct {
		name      string
		code      int
		line      string
		throttled bool
	}{
		{"curl 429", 22, "curl: (22) The requested URL returned error: 429", true},
		{"python 429", 1, "urllib.error.HTTPError: HTTP Error 429: Too Many Requests", true},
		{"a rate limit in words", 1, "Error: API rate limit exceeded for installation ID 1234.", true},
		{"AWS throttling", 255, "An error occurred (ThrottlingException) when calling the DescribeStacks operation (reached max retries: 2): Rate exceeded", true},
		{"curl 503", 22, "curl: (22) The requested URL returned error: 503", false},
		{"connection refused", 1, "dial tcp 127.0.0.1:5432: connect: connection refused", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := any
			if strings.HasPrefix(tc.line, "curl:") {
				c = curl
			}
			v := judge(c, Exit{Code: tc.code}, tc.line)
			require.Equal(t, Transient, v.Class, v.Rule)
			assert.Equal(t, tc.throttled, v.Throttled, v.Rule)
		})
	}
}

func TestThrottledVerdictWithRetryAfterFollowsTheHint(t *testing.T) {
	t.Parallel()
	c := newClassifier(t, rules{retryIf: []string{"429"}, retryAfter: []string{`Retry-After: (\d+)`}})
	v := judge(c, Exit{Code: 1}, "HTTP/1.1 429 Too Many Requests", "Retry-After: 7")
	require.True(t, v.HasHint)
	assert.False(t, v.Throttled, "the server said when: its hint decides the wait")
}
