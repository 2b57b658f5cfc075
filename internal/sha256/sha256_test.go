package sha256

import (
	stdsha256 "crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSum256KnownAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	} {
		sum := Sum256([]byte(tc.in))
		assert.Equal(t, tc.want, hex.EncodeToString(sum[:]), "%q", tc.in)
	}
}

// Every length around the block and padding boundaries, and random
// contents, give crypto/sha256's digest: state file names stay the same.
func TestSum256IsCryptoSHA256(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		assert.Equal(t, stdsha256.Sum256(data), Sum256(data), "%d bytes", n)
	}
}

func FuzzSum256IsCryptoSHA256(f *testing.F) {
	f.Add([]byte("circuit registry.example"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if Sum256(data) != stdsha256.Sum256(data) {
			t.Fatalf("digest of %q differs from crypto/sha256's", data)
		}
	})
}
