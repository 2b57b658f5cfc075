//go:build unix

package runner

import (
	"context"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"retry/exitcodes"
	"retry/policy"
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

// A directory named as the command is there but cannot be run: 126, as
// bash exits for `bash -c /tmp`; it was 127, as for a missing program.
func TestADirectoryAsTheCommandCannotBeExecuted(t *testing.T) {
	t.Parallel()
	_, err := Exec{}.Start(context.Background(), Command{Args: []string{t.TempDir()}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind)
	assert.ErrorIs(t, se.Err, syscall.EISDIR)
}

func TestExecFailureReadsAsOsExecs(t *testing.T) {
	dir := t.TempDir()
	script := writeExecutable(t, dir, "script", "#!/nonexistent/interpreter\n")
	t.Parallel()
	_, err := Exec{}.Start(context.Background(), Command{Args: []string{script}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind)
	assert.EqualError(t, se.Err, "fork/exec "+script+": no such file or directory")
}

// writeExecutable writes an executable file named name in dir and returns
// its path. Call it before t.Parallel: a process forked by a parallel test
// while the file is open for writing would hold it open, and starting the
// file would fail with ETXTBSY.
func writeExecutable(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o755))
	return p
}

// fdFlags runs a shell that prints the open flags of its descriptor fd
// (from /proc/self/fdinfo) when started with nil streams but stdout.
func fdFlags(t *testing.T, fd string) string {
	t.Helper()
	exit, out := runOnce(t, Command{Args: []string{"sh", "-c", `readlink /proc/self/fd/` + fd + ` && grep ^flags: /proc/self/fdinfo/` + fd},
		Env: []string{"PATH=" + os.Getenv("PATH")}})
	require.Equal(t, 0, exit.Code)
	lines := strings.Fields(out)
	require.Len(t, lines, 3, out)
	assert.Equal(t, os.DevNull, lines[0])
	return lines[2]
}

func TestExecOpensDevNullForANilStreamReadOnlyForStdinWriteOnlyForOutput(t *testing.T) {
	if _, err := os.Stat("/proc/self/fdinfo"); err != nil {
		t.Skip("no /proc/self/fdinfo")
	}
	t.Parallel()
	// The access mode is the flags' last octal digit: 0 read-only, 1
	// write-only, as os/exec opens it.
	assert.True(t, strings.HasSuffix(fdFlags(t, "0"), "0"), "stdin read-only")
	assert.True(t, strings.HasSuffix(fdFlags(t, "2"), "1"), "stderr write-only")
}

func TestExecHandsAPipeOverInBlockingMode(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe() // the runtime polls them, in non-blocking mode
	require.NoError(t, err)
	defer r.Close()
	// More than a pipe holds: in non-blocking mode, the write would fail
	// once the pipe is full.
	const size = 1 << 20
	p, err := Exec{}.Start(context.Background(), Command{Args: []string{"head", "-c", strconv.Itoa(size), "/dev/zero"},
		Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: w})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	ended := make(chan exitcodes.Exit, 1)
	go func() { ended <- p.Wait(func() bool { return false }).Exit }()
	data, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Len(t, data, size)
	assert.Equal(t, exitcodes.Exit{Code: 0}, <-ended)
}

// startsAsOsExec starts c with Exec and the same program with os/exec
// (as Exec started it before it used syscall.ForkExec) and checks that
// both fail alike.
func startsAsOsExec(t *testing.T, c Command, want exitcodes.Start) {
	t.Helper()
	path, err := lookPath(c.Args[0], c.Env, c.Dir)
	require.NoError(t, err)
	cmd := &exec.Cmd{Path: path, Args: c.Args, Env: c.Env, Dir: c.Dir, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	osExecErr := cmd.Start()
	require.Error(t, osExecErr)

	_, err = Exec{}.Start(context.Background(), c)
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, want, se.Kind)
	assert.EqualError(t, se.Err, osExecErr.Error())
}

func TestExecFailsAsOsExecDid(t *testing.T) {
	dir := t.TempDir()
	notExecutable := writeExecutable(t, dir, "plain", "#!/bin/sh\n")
	noExec := filepath.Join(dir, "noexec")
	require.NoError(t, os.WriteFile(noExec, nil, 0o644))
	missing := writeExecutable(t, dir, "missing", "#!/nonexistent/sh\n")
	dirInterp := writeExecutable(t, dir, "dir", "#!"+dir+"\n")
	noExecInterp := writeExecutable(t, dir, "noexec-interp", "#!"+noExec+"\n")
	garbage := writeExecutable(t, dir, "garbage", "\x7fELF but not really")
	t.Parallel()
	env := []string{"PATH=" + os.Getenv("PATH")}
	t.Run("a working directory that is missing", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{"true"}, Env: env, Dir: filepath.Join(dir, "gone")}, exitcodes.ProgramNotExecutable)
	})
	t.Run("a working directory that is a file", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{"true"}, Env: env, Dir: notExecutable}, exitcodes.StartFailed)
	})
	t.Run("a missing interpreter", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{missing}, Env: env}, exitcodes.ProgramNotExecutable)
	})
	t.Run("an interpreter that is a directory", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{dirInterp}, Env: env}, exitcodes.ProgramNotExecutable)
	})
	t.Run("an interpreter that is not executable", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{noExecInterp}, Env: env}, exitcodes.ProgramNotExecutable)
	})
	t.Run("a file that is no program", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{garbage}, Env: env}, exitcodes.ProgramNotExecutable)
	})
	t.Run("a variable holding a NUL", func(t *testing.T) {
		startsAsOsExec(t, Command{Args: []string{"true"}, Env: append(env, "BAD=a\x00b")}, exitcodes.StartFailed)
	})
}

func TestAProgramThatCannotRunEndsWithTheShellsCode(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644))
	noInterpreter := writeExecutable(t, dir, "script", "#!/nonexistent/interpreter\n")
	t.Parallel()
	for _, args := range [][]string{{plain}, {noInterpreter}, {"true-" + strconv.Itoa(os.Getpid()) + "-missing"}} {
		exit, err := RunOnce(context.Background(), Config{Env: []string{"PATH=" + os.Getenv("PATH")}}, args)
		require.Error(t, err)
		want := 126
		if !strings.Contains(args[0], "/") {
			want = 127
		}
		assert.Equal(t, want, exit.Code, args[0])
	}
}

func TestAScriptWithoutAnInterpreterLineRunsUnderShAsExecvpRunsIt(t *testing.T) {
	dir := t.TempDir()
	script := writeExecutable(t, dir, "deploy", "echo \"$0 got $# args: $*\" > \"${0%/*}/said\"\nexit 3\n")
	t.Parallel()
	exit, err := RunOnce(context.Background(), Config{Env: []string{"PATH=" + dir}}, []string{"deploy", "a b", "c"})
	require.NoError(t, err, "run as env, timeout and the shells run it")
	assert.Equal(t, 3, exit.Code, "the script's own status")
	said, err := os.ReadFile(filepath.Join(dir, "said"))
	require.NoError(t, err)
	assert.Equal(t, script+" got 2 args: a b c\n", string(said), "$0 is the script's path, the arguments are the command's")
}

func TestAFileWithANulOnItsFirstLineStaysNotExecutable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for name, content := range map[string]string{
		"binary":      "\x01\x00\x02 a program for another machine\n",
		"elf":         "\x7fELF\x02\x01\x01",
		"interpreted": "#!\nrun\x00",
	} {
		files[name] = writeExecutable(t, dir, name, content)
	}
	t.Parallel()
	for name, p := range files {
		_, err := Exec{}.Start(context.Background(), Command{Args: []string{p}})
		var se *StartError
		require.ErrorAs(t, err, &se, name)
		assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind, name)
		assert.ErrorIs(t, err, syscall.ENOEXEC, name)
	}
}

func TestAScriptWithoutAShellToRunItKeepsItsOwnError(t *testing.T) {
	script := writeExecutable(t, t.TempDir(), "deploy", "exit 0\n")
	t.Parallel()
	own := &os.PathError{Op: "fork/exec", Path: script, Err: syscall.ENOEXEC}
	_, err := runScript(filepath.Join(t.TempDir(), "no-sh"), script, Command{Args: []string{script}}, &syscall.SysProcAttr{}, own)
	assert.Same(t, own, err, "the file's own error, not one naming a shell the user never gave")
}

// The stop signal reaches an attempt that stopped itself at once: SIGCONT
// follows it, as timeout(1) sends. Before, the attempt stayed stopped
// until SIGKILL a whole grace period later.
func TestATimeoutEndsAStoppedAttemptWithItsSignal(t *testing.T) {
	t.Parallel()
	p := policy.Default()
	p.Attempts = 1
	start := time.Now()
	res := Run(context.Background(), Config{
		Args:      []string{"sh", "-c", "kill -STOP $$; exit 0"},
		Policy:    p,
		Rand:      rand.New(rand.NewPCG(1, 1)),
		Timeout:   100 * time.Millisecond,
		Signal:    syscall.SIGTERM,
		KillAfter: time.Minute,
	})
	require.Len(t, res.Attempts, 1)
	assert.True(t, res.Last().Exit.TimedOut)
	assert.Equal(t, syscall.SIGTERM, res.Last().Exit.Signal, "the stop signal ended it, not SIGKILL after the grace")
	assert.Less(t, time.Since(start), 30*time.Second)
}

func TestARelativeProgramIsFoundFromTheDirectoryTheCommandRunsIn(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	writeExecutable(t, filepath.Join(dir, "sub"), "deploy", "#!/bin/sh\nexit 4\n")
	writeExecutable(t, filepath.Join(dir, "sub"), "plain", "exit 5\n")
	writeExecutable(t, dir, "plain", "\x01\x00 not a script\n")
	t.Parallel()
	for program, want := range map[string]int{"./deploy": 4, "./plain": 5} {
		exit, err := RunOnce(context.Background(), Config{Dir: filepath.Join(dir, "sub"), Env: []string{"PATH=/usr/bin:/bin"}}, []string{program})
		require.NoError(t, err, "%s is in the command's directory, as a shell in it finds it", program)
		assert.Equal(t, want, exit.Code, program)
	}
}

func TestAScriptNamingAnInterpreterTheSystemCannotUseIsNotRunBySh(t *testing.T) {
	long := "#!/" + strings.Repeat("v", 300) + "/bin/python3\nimport sys\n"
	script := writeExecutable(t, t.TempDir(), "tool", long)
	t.Parallel()
	_, err := Exec{}.Start(context.Background(), Command{Args: []string{script}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind)
	assert.ErrorIs(t, err, syscall.ENOEXEC, "the #! line names python, not sh")
}

func TestAnUnreadableScriptWithoutAnInterpreterSaysSo(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	script := filepath.Join(t.TempDir(), "deploy")
	require.NoError(t, os.WriteFile(script, []byte("exit 0\n"), 0o111))
	t.Parallel()
	_, err := Exec{}.Start(context.Background(), Command{Args: []string{script}})
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, exitcodes.ProgramNotExecutable, se.Kind)
	assert.ErrorIs(t, err, fs.ErrPermission, "sh must read it, and cannot: not an exec format error")
}

func TestAScriptThatCannotBeReadGivesTheReadError(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "gone")
	own := &os.PathError{Op: "fork/exec", Path: missing, Err: syscall.ENOEXEC}
	_, err := runScript(bourneShell, missing, Command{Args: []string{missing}}, &syscall.SysProcAttr{}, own)
	assert.ErrorIs(t, err, fs.ErrNotExist, "why sh could not read it, not the kernel's exec format error")
	assert.NotErrorIs(t, err, syscall.ENOEXEC)
}
