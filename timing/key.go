package timing

import (
	"encoding/binary"
	"encoding/hex"
	"path/filepath"
	"strings"

	"retry/internal/sha256"
)

// CommandKey derives the key a command's durations are learned under when
// the user names none: the program's base name, for people, then a hash of
// the working directory and every word of argv, so the command line itself
// is never stored in clear (it carries secrets). The same words run in the
// same directory share a key; another argument, another directory or a
// program reached by another path does not. The environment is not part
// of the key: it changes from run to run (tokens, CI variables) and would
// leave every run with a key of its own.
func CommandKey(argv []string, dir string) string {
	var fields []byte
	field := func(s string) {
		fields = binary.BigEndian.AppendUint64(fields, uint64(len(s)))
		fields = append(fields, s...)
	}
	field("retry timing key 1")
	field(dir)
	for _, a := range argv {
		field(a)
	}
	prog := "command"
	if len(argv) > 0 {
		prog = readable(filepath.Base(argv[0]))
	}
	sum := sha256.Sum256(fields)
	return prog + "-" + hex.EncodeToString(sum[:12])
}

// readable keeps the first 32 ASCII letters, digits, '.', '_' and '-' of
// s, dropping the rest, so a key reads well in a file name or a list.
func readable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 32; i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 || strings.Trim(b.String(), ".") == "" {
		return "command"
	}
	return b.String()
}
