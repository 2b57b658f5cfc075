package breaker

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fileBasePattern is the shape of every name fileBase returns.
var fileBasePattern = regexp.MustCompile(`^(cb|run)-[A-Za-z0-9._-]{0,48}-[0-9a-f]{32}$`)

// The names are those earlier releases wrote (SHA-256 of the key, as
// crypto/sha256 computes it): state kept by an older retry is found.
func TestFileNamesStayWhatEarlierReleasesWrote(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "cb-registry.example-751e78d2922d4e32cbaee8975619db8e", fileBase(Circuit, "registry.example"))
	assert.Equal(t, "cb-https___api.example.com_v1-53aee2ca762b9729196afeefd22bd5ab", fileBase(Circuit, "https://api.example.com/v1"))
}

func TestFileNameKeepsReadablePartAndHash(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		key      string
		readable string
	}{
		{"a plain key is kept", "registry.example.com", "registry.example.com"},
		{"slashes become underscores", "ghcr.io/org/image", "ghcr.io_org_image"},
		{"parent references cannot escape", "../../etc/passwd", ".._.._etc_passwd"},
		{"a lone dot-dot is only a prefix", "..", ".."},
		{"NUL and control bytes become underscores", "a\x00b\nc", "a_b_c"},
		{"backslashes become underscores", `C:\Windows`, "C__Windows"},
		{"non-ASCII becomes underscores", "dépôt", "d__p__t"},
		{"an empty key has only the hash", "", ""},
		{"a long key is cut to 48 bytes", strings.Repeat("x", 10<<10), strings.Repeat("x", 48)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := fileBase(Circuit, tt.key)
			assert.Regexp(t, fileBasePattern, base)
			assert.Equal(t, "cb-"+tt.readable+"-", base[:len(base)-32])
		})
	}
}

func TestFileNamesOfKindsAndSimilarKeysDiffer(t *testing.T) {
	t.Parallel()
	assert.NotEqual(t, recordFile(Circuit, "x"), recordFile(Run, "x"))
	assert.NotEqual(t, recordFile(Circuit, "a/b"), recordFile(Circuit, "a_b"), "same readable part, different hash")
	long := strings.Repeat("k", 10<<10)
	assert.NotEqual(t, recordFile(Circuit, long), recordFile(Circuit, long+"!"), "a long key's tail still counts")
	assert.Equal(t, recordFile(Circuit, "x"), recordFile(Circuit, "x"), "the name is stable")
}

func FuzzKeyFileName(f *testing.F) {
	for _, seed := range [][2]string{
		{"registry", "registry "},
		{"../x", "..\\x"},
		{"a/b", "a_b"},
		{"", "\x00"},
		{".", ".."},
		{"/etc/passwd", "etc/passwd"},
		{strings.Repeat("y", 10<<10), strings.Repeat("y", 10<<10-1)},
		{"ключ", "键"},
	} {
		f.Add(seed[0], seed[1])
	}
	dir := filepath.FromSlash("/state/retry")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, key := range []string{a, b} {
			for _, name := range []string{recordFile(Circuit, key), recordFile(Run, key), claimFile(key), tempFile(recordFile(Circuit, key))} {
				if strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || len(name) > 100 {
					t.Fatalf("key %q maps to unsafe name %q", key, name)
				}
				if p := filepath.Join(dir, name); filepath.Dir(p) != dir {
					t.Fatalf("key %q maps to %q, outside %s", key, p, dir)
				}
			}
			if base := fileBase(Circuit, key); !fileBasePattern.MatchString(base) {
				t.Fatalf("key %q maps to %q, not of the documented shape", key, base)
			}
		}
		if a != b && recordFile(Circuit, a) == recordFile(Circuit, b) {
			t.Fatalf("distinct keys %q and %q map to one name", a, b)
		}
	})
}
