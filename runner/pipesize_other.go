//go:build !linux

package runner

import "os"

import "syscall"

// pipeCapacity returns a bound on what a pipe holds: 1 MiB, more than any
// system's default pipe buffer.
func pipeCapacity(syscall.RawConn) int { return 1 << 20 }

// growPipe does nothing where pipe buffers cannot be resized.
func growPipe(*os.File) {}
