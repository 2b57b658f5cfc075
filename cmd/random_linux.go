package cmd

import (
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// randomBytes fills b from the kernel's random source with the getrandom
// system call itself, or from /dev/urandom on a kernel older than 3.17,
// which has no getrandom. crypto/rand reads the same source through the
// vDSO, whose state the runtime allocates on first use (an mmap for every
// CPU), adds its own set-up (10-30 µs of a one-attempt run, for 34 bytes),
// and links and initialises its DRBG, AES and SHA-3 at every start.
func randomBytes(b []byte) {
	for len(b) > 0 {
		n, _, errno := unix.Syscall(unix.SYS_GETRANDOM, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			urandom(b)
			return
		}
		b = b[n:]
	}
}

// urandom fills b from /dev/urandom, as crypto/rand does without
// getrandom; b stays as it is if that cannot be read.
func urandom(b []byte) {
	f, err := os.Open("/dev/urandom")
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = io.ReadFull(f, b)
}
