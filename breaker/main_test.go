package breaker

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// helperEnv switches the test binary into a helper process: its value names
// the helper to run instead of the tests. Helpers read their parameters from
// helperArgEnv (JSON) and write their report as JSON to stdout.
const (
	helperEnv    = "BREAKER_TEST_HELPER"
	helperArgEnv = "BREAKER_TEST_HELPER_ARGS"
)

// helperFunc is a helper process's body; it returns the exit code.
type helperFunc func(args helperArgs) int

// helperArgs are the parameters every helper understands.
type helperArgs struct {
	Dir   string `json:"dir"`
	Key   string `json:"key"`
	N     int    `json:"n"`
	Limit int    `json:"limit"`
}

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	os.Exit(m.Run())
}

// runHelper runs the helper called name.
func runHelper(name string) int {
	helpers := map[string]helperFunc{}
	for n, h := range processHelpers() {
		helpers[n] = h
	}
	for n, h := range osHelpers() {
		helpers[n] = h
	}
	h, ok := helpers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		return 2
	}
	var args helperArgs
	if err := json.Unmarshal([]byte(os.Getenv(helperArgEnv)), &args); err != nil {
		fmt.Fprintf(os.Stderr, "helper args: %v\n", err)
		return 2
	}
	return h(args)
}

// helperCmd returns a command that runs helper name with args.
func helperCmd(t *testing.T, name string, args helperArgs) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("test binary: %v", err)
	}
	data, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("helper args: %v", err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+name, helperArgEnv+"="+string(data))
	return cmd
}

// report writes v as the helper's JSON report.
func report(v any) int {
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
