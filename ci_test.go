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
				if !regexp.MustCompile(`^(?:\w+=\S+ )*go (?:install|build) .*(?:\s\.(?:\s|$)|\./cmd/retry-redis)`).MatchString(line) {
					continue
				}
				builds++
				assert.True(t, strings.HasPrefix(line, "CGO_ENABLED=0 ") || strings.Contains(line, " CGO_ENABLED=0 go "), "%s: %q builds retry without CGO_ENABLED=0", path, line)
			}
		}
	}
	assert.GreaterOrEqual(t, builds, 3, "the README's and install.md's builds are found")
}
