//go:build unix

package exitcodes

import "syscall"

// maxSignal is the largest signal number ParseSignal accepts.
const maxSignal = 64

func signalTable() []namedSignal {
	return []namedSignal{
		{"HUP", syscall.SIGHUP}, {"INT", syscall.SIGINT}, {"QUIT", syscall.SIGQUIT},
		{"ILL", syscall.SIGILL}, {"TRAP", syscall.SIGTRAP}, {"ABRT", syscall.SIGABRT},
		{"BUS", syscall.SIGBUS}, {"FPE", syscall.SIGFPE}, {"KILL", syscall.SIGKILL},
		{"USR1", syscall.SIGUSR1}, {"SEGV", syscall.SIGSEGV}, {"USR2", syscall.SIGUSR2},
		{"PIPE", syscall.SIGPIPE}, {"ALRM", syscall.SIGALRM}, {"TERM", syscall.SIGTERM},
		{"CHLD", syscall.SIGCHLD}, {"CONT", syscall.SIGCONT}, {"STOP", syscall.SIGSTOP},
		{"TSTP", syscall.SIGTSTP}, {"TTIN", syscall.SIGTTIN}, {"TTOU", syscall.SIGTTOU},
		{"URG", syscall.SIGURG}, {"XCPU", syscall.SIGXCPU}, {"XFSZ", syscall.SIGXFSZ},
		{"VTALRM", syscall.SIGVTALRM}, {"PROF", syscall.SIGPROF}, {"WINCH", syscall.SIGWINCH},
		{"IO", syscall.SIGIO}, {"SYS", syscall.SIGSYS},
	}
}
