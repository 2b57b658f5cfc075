//go:build unix

package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockPollInterval is how often lockFile tries again while another process
// holds the lock.
const lockPollInterval = 10 * time.Millisecond

// lockFile takes an exclusive flock(2) on path (created 0644 if missing,
// and left in place) and returns the function that releases it. It tries
// again every lockPollInterval until it has the lock, wait has passed, or
// ctx is done: a holder that is stopped, or a file system that never
// answers, costs at most wait. The kernel releases the lock if the holder
// dies, so a crash never leaves it taken.
func lockFile(ctx context.Context, path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	giveUp := time.NewTimer(wait)
	defer giveUp.Stop()
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		poll := time.NewTimer(lockPollInterval)
		select {
		case <-poll.C:
		case <-giveUp.C:
			poll.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: still held by another process after %s", path, Duration(wait))
		case <-ctx.Done():
			poll.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		}
	}
}
