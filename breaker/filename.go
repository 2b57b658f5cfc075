package breaker

import (
	"encoding/hex"
	"strings"

	"retry/internal/sha256"
)

// maxReadable bounds the readable part of a file name.
const maxReadable = 48

// fileBase maps a record's kind and id to the base of its file names:
// "KIND-READABLE-HASH". READABLE is the id's first bytes with everything but
// ASCII letters, digits, '.', '_' and '-' turned into '_', so a person can
// tell the files apart; HASH is 32 hex digits of the id's SHA-256, so that
// distinct ids get distinct names. The result never contains a separator
// or NUL, never starts with a dot, and is at most 85 bytes whatever the id.
func fileBase(kind Kind, id string) string {
	var b strings.Builder
	b.WriteString(string(kind))
	b.WriteByte('-')
	for i := 0; i < len(id) && i < maxReadable; i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(sum[:16]))
	return b.String()
}

// recordFile is the name of the file holding a record.
func recordFile(kind Kind, id string) string { return fileBase(kind, id) + ".json" }

// claimFile is the name of the file holding a circuit's probe claim.
func claimFile(id string) string { return fileBase(Circuit, id) + ".probe" }

// lockFile is the name of the lock file of the record file name: one per
// record, so that updates of different records never wait for each other.
func lockFile(name string) string {
	return strings.TrimSuffix(name, ".json") + ".lock"
}

// tempFile is the name a record is written to before it is renamed into
// place (statefile.Replace's). Writers hold the record's lock, so one name
// per file is enough, and a file left by a writer that died is simply
// replaced.
func tempFile(name string) string { return "." + name + ".tmp" }
