package cmd

// What a -c string may hold besides words, quotes and backslashes: the
// variable references and tildes a shell would expand, done the same way
// without a shell. Everything else a shell would run or expand is refused
// with the --shell hint, rather than passed on literally.

import (
	"fmt"
	"strings"
)

// expandable checks the -c string s for expansions and, when home is set,
// rewrites an unquoted "~" or "~/" that starts a word into a quoted
// ${HOME} (a shell does not split the home directory into words); without
// a home, the tilde stays as it is. The $NAME and ${NAME}
// references left are expanded by the word splitter. It refuses $(...),
// backquotes, ${NAME:-...} and other parameter forms, special parameters
// ($?, $1, $$) and ~user, naming the first one.
func expandable(s string, home bool) (string, error) {
	var out strings.Builder
	single, double, escaped := false, false, false
	wordStart := true
	refuse := func(what string) error {
		return &UsageError{Flag: "-c", Value: s, Want: fmt.Sprintf("%s is shell syntax that only a shell expands; add --shell to run the string with a shell, or give the command as words after --", what)}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		startsWord := wordStart
		wordStart = false
		switch {
		case escaped:
			escaped = false
		case single:
			single = c != '\''
		case c == '\\':
			escaped = true
		case c == '\'' && !double:
			single = true
		case c == '"':
			double = !double
		case c == '`':
			return "", refuse(fmt.Sprintf("%q", "`"))
		case c == '$':
			rest := s[i+1:]
			switch {
			case rest == "" || strings.ContainsRune(" \t\n\"", rune(rest[0])):
				// a lone $ stays a $, as in a shell
			case isNameStart(rest[0]):
			case rest[0] == '{':
				end := strings.IndexByte(rest, '}')
				if end < 2 || !isName(rest[1:end]) {
					return "", refuse(quoteRef(rest, end))
				}
			default:
				return "", refuse(fmt.Sprintf("%q", "$"+rest[:1]))
			}
		case c == '~' && startsWord && !double && home:
			rest := s[i+1:]
			if rest != "" && !strings.ContainsRune("/ \t\n", rune(rest[0])) {
				return "", refuse(fmt.Sprintf("%q", "~"+strings.Fields(rest)[0]))
			}
			out.WriteString(`"${HOME}"`)
			continue
		case !double && (c == ' ' || c == '\t' || c == '\n'):
			wordStart = true
		}
		out.WriteByte(c)
	}
	return out.String(), nil
}

func quoteRef(rest string, end int) string {
	if end < 0 {
		return fmt.Sprintf("%q", "$"+rest)
	}
	return fmt.Sprintf("%q", "$"+rest[:end+1])
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameStart(s[i]) && (i == 0 || s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return s != ""
}
