//go:build !linux

package signals

import "syscall"

// Die does nothing on this system: retry exits with 128+n of the signal
// that stopped it (die_linux.go says what Linux does instead).
func Die(syscall.Signal) {}
