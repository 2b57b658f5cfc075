package exitcodes

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// PatternError is a pattern that does not compile, or that cannot serve
// its purpose.
type PatternError struct {
	// Pattern is the pattern as given.
	Pattern string
	// Err says what is wrong with it.
	Err error
}

// Error reads `pattern "(": missing closing ): want a Go regular
// expression (RE2 syntax)`.
func (e *PatternError) Error() string {
	return fmt.Sprintf("pattern %q: %v", shorten(e.Pattern, 80), e.Err)
}

// Unwrap returns the underlying error.
func (e *PatternError) Unwrap() error { return e.Err }

// CompilePatterns compiles each pattern as a Go regular expression (RE2
// syntax). The first one that does not compile is returned as a
// *PatternError that names it.
func CompilePatterns(patterns []string) ([]*regexp.Regexp, error) {
	res := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			var se *syntax.Error
			if errors.As(err, &se) {
				err = fmt.Errorf("%s in %q: want a Go regular expression (RE2 syntax)", se.Code, shorten(se.Expr, 40))
			}
			return nil, &PatternError{Pattern: p, Err: err}
		}
		res = append(res, re)
	}
	return res, nil
}

// matcher is one compiled pattern with a cheap test that rejects most
// lines before the regular expression runs.
type matcher struct {
	re *regexp.Regexp
	// need holds literals of which a matching line contains at least
	// one; nil means every line must go to re.
	need []literal
	// fold is set when some literal is compared with the line folded to
	// lower case.
	fold bool
	// capture is set for wait patterns, whose first group is kept.
	capture bool
}

// literal is a string a matching line must contain, exactly or (fold)
// in the line folded to lower case.
type literal struct {
	s    string
	fold bool
}

// newMatcher analyses re for literals that every match must contain.
func newMatcher(re *regexp.Regexp) matcher {
	m := matcher{re: re}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return m
	}
	if lits, ok := required(tree.Simplify()); ok {
		m.need = lits
		for _, l := range lits {
			m.fold = m.fold || l.fold
		}
	}
	return m
}

// mayMatch reports whether line (and folded, its lower-case form, when
// m.fold is set) can match m: false means it surely cannot.
func (m *matcher) mayMatch(line, folded []byte) bool {
	if m.need == nil {
		return true
	}
	for _, l := range m.need {
		hay := line
		if l.fold {
			hay = folded
		}
		if bytes.Contains(hay, []byte(l.s)) {
			return true
		}
	}
	return false
}

// required returns literals one of which every match of re contains, or
// false when no such set is known. It prefers the set whose shortest
// literal is longest, since that rejects the most lines.
func required(re *syntax.Regexp) ([]literal, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == utf8.RuneError {
				// The engine reads invalid UTF-8 in a line as U+FFFD,
				// which the bytes of the line do not contain.
				return nil, false
			}
		}
		fold := re.Flags&syntax.FoldCase != 0
		s := string(re.Rune)
		if fold {
			var ok bool
			if s, ok = foldLiteral(re.Rune); !ok {
				return nil, false
			}
		}
		return []literal{{s, fold}}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []literal
		for _, sub := range re.Sub {
			if lits, ok := required(sub); ok && better(lits, best) {
				best = lits
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			lits, ok := required(sub)
			if !ok {
				return nil, false
			}
			all = append(all, lits...)
		}
		return all, len(all) > 0
	}
	return nil, false
}

// better reports whether the literal set a rejects more lines than b:
// its shortest literal is longer, or as long with fewer literals.
func better(a, b []literal) bool {
	if b == nil {
		return true
	}
	sa, sb := shortest(a), shortest(b)
	return sa > sb || (sa == sb && len(a) < len(b))
}

// shortest returns the length of the shortest literal in lits.
func shortest(lits []literal) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l.s) < n {
			n = len(l.s)
		}
	}
	return n
}

// foldLiteral returns the lower-case form of a case-insensitive literal,
// as foldLine would produce it for any matching text, or false when the
// literal has letters outside ASCII whose case folding foldLine does not
// follow.
func foldLiteral(runes []rune) (string, bool) {
	b := make([]byte, 0, len(runes))
	for _, r := range runes {
		if r >= utf8.RuneSelf {
			return "", false
		}
		b = append(b, lowerASCII(byte(r)))
	}
	return string(b), true
}

// foldLine writes into dst the lower-case form of line used to test
// case-insensitive literals: ASCII letters lowered, and the two letters
// outside ASCII that fold to ASCII ones (KELVIN SIGN to k, LONG S to s)
// replaced, so that a line a (?i) pattern matches always contains the
// folded literal.
func foldLine(dst, line []byte) []byte {
	dst = dst[:0]
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			dst = append(dst, lowerASCII(c))
			i++
			continue
		}
		r, n := utf8.DecodeRune(line[i:])
		switch r {
		case '\u212A': // KELVIN SIGN
			dst = append(dst, 'k')
		case '\u017F': // LATIN SMALL LETTER LONG S
			dst = append(dst, 's')
		default:
			dst = append(dst, line[i:i+n]...)
		}
		i += n
	}
	return dst
}

// lowerASCII lowers an ASCII upper-case letter.
func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
