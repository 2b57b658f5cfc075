package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"retry/breaker"
)

// RedisBuild is the name of the build of retry that has the client for
// redis:// state; the default build hands runs that name Redis state to
// the program of this name in its own directory.
const RedisBuild = "retry-redis"

// handOffEarly hands a run whose breaker, run budget or learned timeout
// will keep its state in Redis to retry-redis, before it prints or
// starts anything, so that nothing is said or done twice. It does
// nothing when this build has a Redis client, when the state is not
// Redis, or when no store will be opened; when the hand-off fails, the
// run goes on and openStore says why in its warning.
func handOffEarly(deps Deps, o *Options, plan Plan) {
	b := &o.Breaker
	if deps.Redis != nil || deps.HandOff == nil || (b.Key == "" && b.RunBudget == 0 && plan.Learn == nil) {
		return
	}
	if breaker.IsRedis(stateSpec(b.State, deps.Env)) {
		_ = deps.HandOff() // returns only when it cannot
	}
}

// handedOffEnv marks the environment of a process started by a hand-off.
// A build without a Redis client that finds it there does not hand off
// again: the retry-redis beside it is not the Redis build (a copy of
// retry, or a link to it), and a second exec would only start it again.
const handedOffEnv = "RETRY_HANDED_OFF"

// redisHandOff returns the HandOff of SystemDeps, and takes handedOffEnv
// out of this process's environment so that no attempt sees it: a
// process started by a hand-off gets one that says what is wrong, any
// other the exec.
func redisHandOff() func() error {
	if os.Getenv(handedOffEnv) == "" {
		return handOffToRedisBuild
	}
	_ = os.Unsetenv(handedOffEnv)
	return func() error {
		return fmt.Errorf("the %s beside retry has no Redis client either: it is a copy of retry or a link to it, not the build with the client (docs/install.md)", RedisBuild)
	}
}

// handOffOnce makes handOff happen once: a later call returns the first
// one's error. It is not tried when a signal has already been caught (by
// a subcommand, which catches them before it opens the store): the exec
// would lose it, so the run ends with it here instead.
func handOffOnce(handOff func() error, caught func() syscall.Signal) func() error {
	if handOff == nil {
		return nil
	}
	var tried bool
	var err error
	return func() error {
		if !tried {
			tried = true
			if sig := caught(); sig != 0 {
				err = fmt.Errorf("not handed to %s: interrupted by %s", RedisBuild, unix.SignalName(sig))
			} else {
				err = handOff()
			}
		}
		return err
	}
}

// handOffToRedisBuild replaces this process with retry-redis from the
// directory this program's file is in (links resolved), with the same
// arguments and environment, marked with handedOffEnv: nothing has been
// read, printed or started yet. It returns only when it cannot.
func handOffToRedisBuild() error {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return fmt.Errorf("cannot find %s: %w", RedisBuild, err)
	}
	path := filepath.Join(filepath.Dir(self), RedisBuild)
	err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), append(os.Environ(), handedOffEnv+"=1"))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install %s beside %s (docs/install.md)", RedisBuild, self)
	}
	return fmt.Errorf("cannot start %s: %w", path, err)
}
