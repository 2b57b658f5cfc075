//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/exitcodes"
)

// runOnce starts c with Exec, waits, and returns how it ended and what it
// wrote to stdout.
func runOnce(t *testing.T, c Command) (exitcodes.Exit, string) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	require.NoError(t, err)
	defer out.Close()
	c.Stdout = out
	p, err := Exec{}.Start(context.Background(), c)
	require.NoError(t, err)
	exit := p.Wait(func() bool { return false }).Exit
	data, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	return exit, string(data)
}

func TestExecGivesTheLastValueOfAVariableSetTwice(t *testing.T) {
	t.Parallel()
	exit, out := runOnce(t, Command{Args: []string{"printenv", "SETTWICE"}, Env: []string{"PATH=" + os.Getenv("PATH"), "SETTWICE=inherited", "SETTWICE=from --env"}})
	assert.Equal(t, 0, exit.Code)
	assert.Equal(t, "from --env\n", out)
}

func TestExecReportsExitCodesAndSignals(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=" + os.Getenv("PATH")}
	exit, _ := runOnce(t, Command{Args: []string{"sh", "-c", "exit 7"}, Env: env})
	assert.Equal(t, exitcodes.Exit{Code: 7}, exit)
	exit, _ = runOnce(t, Command{Args: []string{"sh", "-c", "kill -TERM $$"}, Env: env})
	assert.Equal(t, exitcodes.Signaled(15), exit)
}

func TestExecGivesANilStreamDevNull(t *testing.T) {
	t.Parallel()
	exit, out := runOnce(t, Command{Args: []string{"sh", "-c", "cat; echo done; echo lost >&2"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
	assert.Equal(t, 0, exit.Code)
	assert.Equal(t, "done\n", out, "stdin read as empty")
}

func TestExecFailureReadsAsOsExecs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	require.NoError(t, os.WriteFile(script, []byte("#!/nonexistent/interpreter\n"), 0o755))
	_, err := Exec{}.Start(context.Background(), Command{Args: []string{script}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind)
	assert.EqualError(t, se.Err, "fork/exec "+script+": no such file or directory")
}
