package main

import (
	"os"
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
