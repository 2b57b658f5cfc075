package cmd

// Pointers from what a user typed to what retry calls it: the flags of
// other retry tools, near misses of our own flag names, and mistyped
// subcommands.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"retry/exitcodes"
	"retry/runner"
)

// peerFlags are flags other retry tools take, with what retry does
// instead. Sources: minfrin/retry's man page (--times, --until, --while,
// --delay), kadwanev/retry (--tries, --sleep), recur (--backoff,
// --max-delay, --forever), curl (--retry, --retry-delay, --retry-max-time,
// --max-time), kamilsk/retry (--limit, --infinite).
func peerFlags() map[string]string {
	attempts := "retry counts attempts, the first included: use --attempts N (-n N); retrying N times is --attempts N+1, retrying without end is --forever"
	deadline := "the time for all attempts and waits is --deadline D (-d D); one attempt's limit is --timeout D"
	delay := "waits grow from a base: --slow-delay D for the backoff (and --slow-max D for its cap), --fast-delay D for the first quick retries; see retry plan"
	maxDelay := "the longest wait is --slow-max D (--fast-max D for the fast phase)"
	return map[string]string{
		"retries":        attempts,
		"retry":          attempts,
		"tries":          attempts,
		"times":          attempts,
		"max-retries":    attempts,
		"max-tries":      attempts,
		"max-attempts":   attempts,
		"limit":          attempts,
		"count":          attempts,
		"max-time":       deadline,
		"retry-max-time": deadline,
		"timeout-total":  deadline,
		"total-timeout":  deadline,
		"delay":          delay,
		"retry-delay":    delay,
		"sleep":          delay,
		"backoff":        delay,
		"wait":           delay,
		"interval":       delay,
		"max-delay":      maxDelay,
		"max-sleep":      maxDelay,
		"max-wait":       maxDelay,
		"infinite":       "retrying without end is --forever",
		// minfrin/retry: --until=CRITERIA repeats until the exit matches
		// (success, an integer or a range); --while=CRITERIA repeats while
		// it matches.
		"until": "retry stops on success already; to stop on other exit codes too, use --stop-on-exit LIST (codes and ranges, such as 2,64-78)",
		"while": "to retry only on some exit codes, use --retry-on-exit LIST (codes and ranges, such as 1,75,100-110); others then stop",
	}
}

// unknownFlag says what to use instead of an unknown long flag name
// (without dashes): a peer tool's flag gets ours, and a near miss of one
// of ours (a typo) gets that one. It returns "" when it has nothing.
func unknownFlag(name string, fs *pflag.FlagSet) string {
	if hint, ok := peerFlags()[strings.ToLower(name)]; ok {
		return hint
	}
	if fs == nil {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if best := closest(name, names); best != "" {
		return "did you mean --" + best + "?"
	}
	return ""
}

// closest returns the candidate nearest to s by edit distance, when it is
// near enough to be a typo of it: one edit for words of up to four
// letters, two for longer ones. Ties go to the first in sorted order.
func closest(s string, candidates []string) string {
	limit := 1
	if len(s) > 4 {
		limit = 2
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestDist := "", limit+1
	for _, c := range sorted {
		if d := editDistance(strings.ToLower(s), c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and
// transpositions of adjacent letters that turn a into b (optimal string
// alignment distance).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// notFoundHint starts attempts with next, and when program, the
// command's program, is not found, says in the error what was likely
// meant: a subcommand it nearly names ("retry presest"), or a shell
// builtin, which no program on disk provides ("retry -- cd dir"). The
// command still fails as any command not found does (exit 127).
type notFoundHint struct {
	next    runner.Starter
	program string
}

func (s notFoundHint) Start(ctx context.Context, c runner.Command) (runner.Process, error) {
	p, err := s.next.Start(ctx, c)
	var se *runner.StartError
	if err == nil || !errors.As(err, &se) || se.Kind != exitcodes.ProgramMissing || len(c.Args) == 0 || c.Args[0] != s.program || strings.Contains(s.program, "/") {
		return p, err
	}
	var hint string
	if name, ok := typographicFlag(s.program); ok {
		hint = fmt.Sprintf("it starts with a typographic dash, not a flag's -: did you mean -%s?", name)
	} else if sub := closest(s.program, subcommandNames()); sub != "" {
		hint = "did you mean retry " + sub + "?"
	} else if shellOnly(s.program) {
		hint = s.program + " is part of the shell, not a program: give retry the whole line with --shell -c '…'"
	} else {
		return p, err
	}
	return p, &runner.StartError{Program: se.Program, Kind: se.Kind, Err: &didYouMean{err: se.Err, hint: hint}}
}

// typographicFlag reports whether word is a flag typed with a dash that
// an editor or a chat put in place of - or -- (an en or em dash, a minus
// sign: "—deadline", "–n"), and returns it with one hyphen for each such
// dash taken off, and the second hyphen of a long flag: "-deadline", "n".
func typographicFlag(word string) (string, bool) {
	rest := strings.TrimLeft(word, "\u2013\u2014\u2212")
	if rest == word || rest == "" || strings.HasPrefix(rest, "-") {
		return "", false
	}
	if utf8.RuneCountInString(rest) > 1 {
		return "-" + rest, true
	}
	return rest, true
}

// shellOnly reports whether name is a shell builtin or keyword (bash's
// and POSIX sh's) that is not found as a program: where a system ships
// one (macOS and Fedora have /usr/bin/cd), it is found and runs, and this
// is never asked. test, echo, kill and the like are programs everywhere.
func shellOnly(name string) bool {
	switch name {
	case ".", "source", "cd", "export", "alias", "unalias", "set", "unset", "eval", "exec", "exit",
		"pushd", "popd", "dirs", "ulimit", "umask", "trap", "shopt", "declare", "typeset", "local",
		"readonly", "shift", "return", "let", "read", "mapfile", "readarray", "getopts", "wait",
		"type", "hash", "command", "builtin", "history", "jobs", "fg", "bg", "disown", "time",
		"if", "for", "while", "until", "case", "function", "select", "[[", "{", "!":
		return true
	}
	return false
}

// didYouMean adds a hint to an error. It has no Unwrap, so that messages
// which show a wrapped error's innermost cause keep the hint, but
// errors.Is still sees through it.
type didYouMean struct {
	err  error
	hint string
}

func (e *didYouMean) Error() string {
	inner := e.err
	for {
		u, ok := inner.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			break
		}
		inner = u.Unwrap()
	}
	return inner.Error() + "; " + e.hint
}

func (e *didYouMean) Is(target error) bool { return errors.Is(e.err, target) }
