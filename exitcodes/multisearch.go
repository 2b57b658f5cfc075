package exitcodes

import (
	"bytes"
	"sync"
)

// multiSearch finds whether a text contains any of a set of byte strings in
// one pass, where searching for each string in turn would pass over the
// text once per string. Each string of two bytes or more is anchored on one
// of its byte pairs, the one least likely in ordinary text; the pass tests
// every pair of the text against a 64 Kibit set of the anchors (one load,
// no dependency from one byte to the next, so it runs at memory speed) and
// checks the strings anchored there only on a hit. One-byte strings are
// found with IndexByte.
//
// Some strings have no rare pair ("parsing", "too many ", "error getting
// response"), so ordinary text meets their anchors every line or two. A
// hit is therefore tested a second time before any string is compared:
// the bytes just before and just after the pair in the text, with the
// pair, must be those of some string anchored there (a hashed set of
// each string's own neighbours of its anchor), which rules out nearly
// every hit in text that holds none of the strings.
//
// One search can hold needles sought as they are and needles sought in
// the text folded (newMixedSearch): its pass then lowers the text's ASCII
// letters as it goes (setting bit 5 of every byte) and files every anchor
// the same way, so that both kinds are found in the one pass, each
// checked on a hit in its own way.
type multiSearch struct {
	anchors [1 << 16 / 64]uint64
	// group holds, by anchor pair, 1 + the index in at of the strings
	// anchored on it (0 for none): an array, not a map, because a pass
	// over ordinary text meets some anchor every few lines.
	group  []uint16
	at     [][]anchored
	single []byte
	// singleFolded are one-byte needles sought in the text folded.
	singleFolded []byte
	// near is the hashed set of the anchors with their neighbours in
	// the needles: the byte before the pair, the byte after it, or both
	// (nearKey); kinds holds, by group, which of the three its needles
	// were filed under, and nearAlways for a needle that is its anchor
	// pair alone.
	near  [1 << nearBits / 64]uint64
	kinds []uint8
	// lowered says that the pass lowers the text as it goes: some needle
	// is sought folded.
	lowered bool
}

// The kinds of neighbours a needle's anchor is filed under in
// multiSearch.near.
const (
	nearBoth   uint8 = 1 << iota // the bytes before and after the pair
	nearBefore                   // the byte before: the pair ends the needle
	nearAfter                    // the byte after: the pair starts it
	nearAlways                   // neither: the needle is the pair
)

// nearBits is the size of multiSearch.near: 2^18 bits (32 KiB), so that
// the few thousand literals of every preset and the signatures fill some
// 1 % of it.
const nearBits = 18

// nearKey hashes an anchor pair, the kind of neighbours it is filed
// under, and those neighbours (0 for one not taken) into near's bits.
func nearKey(kind uint8, pair uint16, before, after byte) uint32 {
	k := uint32(pair)<<16 | uint32(before)<<8 | uint32(after)
	k ^= uint32(kind) * 0x27d4eb2f
	return k * 0x9e3779b1 >> (32 - nearBits)
}

type anchored struct {
	needle []byte
	offset int  // of the anchor pair in needle
	folded bool // sought in the text folded (needle is folded already)
}

// newMultiSearch prepares the search for needles, sought as they are; nil
// when there are none or one is empty (every text would contain it).
func newMultiSearch(needles [][]byte) *multiSearch {
	return newMixedSearch(needles, nil)
}

// newMixedSearch prepares one search for needles sought as they are and
// for folded ones, sought in the text folded as foldLine folds it (they
// are folded already); nil when there are none or one is empty.
func newMixedSearch(needles, folded [][]byte) *multiSearch {
	if len(needles)+len(folded) == 0 {
		return nil
	}
	m := &multiSearch{lowered: len(folded) > 0}
	// The same literal is often required by several patterns: it is
	// checked once.
	seen := make(map[string]bool, len(needles)+len(folded))
	add := func(n []byte, fold bool) bool {
		id := string(n)
		if fold {
			id = "\x00" + id
		}
		if len(n) > 0 && seen[id] {
			return true
		}
		seen[id] = true
		switch len(n) {
		case 0:
			return false
		case 1:
			if fold {
				m.singleFolded = append(m.singleFolded, n[0])
			} else {
				m.single = append(m.single, n[0])
			}
			return true
		}
		// The pass sees pairs lowered when some needle is folded: a
		// needle's capitals are then no rarer than its small letters.
		pairOf := func(i int) (byte, byte) {
			if m.lowered {
				return lowerASCII(n[i]), lowerASCII(n[i+1])
			}
			return n[i], n[i+1]
		}
		best, score := 0, -1
		for i := 0; i+1 < len(n); i++ {
			if s := pairRarity(pairOf(i)); s > score {
				best, score = i, s
			}
		}
		a, b := m.fold(n[best]), m.fold(n[best+1])
		pair := uint16(a)<<8 | uint16(b)
		m.anchors[pair/64] |= 1 << (pair % 64)
		if m.group == nil {
			m.group = make([]uint16, 1<<16)
		}
		if m.group[pair] == 0 {
			m.at = append(m.at, nil)
			m.kinds = append(m.kinds, 0)
			m.group[pair] = uint16(len(m.at))
		}
		g := m.group[pair] - 1
		m.at[g] = append(m.at[g], anchored{n, best, fold})
		kind, key := nearAlways, uint32(0)
		hasBefore, hasAfter := best > 0, best+2 < len(n)
		switch {
		case hasBefore && hasAfter:
			kind, key = nearBoth, nearKey(nearBoth, pair, m.fold(n[best-1]), m.fold(n[best+2]))
		case hasBefore:
			kind, key = nearBefore, nearKey(nearBefore, pair, m.fold(n[best-1]), 0)
		case hasAfter:
			kind, key = nearAfter, nearKey(nearAfter, pair, 0, m.fold(n[best+2]))
		}
		m.kinds[g] |= kind
		m.near[key/64] |= 1 << (key % 64)
		return true
	}
	for _, n := range needles {
		if !add(n, false) {
			return nil
		}
	}
	for _, n := range folded {
		if !add(n, true) {
			return nil
		}
	}
	return m
}

// rarity guesses how seldom b appears in the output of programs: common
// lower-case letters and spaces least, then other lower-case letters,
// then digits and capitals, then punctuation and other bytes.
func rarity(b byte) int {
	switch {
	case b == ' ' || bytes.IndexByte([]byte("etaoinsrhldcu"), b) >= 0:
		return 0
	case b >= 'a' && b <= 'z':
		return 1
	case b >= '0' && b <= '9', b >= 'A' && b <= 'Z':
		return 2
	}
	return 3
}

// commonPairs are the byte pairs of lower-case letters most frequent in
// English text and in log lines (log, debug, info, warn, error, config,
// request, status, time), most frequent first.
const commonPairs = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr hr cc tw ft wn nu af hu nn eo vo rv nf xp gn sm fl iz ok nl my gl aw ju oa eq sy sl ps jo lf nv je nk kn gs dy hy ze ks xt bs ik dd cy rp sk xi oe oy ws lv dl rf eu dg wr xa yi nm eb rb tm xc eh tc gy ja hn yp za"

// pairRarity scores how seldom the pair a, b appears in programs' output,
// higher for rarer: a pair with a byte that is not a lower-case letter
// scores by rarity, far above any pair of lower-case letters, and a pair
// of lower-case letters by its place in commonPairs, the least frequent
// highest and one not listed highest of all. A space or line end with a
// letter is as common as a pair gets.
func pairRarity(a, b byte) int {
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	switch {
	case a == ' ' || b == ' ' || a == '\n' || b == '\n':
		return 0
	case !lower(a) || !lower(b):
		return 1000 + rarity(a) + rarity(b)
	}
	return commonPairRanks()[a-'a'][b-'a']
}

// commonPairRanks returns, for each pair of lower-case letters, its score
// in pairRarity: 1 plus its place in commonPairs, or 999 when it is not
// listed. It is built once: a scan of commonPairs for each pair of each
// literal took an eighth of the time the signatures take to compile.
var commonPairRanks = sync.OnceValue(func() *[26][26]int {
	var t [26][26]int
	for i := range t {
		for j := range t[i] {
			t[i][j] = 999
		}
	}
	for i := 0; i+1 < len(commonPairs); i += 3 {
		t[commonPairs[i]-'a'][commonPairs[i+1]-'a'] = 1 + i/3
	}
	return &t
})

// in reports whether text contains any of the needles: those sought as
// they are in text as it is, the folded ones in text folded as foldLine
// folds it. Text that holds one of the two letters outside ASCII that
// fold to ASCII ones is searched in a folded copy for the folded needles.
func (m *multiSearch) in(text []byte) bool {
	for _, b := range m.single {
		if bytes.IndexByte(text, b) >= 0 {
			return true
		}
	}
	if !m.lowered {
		return m.pass(text, true, false)
	}
	if bytes.Contains(text, kelvinSign) || bytes.Contains(text, longS) {
		folded := foldLine(nil, text)
		return m.singleFoldedIn(folded) || m.pass(text, true, false) || m.pass(folded, false, true)
	}
	return m.singleFoldedIn(text) || m.pass(text, true, true)
}

// fold returns c as the pass sees it: with bit 5 set when the pass
// lowers, which lowers an ASCII capital.
func (m *multiSearch) fold(c byte) byte {
	if m.lowered {
		return c | 0x20
	}
	return c
}

// nearHit reports whether the bytes around the pair that ends at text[i]
// are, as far as near can tell, those around the anchor of a needle filed
// under pair: false only when no needle anchored there can be in text at
// i.
func (m *multiSearch) nearHit(text []byte, i int, pair uint16) bool {
	kinds := m.kinds[m.group[pair]-1]
	if kinds&nearAlways != 0 {
		return true
	}
	hasBefore, hasAfter := i >= 2, i+1 < len(text)
	var before, after byte
	if hasBefore {
		before = m.fold(text[i-2])
	}
	if hasAfter {
		after = m.fold(text[i+1])
	}
	has := func(key uint32) bool { return m.near[key/64]&(1<<(key%64)) != 0 }
	return kinds&nearBoth != 0 && hasBefore && hasAfter && has(nearKey(nearBoth, pair, before, after)) ||
		kinds&nearBefore != 0 && hasBefore && has(nearKey(nearBefore, pair, before, 0)) ||
		kinds&nearAfter != 0 && hasAfter && has(nearKey(nearAfter, pair, 0, after))
}

// singleFoldedIn reports whether text holds a one-byte folded needle, in
// either case.
func (m *multiSearch) singleFoldedIn(text []byte) bool {
	for _, b := range m.singleFolded {
		if bytes.IndexByte(text, b) >= 0 || (b >= 'a' && b <= 'z' && bytes.IndexByte(text, b-'a'+'A') >= 0) {
			return true
		}
	}
	return false
}

// pass makes the one pass over text that tests its byte pairs against the
// anchors, lowering its ASCII letters as it goes when some needle is
// folded (the anchors are then filed the same way), and checks the needles
// anchored on each pair it meets: those sought as they are when exact is
// set, the folded ones when folded is.
func (m *multiSearch) pass(text []byte, exact, folded bool) bool {
	if len(m.at) == 0 || len(text) < 2 {
		return false
	}
	// A pass that lowers sets bit 5 of each byte: the small letters of
	// the capitals, and some other bytes along with them ('@' with '`',
	// control bytes with digits and signs), which only lets through a
	// few more pairs for anchoredAt to rule out. The anchors are filed
	// the same way (fold).
	var mask uint16
	if m.lowered {
		mask = 0x2020
	}
	for i := 1; i < len(text); i++ {
		pair := (uint16(text[i-1])<<8 | uint16(text[i])) | mask
		if m.anchors[pair/64]&(1<<(pair%64)) != 0 && m.nearHit(text, i, pair) && m.anchoredAt(text, i, pair, exact, folded) {
			return true
		}
	}
	return false
}

// anchoredAt reports whether a needle anchored on pair, the pair that ends
// at text[i], is in text there: one sought as it is when exact is set, one
// sought folded when folded is.
func (m *multiSearch) anchoredAt(text []byte, i int, pair uint16, exact, folded bool) bool {
	for _, a := range m.at[m.group[pair]-1] {
		start := i - 1 - a.offset
		switch {
		case start < 0 || start+len(a.needle) > len(text):
		case !a.folded:
			// The first byte rules out most needles without a call.
			if exact && text[start] == a.needle[0] && bytes.HasPrefix(text[start:], a.needle) {
				return true
			}
		case folded:
			if lowerASCII(text[start]) == a.needle[0] && hasFoldedPrefix(text[start:], a.needle) {
				return true
			}
		}
	}
	return false
}

// The two letters outside ASCII that foldLine folds to ASCII ones.
var (
	kelvinSign = []byte("\u212A")
	longS      = []byte("\u017F")
)

// hasFoldedPrefix reports whether text, with its ASCII letters lowered,
// begins with needle.
func hasFoldedPrefix(text, needle []byte) bool {
	if len(text) < len(needle) {
		return false
	}
	for i, b := range needle {
		if lowerASCII(text[i]) != b {
			return false
		}
	}
	return true
}
