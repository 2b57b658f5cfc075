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
		"echo \u00e9\u2028", `>out`, `a>b`, `(a)`, `{a}`, `echo $HOME`, `#comment`, `~`, `~/x ~root`, `${HOME}`, `${X:-d}`, `$?`, `echo $`, `"$S"`, `$S`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitCommand(s, testEnv)
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
	words, err := splitCommand("echo "+word+` "`+word+`"`, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"echo", word, word}, words)

	_, err = splitCommand(`echo "`+word, nil)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.Want, "unbalanced quotes")
}

func TestSplitCommandRefusesBytesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	// The parser reads runes, so such a byte would become U+FFFD and
	// retry -c "cat caf\xe9.txt" would open another file: refuse it, and
	// point to the words after --, which pass as they are.
	_, err := splitCommand("cat caf\xe9.txt 'x\xff'", nil)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "-c", ue.Flag)
	assert.Contains(t, ue.Want, "not valid UTF-8")
}

// testEnv is the environment the -c strings of these tests expand from.
var testEnv = []string{"HOME=/home/u", "S=a  b", "EMPTY="}

func TestSplitCommandExpandsVariablesAndTildeAsAShellWould(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		`ls $HOME`:                {"ls", "/home/u"},
		`ls ${HOME}/x`:            {"ls", "/home/u/x"},
		`ls "$HOME"`:              {"ls", "/home/u"},
		`ls '$HOME'`:              {"ls", "$HOME"},
		`ls \$HOME`:               {"ls", "$HOME"},
		`echo $S`:                 {"echo", "a", "b"},
		`echo "$S"`:               {"echo", "a  b"},
		`echo x$EMPTY y $UNSET z`: {"echo", "x", "y", "z"},
		`ls ~ ~/src`:              {"ls", "/home/u", "/home/u/src"},
		`ls "~" '~/x' a~b \~`:     {"ls", "~", "~/x", "a~b", "~"},
		`echo costs 5$ or $`:      {"echo", "costs", "5$", "or", "$"},
		`curl -H "X-Home: $HOME"`: {"curl", "-H", "X-Home: /home/u"},
		`printf '%s\n' "$HOME x"`: {"printf", `%s\n`, "/home/u x"},
	} {
		got, err := splitCommand(in, testEnv)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	got, err := splitCommand(`ls ~`, []string{"PATH=/bin"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ls", "~"}, got, "without HOME the tilde stays")
}

func TestSplitCommandRefusesExpansionsOnlyAShellCanDo(t *testing.T) {
	t.Parallel()
	for in, names := range map[string]string{
		`echo $(id)`:   `"$("`,
		"echo `id`":    `"` + "`" + `"`,
		`echo "$(id)"`: `"$("`,
		`echo ${X:-d}`: `"${X:-d}"`,
		`echo ${X`:     `"${X"`,
		`echo $?`:      `"$?"`,
		`echo $1`:      `"$1"`,
		`echo $$`:      `"$$"`,
		`ls ~root/x`:   `"~root/x"`,
		`echo $'a\tb'`: `"$'"`,
	} {
		_, err := splitCommand(in, testEnv)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, in)
		assert.Equal(t, "-c", ue.Flag, in)
		assert.Equal(t, in, ue.Value, in)
		assert.Contains(t, ue.Want, names+" is shell syntax", in)
		assert.Contains(t, ue.Want, "add --shell", in)
	}
}
