package cmd

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"time"
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
// getrandom. Where that cannot be read either (a container without
// /dev), it fills b from the clock and the process id, which are not
// secret but differ from run to run: two runs must never share an
// idempotency key or a seed.
func urandom(b []byte) {
	if f, err := os.Open("/dev/urandom"); err == nil {
		defer f.Close()
		if _, err := io.ReadFull(f, b); err == nil {
			return
		}
	}
	clockRandom(b, time.Now(), os.Getpid())
}

// clockRandom fills b from a generator seeded with now and pid.
func clockRandom(b []byte, now time.Time, pid int) {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(now.UnixNano()))
	binary.LittleEndian.PutUint64(seed[8:], uint64(pid))
	_, _ = rand.NewChaCha8(seed).Read(b)
}
