package exitcodes

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
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
		if n := programSize(p); n > MaxPatternSize {
			return nil, &PatternError{Pattern: p, Err: fmt.Errorf("too large: it compiles to %d instructions, more than %d; RE2 matches in time that grows with that size, so write a shorter pattern (a{1000} repeats a 1000 times)", n, MaxPatternSize)}
		}
		res = append(res, re)
	}
	return res, nil
}

// MaxPatternSize is the most instructions a user's pattern may compile to.
// RE2 matches a line in time proportional to the line's length times the
// program's size, so a huge program (a{1000} nested in repeats) would make
// scanning one line take seconds. Every built-in pattern is under 800. A
// plain literal, found by a substring search, has no such cost and no cap.
const MaxPatternSize = 2000

// programSize is the number of instructions p compiles to (p is valid), or
// 0 for a plain literal.
func programSize(p string) int {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0
	}
	if re = re.Simplify(); re.Op == syntax.OpLiteral {
		return 0
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		return 0
	}
	return len(prog.Inst)
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
	// goesOn is set for the sigGoesOn signature, and stop for the sigStop
	// ones that a line it matched skips; goesOn precedes them.
	goesOn, stop bool
	// once is set for a pattern whose first match in a Scan is all that
	// counts (sigUnsure): it is not sought again once it has matched.
	once bool
	// join is set for a pattern also sought across a wrapped box line
	// (Scan.joinBox).
	join bool
	// rare and rareFolded hold the hash of each literal's rarest bigram,
	// for the literals sought in the line as it is and in the line folded:
	// a line whose gram sets hold none of them contains no literal, which
	// sixteen word tests show, where the loop over the literals would test
	// each. rareAll is false when some literal is too short to have a
	// bigram, or when there are too few literals for the sixteen tests to
	// cost less than the loop, and the test is then skipped.
	rare, rareFolded gramSet
	rareAll          bool
}

// literal is a string a matching line must contain, exactly or (fold)
// in the line folded to lower case.
type literal struct {
	s    string
	b    []byte // s, converted once
	fold bool
	// grams are bigram hashes of s (see grams): a line whose gram set
	// lacks any of them cannot contain s.
	grams []uint16
}

// maxLiteralGrams bounds the bigrams tested per literal; a few spread
// over the literal reject nearly every line that lacks it.
const maxLiteralGrams = 6

// gramSet is a 1024-bit set of a line's byte bigrams, hashed: building it
// costs one pass over the line, and testing a literal against it a few
// bit tests, far less than a substring search.
type gramSet [16]uint64

// gramHash hashes the bigram a, b into the 1024 bits of a gramSet.
func gramHash(a, b byte) uint16 {
	return (uint16(a)*31 + uint16(b)) & 1023
}

// fill sets g to the bigrams of line.
func (g *gramSet) fill(line []byte) {
	*g = gramSet{}
	for i := 0; i+1 < len(line); i++ {
		h := gramHash(line[i], line[i+1])
		g[h>>6] |= 1 << (h & 63)
	}
}

// meets reports whether g and o have a bigram hash in common.
func (g *gramSet) meets(o *gramSet) bool {
	for i := range g {
		if g[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// has reports whether every hash in grams is in g.
func (g *gramSet) has(grams []uint16) bool {
	for _, h := range grams {
		if g[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// literalGrams returns up to maxLiteralGrams distinct bigram hashes of s,
// spread over it.
func literalGrams(s string) []uint16 {
	n := len(s) - 1
	if n <= 0 {
		return nil
	}
	var out []uint16
	step := max(1, n/maxLiteralGrams)
	for i := 0; i < n && len(out) < maxLiteralGrams; i += step {
		h := gramHash(s[i], s[i+1])
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// rarestGram returns the hash of the bigram of s least likely in
// programs' output (see pairRarity), and false when s has none.
func rarestGram(s string) (uint16, bool) {
	best, score := -1, -1
	for i := 0; i+1 < len(s); i++ {
		if r := pairRarity(s[i], s[i+1]); r > score {
			best, score = i, r
		}
	}
	if best < 0 {
		return 0, false
	}
	return gramHash(s[best], s[best+1]), true
}

// rareMin is the fewest literals for which the rare-bigram test pays: with
// fewer, the loop over them rejects a line as fast.
const rareMin = 4

// setRare fills m.rare and m.rareFolded from m.need.
func (m *matcher) setRare() {
	m.rare, m.rareFolded, m.rareAll = gramSet{}, gramSet{}, len(m.need) >= rareMin
	if !m.rareAll {
		return
	}
	for _, l := range m.need {
		h, ok := rarestGram(l.s)
		if !ok {
			m.rareAll = false
			return
		}
		set := &m.rare
		if l.fold {
			set = &m.rareFolded
		}
		set[h>>6] |= 1 << (h & 63)
	}
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
		for i := range lits {
			lits[i].b = []byte(lits[i].s)
			lits[i].grams = literalGrams(lits[i].s)
			m.fold = m.fold || lits[i].fold
		}
		m.setRare()
	}
	return m
}

// exactLiterals makes case-sensitive prefilter literals of ss.
func exactLiterals(ss []string) []literal {
	lits := make([]literal, len(ss))
	for i, s := range ss {
		lits[i] = literal{s: s, b: []byte(s), grams: literalGrams(s)}
	}
	return lits
}

// mayMatch reports whether line (and folded, its lower-case form, when
// m.fold is set) can match m: false means it surely cannot. g and gf are
// the gram sets of line and folded, or nil to skip that test.
func (m *matcher) mayMatch(line, folded []byte, g, gf *gramSet) bool {
	if m.need == nil {
		return true
	}
	if m.rareAll && g != nil && (gf != nil || !m.fold) && !g.meets(&m.rare) && (!m.fold || !gf.meets(&m.rareFolded)) {
		return false
	}
	for _, l := range m.need {
		hay, grams := line, g
		if l.fold {
			hay, grams = folded, gf
		}
		if grams != nil && !grams.has(l.grams) {
			continue
		}
		if bytes.Contains(hay, l.b) {
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
		return []literal{{s: s, fold: fold}}, true
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
