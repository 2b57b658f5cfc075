package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScriptsRegisterTheGivenName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, write(dir, "retry-cli"))

	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(b)
	}
	// The lines by which each shell ties the script to a command name.
	assert.Contains(t, read("retry-cli.bash"), "complete -o default -F __start_retry-cli retry-cli\n")
	zsh := read("_retry-cli")
	assert.Regexp(t, `\A#compdef retry-cli\n`, zsh)
	assert.Contains(t, zsh, "\ncompdef _retry-cli retry-cli\n")
	fish := read("retry-cli.fish")
	assert.Contains(t, fish, "\ncomplete -c retry-cli -e\n")
	assert.NotContains(t, fish, "complete -c retry ", "still registered for retry")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3)
}
