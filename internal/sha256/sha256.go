// Package sha256 computes SHA-256 (FIPS 180-4) for the names of retry's
// state files and keys, which must stay what they were.
//
// crypto/sha256 computes the same digests, but it is the FIPS 140 module's:
// importing it links and initialises the module's other algorithms and
// self-tests at every start of retry, some 0.06-0.08 of the start-up
// baseline of `retry -- true` (docs/benchmarks.md), for a digest of a few
// dozen bytes per run. The tests check this package against crypto/sha256.
package sha256

import (
	"encoding/binary"
	"math/bits"
)

// Size is the length of a digest in bytes.
const Size = 32

// blockSize is the length of the blocks the message is cut into.
const blockSize = 64

// Sum256 returns the SHA-256 digest of data.
func Sum256(data []byte) [Size]byte {
	h := [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
	// The message, a 1 bit, zeros, and its length in bits as 64 bits, to
	// a whole number of blocks.
	msg := make([]byte, 0, (len(data)+1+8+blockSize-1)/blockSize*blockSize)
	msg = append(msg, data...)
	msg = append(msg, 0x80)
	for len(msg)%blockSize != blockSize-8 {
		msg = append(msg, 0)
	}
	msg = binary.BigEndian.AppendUint64(msg, uint64(len(data))*8)
	for ; len(msg) > 0; msg = msg[blockSize:] {
		block(&h, msg[:blockSize])
	}
	var sum [Size]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(sum[4*i:], v)
	}
	return sum
}

// block runs the compression function over one block.
func block(h *[8]uint32, p []byte) {
	var w [64]uint32
	for i := range 16 {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 64; i++ {
		s0 := bits.RotateLeft32(w[i-15], -7) ^ bits.RotateLeft32(w[i-15], -18) ^ w[i-15]>>3
		s1 := bits.RotateLeft32(w[i-2], -17) ^ bits.RotateLeft32(w[i-2], -19) ^ w[i-2]>>10
		w[i] = w[i-16] + s0 + w[i-7] + s1
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for i := range 64 {
		s1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
		ch := e&f ^ ^e&g
		t1 := hh + s1 + ch + roundConstants[i] + w[i]
		s0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
		maj := a&b ^ a&c ^ b&c
		hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+s0+maj
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
}

// roundConstants are the first 32 bits of the fractional parts of the
// cube roots of the first 64 primes (FIPS 180-4, 4.2.2). Read only.
var roundConstants = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}
