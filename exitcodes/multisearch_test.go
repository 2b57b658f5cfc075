package exitcodes

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wordsOf returns a maker of random words of n bytes from alphabet.
func wordsOf(r *rand.Rand, alphabet string) func(n int) []byte {
	return func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
}

func TestMultiSearchFindsAnyNeedleLikeSearchingEachInTurn(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 1))
	word := wordsOf(r, "abcab\n ")
	for range 2000 {
		var needles [][]byte
		for range 1 + r.IntN(5) {
			needles = append(needles, word(1+r.IntN(4)))
		}
		m := newMultiSearch(needles)
		text := word(r.IntN(40))
		want := false
		for _, n := range needles {
			want = want || bytes.Contains(text, n)
		}
		assert.Equal(t, want, m.in(text), "needles %q in %q", needles, text)
	}
}

func TestMultiSearchOverlappingAndNestedNeedles(t *testing.T) {
	t.Parallel()
	m := newMultiSearch([][]byte{[]byte("she"), []byte("he"), []byte("hers"), []byte("timed out")})
	assert.True(t, m.in([]byte("ushers")))
	assert.True(t, m.in([]byte("the")))
	assert.True(t, m.in([]byte("request timed out")))
	assert.False(t, m.in([]byte("timed ou")))
	assert.False(t, m.in([]byte("")))
	assert.Nil(t, newMultiSearch(nil))
	assert.Nil(t, newMultiSearch([][]byte{[]byte("x"), {}}), "an empty needle matches everything")
}

func TestMayMatchNeverRulesOutALineThatMatches(t *testing.T) {
	t.Parallel()
	res, err := CompilePatterns([]string{"connection reset", "(?i)TLS handshake timeout", `exit code \d+`})
	assert.NoError(t, err)
	c, err := New(Config{RetryIf: res})
	assert.NoError(t, err)
	assert.False(t, c.MayMatch([]byte("all fine\nnothing here\n")))
	assert.True(t, c.MayMatch([]byte("ok\nread: connection reset by peer\n")))
	assert.True(t, c.MayMatch([]byte("net/http: tls HANDSHAKE timeout\n")))
	assert.True(t, c.MayMatch([]byte("process exit code 3\n")))

	any, err := CompilePatterns([]string{`^\d+$`})
	assert.NoError(t, err)
	c, err = New(Config{StopIf: any})
	assert.NoError(t, err)
	assert.True(t, c.MayMatch([]byte("anything")), "a pattern without a required literal needs every line")
}

func FuzzMayMatchNeverMissesAMatch(f *testing.F) {
	for _, s := range []string{"read: connection reset by peer", "TLS HANDSHAKE TIMEOUT", "exit code 7", "Retry-After: 30", "curl: (22) The requested URL returned error: 503", "x",
		"HTTP 404: Not Found", "status code: 401", "RATE LIMIT exceeded", "Toomanyrequests: Rate exceeded", "ModuleNotFoundError: No module named 'x'", "ta\u212Aen",
		"GET https://api.example.com/v2/x: 401 (request \"f3c2\")", "error: [409] Conflict", "ref:v2: not found", "Please run 'az login'",
		"fatal: detected dubious ownership in repository at '/src'", "Error: Cannot perform an interactive login from a non TTY device", "yaml: line 35: mapping values are not allowed in this context",
		"Stat: 401", "RESPONSE 403: 403", "Compile error", "main.c:3:1: fatal error: x.h: No such file or directory", "collect2: error: ld returned 1 exit status",
		"error: no stack named 'a/b' found", "Couldn't find that app.", "We need your payment information", "Invalid character '<' looking for beginning of value",
		"Found 1 error(s).", "  12:3  \u2716  Expected indentation  indentation", "L:   3 | P:   5 | L003 | Indent", "E3012 Property should be of type String at Resources/X/Properties",
		"session setup failed: NT_STATUS_LOGON_FAILURE", "Connection Refused: not authorized.", "Error loading ASGI app. Could not import module \"main\".",
		"No package found matching 'foo'", "unrecognized directive: security", "may not add resource with an already registered id: x", "was: 8:abc but is now: 8:def",
		"file /usr/x conflicts with file from package y", "exec format error", "CMake 3.20 or higher is required.  You are running version 3.16",
		"Cannot find matching keyid: {}", "app does not have a Dockerfile or buildpacks configured", "(Error NT_STATUS_IO_TIMEOUT)",
		"Hostname/IP does not match certificate's altnames", "rbenv: version `2.3' is not installed", "error: component 'rls' for target 'x' is unavailable for download",
		"** (Mix) Hex dependency resolution failed", "/Documents/My: No such file or directory", "error: No remote refs found similar to 'flathub'",
		"[!] Unable to find a specification for `X`", "TimedOut waiting", "pnpm-lock.yaml", "the lock. ", "Error: EXDEV: cross-device link not permitted",
		"2025-03-01 12:00:00 FEHLER 503: Service Unavailable.", "\u9519\u8bef 404\uff1aNot Found\u3002", "x.tar.gz: FAILED", "sha256sum: WARNING: 2 computed checksums did NOT match",
		"verifying go.mod: m@v1/go.mod: reading https://sum.golang.org/lookup/m@v1: 410 Gone", "https://fonts.gstatic.com/s/a/v1/b.woff2",
		"[9/-3] Object not found - no match for id (eb65ff7f)", "EOF looking for end YAML front matter delimiter", "Near line 3 (last key parsed ''): x",
		"[vitepress] 6 dead link(s) found.", "{option, server_only, honor_cipher_order}", "is not installable because it conflicts with any installable versions previously reported",
		"< X-RateLimit-Remaining: 0", "ERROR 403: Rate Limit Exceeded.", "http://MIRRORLIST.centos.org/?release=7", "used to build golangci-lint is lower than the targeted Go version (1.24)",
		"package requires newer Go version go1.27 (application built with go1.26)", "(obsolete configuration found in x.yml, please update it)",
		"server version: 16.2; pg_dump version: 15.4", "BUILD FAILED (Ubuntu 18.04 using python-build 1.2.3)", "L:   2 | P:  12 |  TMP | x"} {
		f.Add(s)
	}
	res, err := CompilePatterns([]string{"connection reset", "(?i)TLS handshake timeout", `exit code \d+`, "a", "é"})
	if err != nil {
		f.Fatal(err)
	}
	c, err := New(Config{RetryIf: res, Presets: []string{"curl", "docker", "git", "wget", "checksum", "dnf"}, Signatures: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		matchers := c.compiled().matchers
		for i := range matchers {
			if matchers[i].re.MatchString(line) && !c.MayMatch([]byte(line)) {
				t.Fatalf("MayMatch ruled out %q, which %q matches", line, matchers[i].re)
			}
		}
	})
}

func TestFoldedNeedlesAreFoundAsInTheFoldedCopy(t *testing.T) {
	t.Parallel()
	needles := [][]byte{[]byte("timed out"), []byte("x"), []byte("rate limit"), []byte("sk"), []byte("é")}
	plain, folded := newMultiSearch(needles), newMixedSearch(nil, needles)
	for _, text := range []string{
		"", "X", "Operation TIMED OUT after 30s", "Rate Limit exceeded", "no match here", "ta\u212Aen", "a\u017Fk", "ÉCOLE", "é",
		"SK", "s", "tImEd Ou", "line one\\nRATE LIMIT\\n",
	} {
		assert.Equal(t, plain.in(foldLine(nil, []byte(text))), folded.in([]byte(text)), "%q", text)
	}
}

// One pass finds needles sought as they are and folded ones alike: what
// searching the text for each of the first and its folded copy for each
// of the others finds.
func TestMixedSearchFindsWhatSearchingEachNeedleInTurnFinds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	searchesLikeEachNeedle(t, r, wordsOf(r, "abAB\n \u212A"), 3, 1, 4, 40)
}

// Longer needles are filed by the bytes around their anchor pair (before
// it, after it, or both): a hit on the pair whose neighbours are not some
// needle's is ruled out before any needle is compared, and nothing is
// missed for it, whichever side of the needle the anchor falls on, nor
// found for a byte that only shares the lowered pass's bit 5 with the
// needle's.
func TestNeighbourFilterMissesNoNeedle(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	// '@' and '`', '[' and '{', a line feed and '*' differ only in bit 5,
	// which a pass that lowers sets: they share anchors, never matches.
	searchesLikeEachNeedle(t, r, wordsOf(r, "abcaBC \n@`[{*"), 4, 2, 7, 60)
}

// searchesLikeEachNeedle checks 5,000 random searches: up to most needles
// sought as they are and up to most folded ones, of minLen to
// minLen+spread-1 bytes of word, in a text of fewer than maxText bytes,
// must be found by one search exactly when searching the text for each
// of the first and its folded copy for each of the others finds one.
func searchesLikeEachNeedle(t *testing.T, r *rand.Rand, word func(int) []byte, most, minLen, spread, maxText int) {
	t.Helper()
	for range 5000 {
		var raw, folded [][]byte
		for range r.IntN(most + 1) {
			raw = append(raw, word(minLen+r.IntN(spread)))
		}
		for range r.IntN(most + 1) {
			folded = append(folded, foldLine(nil, word(minLen+r.IntN(spread))))
		}
		m := newMixedSearch(raw, folded)
		if m == nil {
			continue // no needles, or an empty one
		}
		text := word(r.IntN(maxText))
		want := false
		for _, n := range raw {
			want = want || bytes.Contains(text, n)
		}
		for _, n := range folded {
			want = want || bytes.Contains(foldLine(nil, text), n)
		}
		assert.Equal(t, want, m.in(text), "raw %q folded %q in %q", raw, folded, text)
	}
}

func TestNeighbourFilterRulesOutAPairInOtherWords(t *testing.T) {
	t.Parallel()
	// Both needles are anchored on their rarest pair, "#%".
	m := newMultiSearch([][]byte{[]byte("ab#%cd"), []byte("xy#%zw")})
	pair := uint16('#')<<8 | uint16('%')
	assert.False(t, m.nearHit([]byte("..a#%d.."), 4, pair), "a-#%-d is neither needle's neighbourhood")
	assert.True(t, m.nearHit([]byte("..b#%c.."), 4, pair))
	assert.True(t, m.nearHit([]byte("..y#%z.."), 4, pair))
	assert.True(t, m.in([]byte("..xy#%zw..")))
	assert.False(t, m.in([]byte("..a#%d..b#%c..")), "the neighbourhood of a needle is not the needle")
}

func TestNeedleRequiredByManyPatternsIsCheckedOnce(t *testing.T) {
	t.Parallel()
	m := newMixedSearch([][]byte{[]byte("parsing"), []byte("parsing"), []byte("x")}, [][]byte{[]byte("parsing"), []byte("parsing")})
	n := 0
	for _, g := range m.at {
		n += len(g)
	}
	assert.Equal(t, 2, n, "once as it is, once folded")
	assert.True(t, m.in([]byte("error PARSING file")))
}

func TestSignaturePrefiltersKeepEveryFormOfAStatus(t *testing.T) {
	t.Parallel()
	c, err := New(Config{Signatures: true})
	require.NoError(t, err)
	l := c.compiled()
	lines := []string{
		"HTTP 404: Not Found", "HTTP/1.1 503 Service Unavailable", "urllib.error.HTTPError: HTTP Error 401: Unauthorized",
		"status code: 401", "StatusCode: 403", "status=404", `"status": 429`, "403 Client Error: Forbidden", "502 Server Error",
		"code=404", "googleapi: Error 403: denied", "The requested URL returned error: 410", "response code 404",
		"HTTPError 503: x", "ServiceException: 401 Anonymous", "401 (Unauthorized)", "500 (Internal Server Error)",
		"410 Gone", "504 Gateway Time-out",
	}
	for _, line := range lines {
		matched := false
		for _, m := range l.matchers {
			if m.re.MatchString(line) {
				matched = true
				assert.True(t, m.mayMatch([]byte(line), foldLine(nil, []byte(line)), nil, nil), "the prefilter of %q rejects %q", m.re, line)
			}
		}
		assert.True(t, matched, "no signature matches %q", line)
		assert.True(t, c.MayMatch([]byte(line)), line)
	}
}
