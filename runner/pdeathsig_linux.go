package runner

import "syscall"

// stopWithRetry makes the process started with attr get sig when retry
// dies (killed with SIGKILL, or by the OOM killer), rather than run on in
// its own process group with no one to stop it. Only that process: what
// it started does not get it (a shell passes a SIGTERM on to nothing,
// so `sh -c 'a | b'` leaves a and b running), and no SIGKILL follows. Linux sends it when the
// thread that started the process ends; the Go runtime ends a thread only
// when a goroutine locked to it returns, and nothing in retry locks one,
// so in practice that is when retry ends. It is dropped when the process
// runs a set-user-ID program.
func stopWithRetry(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}
