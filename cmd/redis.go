package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

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

// handOffToRedisBuild replaces this process with retry-redis from the
// directory this program was started from, with the same arguments and
// environment: nothing has been read, printed or started yet, and no
// signal is caught yet (one caught would be lost with this process).
// It returns only when it cannot.
func handOffToRedisBuild() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find %s: %w", RedisBuild, err)
	}
	path := filepath.Join(filepath.Dir(self), RedisBuild)
	err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("install %s beside %s (docs/install.md)", RedisBuild, self)
	}
	return fmt.Errorf("cannot start %s: %w", path, err)
}
