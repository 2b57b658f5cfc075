package cmd

import (
	crand "crypto/rand"
	"unsafe"

	"golang.org/x/sys/unix"
)

// randomBytes fills b from the kernel's random source with the getrandom
// system call itself. crypto/rand (and unix.Getrandom) read the same
// source through the vDSO, whose state the runtime allocates on first use
// (an mmap for every CPU) and crypto/rand adds its own set-up to: 10-30 µs
// of a one-attempt run, for 34 bytes.
func randomBytes(b []byte) {
	for len(b) > 0 {
		n, _, errno := unix.Syscall(unix.SYS_GETRANDOM, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			_, _ = crand.Read(b) // never fails on supported systems
			return
		}
		b = b[n:]
	}
}
