// Package testbin holds what the test binaries that start real processes
// share: building retry once, and starting processes with signals at their
// defaults. Only tests import it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// Main builds the retry binary, and retry-redis beside it, into a new
// temporary directory, sets *bin to retry's path, runs the tests with run
// (a testing.M's Run), removes the directory and exits with the tests'
// code. Call it from TestMain.
func Main(bin *string, run func() int) {
	os.Exit(Run(bin, run))
}

// Run is Main without the exit: it returns the tests' code, for a TestMain
// that hands the exit to someone else (testscript.Main).
func Run(bin *string, run func() int) int {
	StartSignalsAtDefaults()
	dir, err := os.MkdirTemp("", "retry-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, "retry")
	// retry-redis beside it, as an install has it: retry hands runs that
	// keep their state in Redis to it.
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "retry", "retry/cmd/retry-redis")
	// Static, as the release and the documented installs are: a build
	// that links the C library starts a third slower, and the start-up
	// and RSS tests measure this binary.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build retry and retry-redis:", err)
		return 1
	}
	return run()
}

// StartSignalsAtDefaults lets the processes a test starts receive SIGHUP
// and SIGINT even when the tests themselves run with them ignored (under
// nohup, or as a script's background job), as they would from a
// terminal: ignored signals stay ignored across exec, caught ones are reset
// to their defaults.
func StartSignalsAtDefaults() {
	sink := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(sink, sig)
		}
	}
}
