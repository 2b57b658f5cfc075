package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CI runs the test command the README gives for it, word for word, so
// that what a developer reads is what CI checks.
func TestCIRunsTheTestCommandTheReadmeGives(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	ci, err := os.ReadFile(".ci/run")
	require.NoError(t, err)
	section := regexp.MustCompile("(?s)\n## Test\n(.*?)\n## ").FindSubmatch(readme)
	require.NotNil(t, section, "README has a Test section")
	var commands []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(section[1], -1) {
		commands = append(commands, strings.TrimSpace(string(block[1])))
	}
	require.Len(t, commands, 2, "the developer's command, then CI's")
	assert.Equal(t, "go test ./...", commands[0])
	assert.Contains(t, commands[1], "go test -race")
	assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(commands[1])+"$", string(ci), ".ci/run runs the README's CI command as it is written")
}

// The commands the docs give to build retry make static programs, as the
// release archives are: a build that links the C library starts about a
// third slower (docs/benchmarks.md, "A static program").
func TestDocumentedBuildsOfRetryAreStatic(t *testing.T) {
	t.Parallel()
	docs, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	builds := 0
	for _, path := range append(docs, "README.md") {
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(text, -1) {
			for _, line := range strings.Split(string(block[1]), "\n") {
				for _, command := range regexp.MustCompile(`&&|;|\|`).Split(line, -1) {
					if !buildsRetry(command) {
						continue
					}
					builds++
					assert.Contains(t, " "+strings.TrimSpace(command), " CGO_ENABLED=0 ", "%s: %q builds retry without CGO_ENABLED=0", path, line)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, builds, 4, "the README's, install.md's and herd.md's builds are found")
}

// buildsRetry reports whether a shell command runs go build or go install
// on retry's own package: no package named, ".", "./" or the
// retry-redis command.
func buildsRetry(command string) bool {
	words := strings.Fields(command)
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:] // VAR=value before the command
	}
	if len(words) < 2 || words[0] != "go" || (words[1] != "build" && words[1] != "install") {
		return false
	}
	var packages []string
	for i := 2; i < len(words); i++ {
		switch w := words[i]; {
		case strings.HasPrefix(w, "#"):
			i = len(words)
		case w == "-o" || w == "-tags" || w == "-ldflags":
			i++ // the flag's value
		case !strings.HasPrefix(w, "-"):
			packages = append(packages, w)
		}
	}
	if len(packages) == 0 {
		return true
	}
	for _, p := range packages {
		if p == "." || p == "./" || strings.HasSuffix(p, "cmd/retry-redis") {
			return true
		}
	}
	return false
}

func TestBuildsOfRetryAreRecognisedInTheirUsualForms(t *testing.T) {
	t.Parallel()
	for command, want := range map[string]bool{
		"go install .":                           true,
		"go build":                               true,
		"go build -o bin/retry":                  true,
		" cd retry ":                             false,
		"  go install . ./cmd/retry-redis # x":   true,
		`go build -trimpath -ldflags "-s -w" .`:  true,
		"CGO_ENABLED=0 go build -o /tmp/retry .": true,
		"go build -o /tmp/herd ./scripts/herd":   false,
		"go run ./scripts/herd -retry /tmp/r":    false,
		"go test ./...":                          false,
	} {
		assert.Equal(t, want, buildsRetry(command), command)
	}
}
