package exitcodes

import "bytes"

// Terminal escapes in output. Programs that colour their output whatever
// it goes to (terraform unless -no-color, tools run with FORCE_COLOR or
// --color=always) put escape sequences inside the words the rules look
// for: terraform writes "Error: " and the diagnostic's summary in
// separate colours, so "Error: Invalid reference" never appears as such.
// Lines are judged with their escapes taken out.

// esc starts every escape sequence.
const esc = 0x1b

// stripEscapes appends src to dst without its escape sequences: CSI ones
// (ESC [ … final byte, colours and cursor moves), OSC ones (ESC ] …
// ended by BEL or ESC \, such as hyperlinks), character set choices
// (ESC ( B) and other two-byte ones (ESC 7). A sequence cut off by the
// end of the line is dropped with the rest of it.
func stripEscapes(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, esc)
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i+1:]
		if len(src) == 0 {
			return dst
		}
		switch src[0] {
		case '[':
			// Parameter and intermediate bytes (0x20-0x3f), then one
			// final byte (0x40-0x7e).
			j := 1
			for j < len(src) && src[j] >= 0x20 && src[j] <= 0x3f {
				j++
			}
			if j == len(src) {
				return dst
			}
			if src[j] <= 0x7e && src[j] >= 0x40 {
				j++
			}
			src = src[j:]
		case ']':
			end, n := oscEnd(src[1:])
			if end < 0 {
				return dst
			}
			src = src[1+end+n:]
		case '(', ')', '*', '+':
			src = src[min(2, len(src)):]
		default:
			src = src[1:]
		}
	}
}

// oscEnd returns where the string terminator of an OSC sequence's body b
// starts, and its length: BEL, or ESC \. end is -1 when b has none.
func oscEnd(b []byte) (end, n int) {
	for i, c := range b {
		switch {
		case c == 0x07:
			return i, 1
		case c == esc && i+1 < len(b) && b[i+1] == '\\':
			return i, 2
		}
	}
	return -1, 0
}
