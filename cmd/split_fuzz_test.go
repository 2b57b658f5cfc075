package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzSplitCommand checks that any -c string is split into a command (a
// non-empty first word) or refused with a *UsageError naming -c: never a
// panic, whatever the quotes, NUL bytes, invalid UTF-8 or size.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`echo hi`, `printf '%s|' "a b" c\ d`, `echo "unclosed`, `echo 'unclosed`, `echo \`, `a | b`, `a; b`,
		`a && b`, `$(id)`, "`id`", `''`, `""`, "   ", "echo a\x00b", "\x00", "\xff\xfe", `echo "\"`, `'"'"'`, `a\` + "\n" + `b`,
		"echo \u00e9\u2028", `>out`, `a>b`, `(a)`, `{a}`, `echo $HOME`, `#comment`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitCommand(s)
		if err != nil {
			var ue *UsageError
			require.True(t, errors.As(err, &ue), "a *UsageError: %v", err)
			assert.Equal(t, "-c", ue.Flag)
			assert.Nil(t, words)
			return
		}
		require.NotEmpty(t, words)
		assert.NotEmpty(t, words[0], "a command to run")
	})
}

func TestSplitCommandTakesAMegabyteStringInOnePass(t *testing.T) {
	t.Parallel()
	word := strings.Repeat("x", 1<<20)
	words, err := splitCommand("echo " + word + ` "` + word + `"`)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo", word, word}, words)

	_, err = splitCommand(`echo "` + word)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.Want, "unbalanced quotes")
}

func TestSplitCommandRefusesBytesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	// The parser reads runes, so such a byte would become U+FFFD and
	// retry -c "cat caf\xe9.txt" would open another file: refuse it, and
	// point to the words after --, which pass as they are.
	_, err := splitCommand("cat caf\xe9.txt 'x\xff'")
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "-c", ue.Flag)
	assert.Contains(t, ue.Want, "not valid UTF-8")
}
