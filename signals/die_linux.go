package signals

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Die ends the process by sig, the signal that stopped retry, as a
// program that does not catch it ends: its parent then sees a death by
// sig, not an exit with 128+n. A shell running retry in a script ends
// the script at Ctrl-C only when retry dies of SIGINT (bash's "wait and
// cooperative exit"), and systemd counts a death by SIGTERM, SIGINT or
// SIGHUP as a clean stop where it counts exit 143 as a failure. timeout(1)
// ends the same way.
//
// Only SIGINT, SIGTERM and SIGHUP are re-raised: SIGQUIT's default action
// dumps core. Die returns, and retry exits with 128+n instead, for any
// other signal, for PID 1 (the kernel drops a signal its namespace's init
// does not catch), or when the signal did not end the process.
//
// The default action is installed with the system call itself, not with
// os/signal: that would hand the signal back to the Go runtime, which
// under a storm of signals at that moment was seen to die of a SIGSEGV
// or SIGHUP about once in 1,500 runs (docs/reliability.md). The runtime
// keeps handling the other signals; a copy of sig sent before this
// instant and not yet delivered is delivered by the default action too.
func Die(sig syscall.Signal) {
	if !reraised(sig) || os.Getpid() == 1 {
		return
	}
	// A kernel sigaction, all zeros: SIG_DFL, no flags, nothing masked.
	var dfl [4]uint64
	const sigsetSize = 8
	if _, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, sigsetSize, 0, 0); errno != 0 {
		return
	}
	if unix.Kill(os.Getpid(), sig) != nil {
		return
	}
	// The kill ends the process before it returns, unless a copy of sig
	// was already pending, which makes the kernel drop this one: that
	// copy ends it as soon as its thread runs.
	time.Sleep(dieWait)
}

// dieWait is how long Die waits for a pending copy of its signal to end
// the process before it gives up and returns.
const dieWait = 100 * time.Millisecond

// reraised reports whether Die ends the process by sig: the signals whose
// default action only terminates it.
func reraised(sig syscall.Signal) bool {
	return sig == syscall.SIGINT || sig == syscall.SIGTERM || sig == syscall.SIGHUP
}
