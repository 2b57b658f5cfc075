//go:build steptrace

package steptrace

import (
	"strconv"
	"syscall"
	"time"
)

// Enabled reports whether this build marks steps.
const Enabled = true

// Mark writes "steptrace STEP UNIX_NANOS MINOR_FAULTS" to stderr, in one
// write and without fmt, so that marking costs a few microseconds. The
// last field is the process's minor page faults so far (getrusage): on a
// virtual machine each costs microseconds, and they are much of a start.
func Mark(step string) {
	now := time.Now().UnixNano()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b := make([]byte, 0, 80)
	b = append(b, "steptrace "...)
	b = append(b, step...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, now, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ru.Minflt, 10)
	b = append(b, '\n')
	_, _ = syscall.Write(2, b)
}
