package cmd

// Configuration layers, lowest first: built-in defaults, a policy (-p
// NAME: a named set of flag settings, from .retry.toml or the user's
// config.toml, or a built-in profile), RETRY_OPTS, the command line. The policy and RETRY_OPTS become
// flag words placed before the command line's own, so the same parser
// handles them all and a later word wins.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-shellwords"
	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/pflag"
)

// profiles are the built-in policies, which need no file.
func profiles() map[string]map[string]any {
	return map[string]map[string]any{
		// For a person waiting at a terminal: blips only, answer fast.
		"interactive": {"attempts": "3", "fast": "2", "deadline": "2s"},
		"default":     {},
		// For background and cron work: ride out long outages.
		"patient": {"attempts": "8", "slow-max": "5m", "deadline": "30m"},
	}
}

// policyFile is a configuration file that defines policies.
type policyFile struct {
	path     string
	data     []byte
	policies map[string]map[string]any
}

// configFiles finds .retry.toml in dir or its parents up to the repository
// root (the first directory holding .git), then the user's
// $XDG_CONFIG_HOME/retry/config.toml (or ~/.config/retry/config.toml).
func configFiles(dir string, env []string) []string {
	var files []string
	for d := dir; d != ""; {
		if f := filepath.Join(d, ".retry.toml"); isFile(f) {
			files = append(files, f)
			break
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break // the repository root: a policy file above it is not the project's
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	base := lookupEnv(env, "XDG_CONFIG_HOME")
	if base == "" {
		if home := lookupEnv(env, "HOME"); home != "" {
			base = filepath.Join(home, ".config")
		}
	}
	if base != "" {
		if f := filepath.Join(base, "retry", "config.toml"); isFile(f) {
			files = append(files, f)
		}
	}
	return files
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// readPolicyFile parses a configuration file. Anything but [policies.NAME]
// tables is an error with the file and line.
func readPolicyFile(path string) (*policyFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &UsageError{Flag: "--policy", Value: path, Err: err}
	}
	// A byte order mark, which Windows editors write at the start of a
	// UTF-8 file, is no TOML: the parser would refuse the first key.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, &UsageError{Flag: fmt.Sprintf("%s:%d", path, row), Err: errors.New(de.Error()), Want: "fix the TOML syntax"}
		}
		return nil, &UsageError{Flag: path, Err: err}
	}
	pf := &policyFile{path: path, data: data, policies: map[string]map[string]any{}}
	for key, v := range doc {
		if key != "policies" {
			return nil, &UsageError{Flag: fmt.Sprintf("%s:%d", path, lineOf(data, "", key)), Value: key, Want: "unknown table; policies go in [policies.NAME]"}
		}
		tables, ok := v.(map[string]any)
		if !ok {
			return nil, &UsageError{Flag: fmt.Sprintf("%s:%d", path, lineOf(data, "", key)), Value: key, Want: "want [policies.NAME] tables"}
		}
		for name, t := range tables {
			settings, ok := t.(map[string]any)
			if !ok {
				return nil, &UsageError{Flag: fmt.Sprintf("%s:%d", path, lineOf(data, "", name)), Value: name, Want: "want a table [policies." + name + "]"}
			}
			pf.policies[name] = settings
		}
	}
	return pf, nil
}

// lineOf finds the line where key is set, inside [policies.section] when
// section is given; 1 when it cannot tell.
func lineOf(data []byte, section, key string) int {
	keyRE := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=|^\s*\[\s*(policies\.)?"?` + regexp.QuoteMeta(key) + `"?\s*\]`)
	inSection := section == ""
	for i, line := range bytes.Split(data, []byte("\n")) {
		trimmed := strings.TrimSpace(string(line))
		if section != "" && strings.HasPrefix(trimmed, "[") {
			inSection = strings.Trim(strings.ReplaceAll(trimmed, " ", ""), "[]") == "policies."+section ||
				strings.Trim(strings.ReplaceAll(trimmed, " ", ""), "[]") == `policies."`+section+`"`
			continue
		}
		if inSection && keyRE.Match(line) {
			return i + 1
		}
	}
	return 1
}

// policyWords turns the settings of policy name into flag words, checked
// against fs, and names the source of each flag.
func policyWords(name string, settings map[string]any, where string, data []byte, fs *pflag.FlagSet) ([]string, map[string]string, error) {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var words []string
	sources := map[string]string{}
	for _, key := range keys {
		at := fmt.Sprintf("%s:%d", where, lineOf(data, name, key))
		if data == nil {
			at = where
		}
		f := fs.Lookup(key)
		if f == nil || key == "policy" || key == "help" || key == "version" {
			want := "unknown setting; a policy sets retry's flags by their long names, such as attempts or deadline"
			if hint := unknownFlag(key, fs); hint != "" && f == nil {
				want = "unknown setting; " + strings.ReplaceAll(hint, "--", "")
			}
			return nil, nil, &UsageError{Flag: at, Value: key, Want: want}
		}
		values, err := settingValues(settings[key])
		if err != nil {
			return nil, nil, &UsageError{Flag: at, Value: key, Err: err}
		}
		for _, v := range values {
			if err := f.Value.Set(v); err != nil {
				var ue *UsageError
				if errors.As(err, &ue) {
					err = ue.Err
					if err == nil {
						err = errors.New(ue.Want)
					}
				}
				return nil, nil, &UsageError{Flag: at, Value: key + " = " + v, Err: err}
			}
			words = append(words, "--"+key+"="+v)
		}
		sources[key] = "policy " + name + " (" + where + ")"
	}
	return words, sources, nil
}

// settingValues reads one policy value as the flag strings it stands for.
func settingValues(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, err := settingValues(e)
			if err != nil || len(s) != 1 {
				return nil, errors.New("want a list of plain values")
			}
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a string, number, boolean or list, not %T", v)
}

// splitOpts splits RETRY_OPTS into words: quotes and backslashes as in a
// shell, no variables, no command substitution.
func splitOpts(s string) ([]string, error) {
	return splitWords("RETRY_OPTS", s, "RETRY_OPTS holds flags only", nil)
}

// unquotedParen returns the first parenthesis of s outside quotes and not
// escaped, or "": the parser refuses one as it refuses an unclosed quote.
func unquotedParen(s string) string {
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '(' || r == ')':
			return string(r)
		}
	}
	return ""
}

// splitWords splits s into words as a shell would (quotes, backslashes)
// without running a shell: a parser instance with command substitution
// off, and variables off unless getenv is given to look them up. Shell
// operators are refused; instead says what to do. source names the input
// in errors.
func splitWords(source, s, instead string, getenv func(string) string) ([]string, error) {
	if !utf8.ValidString(s) {
		// The parser reads runes: a byte that is not UTF-8 would turn into
		// U+FFFD and name another file. Words after -- pass untouched.
		return nil, &UsageError{Flag: source, Value: s, Want: "not valid UTF-8; give the command as words after -- instead, where every byte passes as it is"}
	}
	p := shellwords.NewParser()
	p.ParseEnv, p.ParseBacktick, p.Getenv = getenv != nil, false, getenv
	words, err := p.Parse(s)
	if err != nil {
		if op := unquotedParen(s); op != "" {
			return nil, &UsageError{Flag: source, Value: s, Want: fmt.Sprintf("%q is shell syntax; quote the word that holds it", op)}
		}
		return nil, &UsageError{Flag: source, Value: s, Want: "unbalanced quotes or a trailing backslash; close every quote"}
	}
	if p.Position >= 0 {
		return nil, &UsageError{Flag: source, Value: s, Want: fmt.Sprintf("%q is shell syntax; %s", s[p.Position:p.Position+1], instead)}
	}
	return words, nil
}

// layered is what the configuration layers add before the command line.
type layered struct {
	words   []string
	sources map[string]string
}

// scratchFlags returns a flag set with the run flags, bound to a throwaway
// Options, for checking words without touching the real options.
func scratchFlags() *pflag.FlagSet {
	o := defaultOptions()
	fs := pflag.NewFlagSet("retry", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(false)
	o.bind(fs)
	return fs
}

// layers reads RETRY_OPTS and the chosen policy. cmdline are the command
// line's arguments after the subcommand, if any. With neither RETRY_OPTS
// nor a word that may name a policy, the usual case, it reads nothing and
// returns no sources: every flag set is the command line's (see
// commandLineSources).
func layers(cmdline []string, deps Deps) (*layered, error) {
	raw := lookupEnv(deps.Env, "RETRY_OPTS")
	if strings.TrimSpace(raw) == "" && !mayNamePolicy(cmdline) {
		return &layered{}, nil
	}
	l := &layered{sources: map[string]string{}}
	var opts []string
	name := "" // the policy named last wins: the command line's, else RETRY_OPTS's
	if strings.TrimSpace(raw) != "" {
		words, err := splitOpts(raw)
		if err != nil {
			return nil, err
		}
		fs := scratchFlags()
		if err := fs.Parse(words); err != nil {
			return nil, &UsageError{Flag: "RETRY_OPTS", Value: raw, Err: flagError(err, fs)}
		}
		if len(fs.Args()) > 0 {
			return nil, &UsageError{Flag: "RETRY_OPTS", Value: raw, Want: fmt.Sprintf("holds flags only, not the command word %q", fs.Args()[0])}
		}
		if fs.ArgsLenAtDash() >= 0 {
			// Put before the command line, it would make the command
			// line's flags the command.
			return nil, &UsageError{Flag: "RETRY_OPTS", Value: raw, Want: `holds flags only, not "--": the command line gives it, before the command`}
		}
		fs.Visit(func(f *pflag.Flag) { l.sources[f.Name] = "RETRY_OPTS" })
		if f := fs.Lookup("policy"); f.Changed {
			name = f.Value.String()
		}
		opts = words
	}
	cmdFlags := scratchFlags()
	_ = cmdFlags.Parse(cmdline) // the command line's errors are reported by its own parse
	cmdFlags.Visit(func(f *pflag.Flag) { l.sources[f.Name] = "command line" })
	if f := cmdFlags.Lookup("policy"); f.Changed {
		name = f.Value.String()
	}
	if name == "" {
		l.words = opts
		return l, nil // no policy: no configuration file to read
	}

	found, known, err := findPolicy(name, deps)
	if err != nil {
		return nil, err
	}
	var words []string
	var sources map[string]string
	switch {
	case found != nil:
		words, sources, err = policyWords(name, found.policies[name], found.path, found.data, scratchFlags())
	case profiles()[name] != nil:
		words, sources, err = policyWords(name, profiles()[name], "built-in profile", nil, scratchFlags())
	default:
		return nil, &UsageError{Flag: "--policy", Value: name, Want: "no such policy; known: " + strings.Join(known, ", ") + " (policies live in .retry.toml or ~/.config/retry/config.toml)"}
	}
	if err != nil {
		return nil, err
	}
	for k, v := range sources {
		if _, later := l.sources[k]; !later {
			l.sources[k] = v
		}
	}
	l.words = append(words, opts...)
	return l, nil
}

// mayNamePolicy reports whether args may set --policy: a word before any
// -- that is --policy (or --policy=NAME), or a cluster of short flags with
// a p in it (-p, -qp, -pNAME). It may say yes when the word is another
// flag's value or the command's own, never no when args name a policy:
// it only spares the start a second parse of the flags.
func mayNamePolicy(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--policy" || strings.HasPrefix(a, "--policy="):
			return true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'p'):
			return true
		}
	}
	return false
}

// commandLineSources names the command line as the source of every flag
// set in fs, for a start whose flags all came from it.
func commandLineSources(fs *pflag.FlagSet) map[string]string {
	sources := map[string]string{}
	fs.Visit(func(f *pflag.Flag) { sources[f.Name] = "command line" })
	return sources
}

// findPolicy reads the configuration files for the policy name; it returns
// the file that defines it (nil when none does) and every policy name
// known, the built-in profiles included. A file that cannot be read is an
// error only when it may hold the policy asked for (name not empty).
func findPolicy(name string, deps Deps) (*policyFile, []string, error) {
	dir, _ := os.Getwd()
	known := map[string]bool{}
	for p := range profiles() {
		known[p] = true
	}
	var found *policyFile
	for _, path := range configFiles(dir, deps.Env) {
		pf, err := readPolicyFile(path)
		if err != nil {
			if name == "" {
				continue
			}
			return nil, nil, err
		}
		for p := range pf.policies {
			known[p] = true
		}
		if _, ok := pf.policies[name]; ok && found == nil {
			found = pf
		}
	}
	names := make([]string, 0, len(known))
	for p := range known {
		names = append(names, p)
	}
	sort.Strings(names)
	return found, names, nil
}
