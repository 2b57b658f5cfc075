package exitcodes

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// SignalName returns the conventional name of sig, such as "SIGTERM", or
// "signal 42" for a number with no name.
func SignalName(sig syscall.Signal) string {
	for _, s := range signalTable() {
		if s.sig == sig {
			return "SIG" + s.name
		}
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// ParseSignal reads a signal given by name or number: "TERM", "SIGTERM",
// "term" and "15" all mean SIGTERM.
func ParseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 || n > maxSignal {
			return 0, fmt.Errorf("signal number %d out of range 1-%d", n, maxSignal)
		}
		return syscall.Signal(n), nil
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for _, e := range signalTable() {
		if e.name == name {
			return e.sig, nil
		}
	}
	return 0, fmt.Errorf("unknown signal %q (want a name such as TERM, INT, KILL, or a number)", s)
}

type namedSignal struct {
	name string
	sig  syscall.Signal
}
