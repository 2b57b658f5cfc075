package exitcodes

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/, which go test runs
// every time; inputs the fuzzer found interesting are kept there too.

func FuzzParseExitList(f *testing.F) {
	for _, s := range []string{"1", "1,75,100-110", "SIGKILL,timeout", "kill", " 2 , 3 ", "", ",", "110-100", "256", "-1", "1-2-3", "0x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseExitList(s)
		if err != nil {
			assertMessageRules(t, err.Error())
			return
		}
		again, err := ParseExitList(l.String())
		require.NoError(t, err, "the canonical form %q must parse", l.String())
		assert.Equal(t, l.String(), again.String())
		for code := 0; code <= maxExitCode; code++ {
			_, ok1 := l.Match(Exit{Code: code})
			_, ok2 := again.Match(Exit{Code: code})
			assert.Equal(t, ok1, ok2, "code %d", code)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"30", "1.5", "2m", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "-5", "99999999999999999999", "1e3", "NaN", ""} {
		f.Add(s, int64(784111777))
	}
	f.Fuzz(func(t *testing.T, s string, nowUnix int64) {
		d, ok := ParseRetryAfter(s, time.Unix(nowUnix, 0))
		if !ok {
			assert.Zero(t, d)
			return
		}
		assert.GreaterOrEqual(t, d, time.Duration(0))
		assert.LessOrEqual(t, d, MaxRetryAfter)
		if v := strings.Trim(s, " \t\r\n\"'"); isDigits(v) && len(v) <= 64 {
			assert.True(t, ok, "whole seconds always parse")
		}
	})
}

func FuzzClassify(f *testing.F) {
	f.Add(22, uint8(0), false, uint8(0), []byte("curl: (22) The requested URL returned error: 503\nRetry-After: 30\n"))
	f.Add(128, uint8(0), false, uint8(0), []byte("fatal: early EOF\nfatal: index-pack failed"))
	f.Add(255, uint8(0), false, uint8(0), []byte("git@github.com: Permission denied (publickey)."))
	f.Add(137, uint8(9), false, uint8(0), []byte("Killed"))
	f.Add(143, uint8(15), true, uint8(0), []byte("wait 5\n"))
	f.Add(127, uint8(0), false, uint8(1), []byte(""))
	f.Add(0, uint8(0), false, uint8(0), []byte("denied\n"))
	f.Add(1, uint8(0), false, uint8(0), []byte("\xff\xfe\u212A\u017F timeout"))
	f.Add(1, uint8(0), false, uint8(0), []byte("HTTP 403: API rate limit exceeded for 203.0.113.7. (https://api.github.com/)"))
	f.Add(1, uint8(0), false, uint8(0), []byte("WARNING: connection reset, retrying\nTraceback (most recent call last):\nurllib.error.HTTPError: HTTP Error 404: Not Found"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Error: connect ECONNREFUSED 127.0.0.1:5432\n  code: 'ECONNREFUSED',\nNode.js v20"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Exception in thread \"main\" java.lang.RuntimeException: x\nCaused by: java.net.ConnectException: Connection refused"))
	f.Add(2, uint8(0), false, uint8(0), []byte("psql: error: connection to server at \"db\" failed: FATAL:  password authentication failed for user \"app\""))
	f.Add(4, uint8(0), false, uint8(0), []byte("fatal: [web1]: UNREACHABLE! => {\"msg\": \"Connection timed out\"}"))
	// Forms the signatures learnt from the first held-out set: a Go API
	// client's "URL: status", pulumi's "[409] Conflict", an error chain
	// ending in ": not found", a hint to log in.
	f.Add(1, uint8(0), false, uint8(0), []byte("Error: GET https://api.digitalocean.com/v2/droplets?page=1&per_page=200: 401 (request \"f3c2\") Unable to authenticate you"))
	f.Add(255, uint8(0), false, uint8(0), []byte("error: [409] Conflict: Another update is currently in progress.\nerror: [503] "))
	f.Add(1, uint8(0), false, uint8(0), []byte("Error: failed to resolve v2: ghcr.io/org/artifact:v2: not found\nFatal: wrong password or no key found"))
	f.Add(1, uint8(0), false, uint8(0), []byte("ERROR: Please run 'az login' to setup account.\nhttp://x: 503 (Service Unavailable)"))
	// Forms the presets learnt in their third round: an exception whose
	// message is a timeout, a curl without the protocol, a pod still
	// starting, a psql lock timeout, a mysql constraint, a Go compile
	// error, a NuGet feed down while a package looks missing.
	f.Add(1, uint8(0), false, uint8(0), []byte("ERROR! Unexpected Exception, this is probably a bug: <urlopen error [Errno -3] Temporary failure in name resolution>"))
	f.Add(1, uint8(0), false, uint8(0), []byte("curl: (4) A requested feature, protocol or option was not found built-in in this libcurl\nError: Failed to download resource \"gettext\""))
	f.Add(1, uint8(0), false, uint8(0), []byte("Error from server (BadRequest): container \"app\" in pod \"web-1\" is waiting to start: ContainerCreating"))
	f.Add(3, uint8(0), false, uint8(0), []byte("psql:migrate.sql:2: ERROR:  canceling statement due to lock timeout"))
	f.Add(1, uint8(0), false, uint8(0), []byte("ERROR 1452 (23000) at line 42: Cannot add or update a child row\nERROR 1290 (HY000): The MySQL server is running with the --read-only option"))
	f.Add(1, uint8(0), false, uint8(0), []byte("# example.com/app\n./main.go:7:2: \"os\" imported and not used"))
	f.Add(1, uint8(0), false, uint8(0), []byte("error NU1301: Unable to load the service index\nerror NU1101: Unable to find package Serilog"))
	// Families of issue 14: a tool's own words for a missing thing or
	// credentials, a reply word before a status, parse and link errors,
	// and the transient forms that share their words.
	f.Add(1, uint8(0), false, uint8(0), []byte(" ▸    Couldn't find that app.\nerror: no stack named 'org/dev' found\nPULUMI_ACCESS_TOKEN must be set for login"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Fatal: unable to open config file: Stat: 401\n[!] CDN: Response: 403\nRESPONSE 503: 503 Server Busy"))
	f.Add(1, uint8(0), false, uint8(0), []byte("yaml: line 12: did not find expected key\njq: 1 compile error\ncollect2: error: ld returned 1 exit status"))
	f.Add(2, uint8(0), false, uint8(0), []byte("gzip: stdin: unexpected end of file\ntar: Unexpected EOF in archive\nE: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1797 (apt-get)"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Remote: Bad owner or permissions on /home/u/.ssh/config\nConnection closed by remote host."))
	f.Add(1, uint8(0), false, uint8(0), []byte("Warning: ccache not found, building without it\nHTTP/2 is not supported by the proxy, retrying\nno healthy upstream"))
	// Families of the fourth held-out set: lint counts and findings,
	// credentials and shares refused in a server's terms, an app that
	// cannot be imported, a name registered twice, another architecture,
	// and the transient forms that share their words.
	f.Add(1, uint8(0), false, uint8(0), []byte("./app.py:3:1: F401 'os' imported but unused\nFound 112 errors in 26 files (checked 44 source files)\n2:57PM WRN leaks found: 36"))
	f.Add(1, uint8(0), false, uint8(0), []byte("ERROR:    Error loading ASGI app. Could not import module \"main\".\nsession setup failed: NT_STATUS_LOGON_FAILURE\nConnection Refused: not authorized."))
	f.Add(1, uint8(0), false, uint8(0), []byte("may not add resource with an already registered id: x\n     2 changesets check sum\nerror: failed to commit transaction (conflicting files)"))
	f.Add(1, uint8(0), false, uint8(0), []byte("exec /usr/local/bin/docker-entrypoint.sh: exec format error\nError: Your Command Line Tools are too outdated.\nInternal Error: Cannot find matching keyid: {}"))
	f.Add(1, uint8(0), false, uint8(0), []byte("do_connect: Connection to 10.0.0.1 failed (Error NT_STATUS_IO_TIMEOUT)\nAUTH_FAILED,TEMP[backoff 30]\ngpg: keyserver receive failed: Connection timed out"))
	f.Add(1, uint8(0), false, uint8(0), []byte("nuget : Response status code does not indicate success: 406 (Not Acceptable).\nNo package found matching input criteria."))
	// Families of the fifth held-out set, and the error line judged last
	// with the words that keep it from deciding.
	f.Add(1, uint8(0), false, uint8(0), []byte("curl: (51) SSL: no alternative certificate subject name matches target host name 'x'\npyenv: version `3.9.13' is not installed"))
	f.Add(1, uint8(0), false, uint8(0), []byte("** (Mix) Hex dependency resolution failed\nERROR! couldn't resolve module/action 'x'.\nunzip:  cannot find or open a.zip, a.zip.zip or a.zip.ZIP."))
	f.Add(1, uint8(0), false, uint8(0), []byte("error: No remote refs found similar to \u2018flathub\u2019\n ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile pnpm-lock.yaml not compatible"))
	f.Add(1, uint8(0), false, uint8(0), []byte("error: invalid object\nretrying in 2s\nError: Failed to update x: No such ref 'y' [28] Timeout was reached"))
	// The twelfth held-out set: wget's status in its translations, a
	// checker's FAILED, the checksum database behind a fresh tag, Google
	// Fonts' 404s, libgit2's lost object, and the families of the round.
	f.Add(8, uint8(0), false, uint8(0), []byte("2025-03-01 12:00:00 FEHLER 503: Service Unavailable.\n2025-03-01 12:00:00 \u9519\u8bef 404\uff1aNot Found\u3002\nEROARE 2025-03-01 12:00:00 401: Unauthorized."))
	f.Add(1, uint8(0), false, uint8(0), []byte("app.tgz: FAILED\nsha256sum: WARNING: 1 computed checksum did NOT match\nfatal: could not read Username for 'https://github.com': terminal prompts disabled"))
	f.Add(1, uint8(0), false, uint8(0), []byte("go: m@v1.2.3: verifying module: m@v1.2.3: reading https://sum.golang.org/lookup/m@v1.2.3: 404 Not Found\nReceived response with status 404 when requesting\nhttps://fonts.gstatic.com/s/x/v1/a.woff2"))
	f.Add(101, uint8(0), false, uint8(0), []byte("  object not found - no match for id (d44b2d20); class=Odb (9); code=NotFound (-3)\nrevspec '5eddea0' not found; class=Reference (4)"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Error: x.md:1:1\": EOF looking for end TOML front matter delimiter\nNear line 1 (last key parsed 'module'): bare keys cannot contain '.'\n  could not find driver"))
	f.Add(1, uint8(0), false, uint8(0), []byte("[ERROR] Error: Docusaurus found broken links!\n{:failed_connect, [{:inet, [:inet], {:option, :server_only, :honor_cipher_order}}]}\nDriver org.postgresql.Driver claims to not accept jdbcUrl, jdbc:x"))
	// The thirteenth held-out set: a 403 that says it is a rate limit,
	// CentOS's retired mirror list, and the families of the round.
	f.Add(22, uint8(0), false, uint8(0), []byte("{\"message\":\"API rate limit exceeded for 203.0.113.9.\"}\n< x-ratelimit-remaining: 0\ncurl: (22) The requested URL returned error: 403"))
	f.Add(8, uint8(0), false, uint8(0), []byte("  X-RateLimit-Remaining: 0\n2019-01-02 02:47:12 ERROR 403: rate limit exceeded.\nCould not retrieve mirrorlist http://mirrorlist.centos.org/?release=7 error was"))
	f.Add(1, uint8(0), false, uint8(0), []byte("Error: can't load config: the Go language version (go1.22) used to build golangci-lint is lower than the targeted Go version (1.23.1)\n-: module requires at least go1.23.5, but Staticcheck was built with go1.23.2 (compile)"))
	f.Add(1, uint8(0), false, uint8(0), []byte("(obsolete configuration found in .rubocop.yml, please update it)\nError: obsolete parameter `AlignWith` (for `Lint/EndAlignment`) found in .rubocop.yml\npg_dump: detail: server version: 16.2; pg_dump version: 15.4"))
	f.Add(1, uint8(0), false, uint8(0), []byte("error: failed to download openssl-1.0.1q.tar.gz\n\nBUILD FAILED (OS X 10.11.2 using ruby-build 20151028)\nL:   2 | P:  12 |  TMP | Undefined jinja template variable: 'x'"))
	// Classifiers are immutable: build them once for every input.
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	plain, err := New(Config{Presets: names, Signatures: true})
	require.NoError(f, err)
	user := newClassifier(f, rules{
		retryIf: []string{"(?i)timeout", `5\d\d`}, stopIf: []string{"denied"},
		retryAfter: []string{`wait (\S+)`}, presets: names,
	})
	sigs, err := New(Config{Signatures: true})
	require.NoError(f, err)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, code int, sig uint8, timedOut bool, start uint8, output []byte) {
		e := Exit{
			Code:     ((code % 256) + 256) % 256,
			Signal:   syscall.Signal(sig % 65),
			TimedOut: timedOut,
			Start:    Start(start % 4),
		}
		for _, c := range []*Classifier{plain, user, sigs} {
			s := c.NewScan()
			for line := range bytes.SplitSeq(output, []byte("\n")) {
				s.Line(line)
				checkPrefilter(t, c, line)
			}
			checkVerdict(t, e, c.Classify(e, s, now))
		}
	})
}

// checkVerdict asserts what every verdict must satisfy.
func checkVerdict(t *testing.T, e Exit, v Verdict) {
	t.Helper()
	require.Contains(t, []Class{Success, Transient, Terminal}, v.Class)
	if e.Code == 0 && e.Signal == 0 && !e.TimedOut && e.Start == Started {
		assert.Equal(t, Success, v.Class)
	}
	assert.LessOrEqual(t, len(v.Lines), MaxLines)
	for _, l := range v.Lines {
		assert.True(t, utf8.ValidString(l))
		assert.LessOrEqual(t, utf8.RuneCountInString(l), MaxLineChars)
	}
	assert.True(t, utf8.ValidString(v.Rule))
	assert.LessOrEqual(t, utf8.RuneCountInString(v.Rule), 200)
	if v.HasHint {
		assert.Equal(t, Transient, v.Class)
		assert.GreaterOrEqual(t, v.Hint, time.Duration(0))
		assert.LessOrEqual(t, v.Hint, MaxRetryAfter)
	} else {
		assert.Zero(t, v.Hint)
	}
}

// checkPrefilter asserts that no matcher's literal test rejects a line its
// regexp matches.
func checkPrefilter(t *testing.T, c *Classifier, line []byte) {
	t.Helper()
	folded := foldLine(nil, line)
	matchers := c.compiled().matchers
	for i := range matchers {
		m := &matchers[i]
		if m.re.Match(line) {
			assert.True(t, m.mayMatch(line, folded, gramsOf(line), gramsOf(folded)), "pattern %q rejected matching line %q", m.re.String(), line)
		}
	}
}

// assertMessageRules checks the house rules for messages: one line,
// lowercase start, no trailing period.
func assertMessageRules(t *testing.T, msg string) {
	t.Helper()
	assert.NotEmpty(t, msg)
	assert.NotContains(t, msg, "\n")
	assert.False(t, strings.HasSuffix(msg, "."), "trailing period: %q", msg)
	r, _ := utf8.DecodeRuneInString(msg)
	assert.False(t, unicode.IsUpper(r), "capitalized: %q", msg)
}
