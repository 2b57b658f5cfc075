package cmd

import (
	crand "crypto/rand"

	"golang.org/x/sys/unix"
)

// randomBytes fills b from the kernel's random source with getrandom(2).
// crypto/rand reads the same source, but on first use sets up a vDSO state
// (an mmap and more), which cost a one-attempt run 30 µs.
func randomBytes(b []byte) {
	for len(b) > 0 {
		n, err := unix.Getrandom(b, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			_, _ = crand.Read(b) // never fails on supported systems
			return
		}
		b = b[n:]
	}
}
