//go:build unix && !linux

package runner

import "syscall"

// stopWithRetry does nothing: this system has no parent-death signal, and
// an attempt outlives a retry that was killed (pdeathsig_linux.go).
func stopWithRetry(*syscall.SysProcAttr, syscall.Signal) {}
