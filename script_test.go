package main

// The end-to-end stories as testscript scripts, as age and shfmt keep
// theirs: each testdata/script/*.txtar file is a story (flags and files
// in, an exit status and lines out) with the files it needs inline. In a
// script, `exec retry` runs this test binary re-executed as retry's own
// main (testscript.Main), so a script runs exactly what main.go runs.
//
// The condition [redis] holds where redis-server is installed; with
// RETRY_REQUIRE_REDIS set, its absence fails the script instead. [root]
// holds when the tests run as root.
//
// Files under bin/ in a script are executable and first on PATH.
//
// Commands beyond testscript's own (see scriptCommands):
//
//	exits N program [args...]   run program; its exit status must be N
//	                             (128+n when signal n killed it)
//	elapsed [< D] [> D]          bound the time the last `exits` took
//	json [-lines] file           file (or stdout, stderr) is one JSON value,
//	                             or with -lines one on each line
//	lines N                      stderr is N lines, each starting `retry: `
//	redis                        start a throwaway redis-server on loopback,
//	                             its URL in $REDIS, stopped at the end
//	waitfile [-timeout D] path   wait until path exists (at most D, or a
//	                             limit only a hang reaches)
//	waitline [-timeout D] path regexp
//	                             wait until path holds a line matching regexp
//
// go test -run TestScripts -update rewrites a script's inline file when
// a `cmp stdout|stderr|file inline-file` in it fails.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"retry/cmd"
	"retry/internal/redisbuild"
	"retry/internal/testbin"
)

var updateScripts = flag.Bool("update", false, "rewrite the expected output inline in testdata/script/*.txtar")

// TestMain either is retry (a script's `exec retry` re-executes this
// binary under that name) or runs the tests, after building the binaries
// the Go end-to-end tests start. A script's retry is the build with the
// Redis client, as retry-redis is (cmd/retry-redis): it runs redis://
// state itself, where the default build would hand the run to a
// retry-redis beside this test binary, which has none. The hand-off
// itself is tested with the real binaries (e2e_redisbuild_test.go).
func TestMain(m *testing.M) {
	testscript.Main(builtRetry{m}, map[string]func(){"retry": retryWithRedis})
}

// retryWithRedis is cmd/retry-redis's main.
func retryWithRedis() {
	os.Exit(cmd.Main(context.Background(), os.Args[1:], redisbuild.Deps()))
}

// builtRetry runs the tests with retryBin built.
type builtRetry struct{ m *testing.M }

func (b builtRetry) Run() int { return testbin.Run(&retryBin, b.m.Run) }

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		Setup:               setupScript,
		Cmds:                scriptCommands(),
		Condition:           scriptCondition,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *updateScripts,
	})
}

// lastRun is what the script's last `exits` saw.
type lastRun struct {
	ran     bool
	elapsed time.Duration
}

type lastRunKey struct{}

// setupScript gives each script a home of its own (the default state and
// config directories live there), a shell for --shell, and, under the race
// detector, no second of waiting at each retry's exit. Files a script
// puts under bin/ are executable and found first on PATH: the fake tools
// of a story.
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("SHELL", "/bin/sh")
	if os.Getenv("GORACE") == "" {
		env.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	bin := filepath.Join(env.WorkDir, "bin")
	tools, err := os.ReadDir(bin)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, tool := range tools {
		if err := os.Chmod(filepath.Join(bin, tool.Name()), 0o755); err != nil {
			return err
		}
	}
	if len(tools) > 0 {
		env.Setenv("PATH", bin+string(filepath.ListSeparator)+env.Getenv("PATH"))
	}
	env.Values[lastRunKey{}] = &lastRun{}
	return nil
}

func scriptCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":    cmdExits,
		"json":     cmdJSON,
		"elapsed":  cmdElapsed,
		"lines":    cmdLines,
		"redis":    cmdRedis,
		"waitfile": cmdWaitfile,
		"waitline": cmdWaitline,
	}
}

// scriptCondition answers the conditions testscript does not know:
// [redis] and [root].
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	case "redis":
		if _, err := exec.LookPath("redis-server"); err != nil {
			if os.Getenv("RETRY_REQUIRE_REDIS") != "" {
				return false, fmt.Errorf("redis-server not found and RETRY_REQUIRE_REDIS is set: %w", err)
			}
			return false, nil
		}
		return true, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdRedis starts a throwaway redis-server on a free loopback port, its
// data in $WORK/redis, sets $REDIS to its URL and waits until it answers.
func cmdRedis(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: redis")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := l.Addr().String()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	ts.Check(l.Close())
	dir := ts.MkAbs("redis")
	ts.Check(os.MkdirAll(dir, 0o700))
	server := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", dir, "--logfile", filepath.Join(dir, "log"))
	ts.Check(server.Start())
	ts.Defer(func() { _ = server.Process.Kill(); _ = server.Wait() })
	await(ts, "redis-server on "+addr, eventLimit, func() bool {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write([]byte("PING\r\n")); err != nil {
			return false
		}
		reply := make([]byte, 7)
		n, _ := io.ReadFull(conn, reply)
		return string(reply[:n]) == "+PONG\r\n"
	})
	ts.Setenv("REDIS", "redis://"+addr+"/0")
}

// cmdExits runs a program like exec and checks its exact exit status.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: status %q is not a number", args[0])
	}
	start := time.Now()
	err = ts.Exec(args[1], args[2:]...)
	run := ts.Value(lastRunKey{}).(*lastRun)
	run.ran, run.elapsed = true, time.Since(start)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			got = 128 + int(ws.Signal())
		}
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	ts.Logf("[exit status %d after %v]", got, run.elapsed.Round(time.Millisecond))
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdElapsed bounds the time the last `exits` took: `elapsed < 2s`,
// `elapsed > 300ms`, or both.
func cmdElapsed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 || len(args)%2 != 0 {
		ts.Fatalf("usage: elapsed [< duration] [> duration]")
	}
	run := ts.Value(lastRunKey{}).(*lastRun)
	if !run.ran {
		ts.Fatalf("elapsed: no `exits` ran before")
	}
	for i := 0; i < len(args); i += 2 {
		bound, err := time.ParseDuration(args[i+1])
		ts.Check(err)
		switch args[i] {
		case "<":
			if run.elapsed >= bound {
				ts.Fatalf("took %v, want less than %v", run.elapsed, bound)
			}
		case ">":
			if run.elapsed <= bound {
				ts.Fatalf("took %v, want more than %v", run.elapsed, bound)
			}
		default:
			ts.Fatalf("usage: elapsed [< duration] [> duration]")
		}
	}
}

// cmdJSON checks that a file (or stdout or stderr) is valid JSON: one
// value, or with -lines one value on each line, as a JSON log is.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	perLine := len(args) == 2 && args[0] == "-lines"
	if neg || len(args) != 1 && !perLine {
		ts.Fatalf("usage: json [-lines] file")
	}
	data := ts.ReadFile(args[len(args)-1])
	docs := []string{data}
	if perLine {
		docs = strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	}
	for _, doc := range docs {
		if !json.Valid([]byte(doc)) {
			ts.Fatalf("%s: not JSON: %q", args[len(args)-1], doc)
		}
	}
}

// cmdLines checks that stderr is exactly n lines, each starting with
// retry's prefix: nothing but retry's own lines.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lines N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	stderr := ts.ReadFile("stderr")
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l == "" && stderr == "" {
			continue
		}
		if !strings.HasPrefix(l, "retry: ") {
			ts.Fatalf("stderr line without the retry: prefix: %q", l)
		}
		got = append(got, l)
	}
	if len(got) != want {
		ts.Fatalf("stderr has %d lines, want %d", len(got), want)
	}
}

// waitLimit takes the -timeout D that may open the arguments of waitfile
// and waitline: how long the event may take, eventLimit when not given.
func waitLimit(ts *testscript.TestScript, args []string) (time.Duration, []string) {
	if len(args) < 2 || args[0] != "-timeout" {
		return eventLimit, args
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	return d, args[2:]
}

// cmdWaitfile waits until a file exists.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	limit, args := waitLimit(ts, args)
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile [-timeout duration] path")
	}
	path := ts.MkAbs(args[0])
	await(ts, "waitfile "+args[0], limit, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// cmdWaitline waits until a file holds a line matching a regular
// expression.
func cmdWaitline(ts *testscript.TestScript, neg bool, args []string) {
	limit, args := waitLimit(ts, args)
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitline [-timeout duration] path regexp")
	}
	path := ts.MkAbs(args[0])
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	await(ts, fmt.Sprintf("waitline %s %q", args[0], args[1]), limit, func() bool {
		data, err := os.ReadFile(path)
		return err == nil && re.Match(data)
	})
}

// await polls cond until it holds, at most limit.
func await(ts *testscript.TestScript, what string, limit time.Duration, cond func() bool) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout.C:
			ts.Fatalf("%s: nothing within %v", what, limit)
		}
	}
}
