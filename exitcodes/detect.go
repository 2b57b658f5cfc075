package exitcodes

import (
	"path"
	"strings"
)

// maxWrapperDepth bounds how many wrappers DetectPreset looks through.
const maxWrapperDepth = 8

// DetectPreset returns the preset for the program argv runs, by its base
// name (/usr/bin/curl is curl), looking through these wrappers:
//
//   - env, skipping its options and NAME=value assignments;
//   - sudo, skipping its options (with their values) and assignments;
//   - nice, nohup and stdbuf, skipping their options;
//   - timeout, skipping its options and its duration;
//   - sh, bash, dash, zsh and ksh with -c, when the first word of the
//     script is a plain word (no quotes, $, globs or redirections before
//     it), after any NAME=value assignments and exec;
//   - python -m pip, for pip;
//   - php running composer or composer.phar, for composer.
//
// It reports false when no preset covers the program.
func DetectPreset(argv []string) (string, bool) {
	table := presetTable()
	for depth := 0; depth < maxWrapperDepth && len(argv) > 0; depth++ {
		name := path.Base(argv[0])
		next, wrapped := unwrap(name, argv[1:])
		if wrapped {
			argv = next
			continue
		}
		name = programName(name, argv[1:])
		for _, p := range table {
			for _, prog := range p.programs {
				if prog == name {
					return p.name, true
				}
			}
		}
		return "", false
	}
	return "", false
}

// programName normalizes a program's base name: versioned pip (pip3.12)
// is pip, python -m pip is pip, and php composer.phar is composer.
func programName(name string, args []string) string {
	if strings.HasPrefix(name, "php") && strings.Trim(name[3:], "0123456789.") == "" {
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "-d" || a == "-c" {
				i++ // -d foo=bar, -c php.ini
				continue
			}
			if strings.HasPrefix(a, "-") {
				continue
			}
			if script := path.Base(a); script == "composer" || script == "composer.phar" {
				return "composer"
			}
			break
		}
	}
	if strings.HasPrefix(name, "pip") && strings.Trim(name[3:], "0123456789.") == "" {
		return "pip"
	}
	if strings.HasPrefix(name, "python") && strings.Trim(name[6:], "0123456789.") == "" {
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-m" {
				if args[i+1] == "pip" {
					return "pip"
				}
				break
			}
			if !strings.HasPrefix(args[i], "-") {
				break
			}
		}
	}
	return name
}

// unwrap returns the command a wrapper runs, and false when name is not a
// wrapper or its command cannot be found.
func unwrap(name string, args []string) ([]string, bool) {
	switch name {
	case "env":
		return skipOptions(args, "uCS", []string{"--unset", "--chdir", "--split-string"}, true), true
	case "sudo":
		return skipOptions(args, "ugpCDhrtTU", []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--host", "--role", "--type", "--command-timeout", "--other-user"}, true), true
	case "nice":
		rest := args
		if len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' && isDigits(rest[0][1:]) {
			rest = rest[1:] // the obsolete nice -10 form
		}
		return skipOptions(rest, "n", []string{"--adjustment"}, false), true
	case "nohup":
		return skipOptions(args, "", nil, false), true
	case "stdbuf":
		return skipOptions(args, "ioe", []string{"--input", "--output", "--error"}, false), true
	case "timeout":
		rest := skipOptions(args, "ks", []string{"--kill-after", "--signal"}, false)
		if len(rest) == 0 {
			return nil, true
		}
		return rest[1:], true // the duration
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		script, ok := shellScript(args)
		if !ok {
			return nil, true
		}
		return scriptCommand(script), true
	}
	return nil, false
}

// skipOptions drops leading options from args: short options in withValue
// take a value (attached, as -uroot, or as the next argument), as do the
// long options in longWithValue (--user=root or --user root); "--" ends
// the options. With assignments set, NAME=value words are dropped too.
func skipOptions(args []string, withValue string, longWithValue []string, assignments bool) []string {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			return args[1:]
		case strings.HasPrefix(a, "--"):
			takesValue := false
			for _, l := range longWithValue {
				if a == l {
					takesValue = true
				}
			}
			args = args[1:]
			if takesValue && len(args) > 0 {
				args = args[1:]
			}
		case len(a) > 1 && a[0] == '-':
			args = args[1:]
			// In a cluster such as -Eu, the first letter that takes a
			// value takes the rest of the word, or the next argument.
			for i := 1; i < len(a); i++ {
				if strings.IndexByte(withValue, a[i]) >= 0 {
					if i == len(a)-1 && len(args) > 0 {
						args = args[1:]
					}
					break
				}
			}
		case assignments && isAssignment(a):
			args = args[1:]
		default:
			return args
		}
	}
	return args
}

// isAssignment reports whether w is a NAME=value word.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellScript returns the script of a shell's -c option: bash -c 'x',
// bash -lc 'x', bash -e -o pipefail -c 'x'.
func shellScript(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // the option's name
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a != "--":
			if a[0] == '-' && strings.IndexByte(a[1:], 'c') >= 0 && !strings.HasPrefix(a, "--") {
				if i+1 < len(args) {
					return args[i+1], true
				}
				return "", false
			}
		default:
			return "", false // a script file, or "--": not -c
		}
	}
	return "", false
}

// scriptCommand returns the words of the command of a shell script whose
// preset may judge the script's exit status: its first command, when the
// script is one command or when every command in it is covered by the
// same preset (`apt-get update && apt-get install -y jq`); none
// otherwise. The status of `curl -fsSL URL | sh` or `curl -fsSLO URL &&
// sha256sum -c SUMS` is the last command's, and the curl preset would
// read an installer's exit 1 as curl's "unsupported protocol", a terminal
// failure.
func scriptCommand(script string) []string {
	cmds := splitCommands(script)
	if len(cmds) == 0 {
		return nil
	}
	first := firstWords(cmds[0])
	if len(cmds) == 1 {
		return first
	}
	name, ok := DetectPreset(first)
	if !ok {
		return nil
	}
	for _, c := range cmds[1:] {
		if other, ok := DetectPreset(firstWords(c)); !ok || other != name {
			return nil
		}
	}
	return first
}

// splitCommands splits a shell script at its unquoted ;, &, | and
// newlines (&& and || too), leaving out empty commands. Redirections such
// as 2>&1, &>log and >| are not operators.
func splitCommands(script string) []string {
	var cmds []string
	start := 0
	add := func(end int) {
		if c := script[start:end]; strings.TrimSpace(c) != "" {
			cmds = append(cmds, c)
		}
	}
	var quote byte
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++ // the next byte is taken as it is (in double quotes too)
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '&' && (i > 0 && (script[i-1] == '>' || script[i-1] == '<') || i+1 < len(script) && script[i+1] == '>'):
			// a redirection: 2>&1, <&3, &>log
		case c == '|' && i > 0 && script[i-1] == '>':
			// >| file
		case c == ';' || c == '&' || c == '|' || c == '\n':
			add(i)
			start = i + 1
		}
	}
	add(len(script))
	return cmds
}

// firstWords returns the words of a shell script's first simple command up
// to the first word that is not plain (quotes, $, globs, redirections,
// operators), after leading NAME=value assignments and exec. A first word
// that is not plain gives none.
func firstWords(script string) []string {
	var words []string
	for _, w := range strings.Fields(script) {
		if !isPlainWord(w) {
			break
		}
		if len(words) == 0 && (isAssignment(w) || w == "exec" || w == "command") {
			continue
		}
		words = append(words, w)
	}
	return words
}

// isPlainWord reports whether a shell word means itself, with nothing for
// the shell to expand or interpret.
func isPlainWord(w string) bool {
	return w != "" && !strings.ContainsAny(w, "'\"`$\\*?[]{}()<>|;&~#!")
}
