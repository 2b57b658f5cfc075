package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPolicyFile feeds configuration files to the policy reader: each is
// read into policies whose settings become flag words, or refused with a
// UsageError naming the file; never a panic.
func FuzzPolicyFile(f *testing.F) {
	for _, s := range []string{
		"[policies.ci]\nattempts = 3\ndeadline = \"10m\"\n",
		"[policies.a]\nretry-if = [\"x\", \"y\"]\nbreaker-ratio = 0.5\nquiet = true\n",
		"[policies.bad]\natempts = 3\n",
		"[policies.ci\n",
		"[other]\nx = 1\n",
		"policies = 3\n",
		"[policies.t]\ndeadline = 1979-05-27T07:32:00Z\n",
		"[policies.\"quoted name\"]\nattempts = -1\n",
		"[policies.n]\nretry-if = [[\"nested\"]]\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		pf, err := readPolicyFile(path)
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("not a usage error: %v", err)
			}
			return
		}
		for name, settings := range pf.policies {
			words, _, err := policyWords(name, settings, path, pf.data, scratchFlags())
			if err != nil {
				var ue *UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("not a usage error: %v", err)
				}
				continue
			}
			for _, w := range words {
				if !strings.HasPrefix(w, "--") {
					t.Fatalf("policy word %q is not a flag", w)
				}
			}
		}
	})
}

// FuzzRetryOpts feeds RETRY_OPTS values to the layers: flag words, or a
// UsageError naming RETRY_OPTS; never a panic.
func FuzzRetryOpts(f *testing.F) {
	for _, s := range []string{"-n 3 -q", "--deadline '10m' --retry-if 'a b'", "-n x", "-n 2 curl", "'unclosed", "a | b", "-p patient", "--env A=\x00", strings.Repeat("-q ", 1000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, opts string) {
		l, err := layers(nil, Deps{Env: []string{"RETRY_OPTS=" + opts, "HOME=/nonexistent"}})
		if err != nil {
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("not a usage error: %v", err)
			}
			return
		}
		// What RETRY_OPTS gives is parsed by retry's own flags again:
		// it must parse there too.
		if err := scratchFlags().Parse(l.words); err != nil {
			t.Fatalf("accepted RETRY_OPTS %q gives words %q that do not parse: %v", opts, l.words, err)
		}
	})
}
