// Package slowtest marks the tests too slow for a developer's go test
// ./... (each takes more than a few seconds): they run only when
// RETRY_SLOW_TESTS=1 is set, as CI (.ci/run) sets it, or RETRY_LONG_TESTS
// (which asks for the full sizes of the load and signal-storm tests), and
// never with -short. Only tests import it.
package slowtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the slow tests on.
const Env = "RETRY_SLOW_TESTS"

// Enabled reports whether slow tests run: Env is 1, or RETRY_LONG_TESTS
// is set, and -short is not given.
func Enabled() bool {
	return (os.Getenv(Env) == "1" || os.Getenv("RETRY_LONG_TESTS") != "") && !testing.Short()
}

// Only skips t unless slow tests run; why says what makes it slow.
func Only(t testing.TB, why string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("slow test (%s): set %s=1 to run it, as CI does", why, Env)
	}
}
