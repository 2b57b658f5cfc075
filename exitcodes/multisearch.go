package exitcodes

import "bytes"

// multiSearch finds whether a text contains any of a set of byte strings in
// one pass, where searching for each string in turn would pass over the
// text once per string. Each string of two bytes or more is anchored on one
// of its byte pairs, the one least likely in ordinary text; the pass tests
// every pair of the text against a 64 Kibit set of the anchors (one load,
// no dependency from one byte to the next, so it runs at memory speed) and
// checks the strings anchored there only on a hit. One-byte strings are
// found with IndexByte.
type multiSearch struct {
	anchors [1 << 16 / 64]uint64
	// group holds, by anchor pair, 1 + the index in at of the strings
	// anchored on it (0 for none): an array, not a map, because a pass
	// over ordinary text meets some anchor every few lines.
	group  []uint16
	at     [][]anchored
	single []byte
}

type anchored struct {
	needle []byte
	offset int // of the anchor pair in needle
}

// newMultiSearch prepares the search for needles; nil when there are none
// or one is empty (every text would contain it).
func newMultiSearch(needles [][]byte) *multiSearch {
	if len(needles) == 0 {
		return nil
	}
	m := &multiSearch{}
	for _, n := range needles {
		switch len(n) {
		case 0:
			return nil
		case 1:
			m.single = append(m.single, n[0])
			continue
		}
		best, score := 0, -1
		for i := 0; i+1 < len(n); i++ {
			if s := rarity(n[i]) + rarity(n[i+1]); s > score {
				best, score = i, s
			}
		}
		pair := uint16(n[best])<<8 | uint16(n[best+1])
		m.anchors[pair/64] |= 1 << (pair % 64)
		if m.group == nil {
			m.group = make([]uint16, 1<<16)
		}
		if m.group[pair] == 0 {
			m.at = append(m.at, nil)
			m.group[pair] = uint16(len(m.at))
		}
		g := m.group[pair] - 1
		m.at[g] = append(m.at[g], anchored{n, best})
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

// in reports whether text contains any of the needles.
func (m *multiSearch) in(text []byte) bool {
	for _, b := range m.single {
		if bytes.IndexByte(text, b) >= 0 {
			return true
		}
	}
	if len(m.at) == 0 || len(text) < 2 {
		return false
	}
	prev := uint16(text[0])
	for i := 1; i < len(text); i++ {
		pair := prev<<8 | uint16(text[i])
		prev = uint16(text[i])
		if m.anchors[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		for _, a := range m.at[m.group[pair]-1] {
			start := i - 1 - a.offset
			if start >= 0 && bytes.HasPrefix(text[start:], a.needle) {
				return true
			}
		}
	}
	return false
}
