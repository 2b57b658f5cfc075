//go:build !linux

package runner

// AdoptOrphans does nothing where the system has no child subreaper:
// orphaned grandchildren are reaped by init, and retry still signals the
// attempt's process group to stop them.
func AdoptOrphans() error { return nil }

// reapOrphans does nothing: orphans are never ours to reap here.
func reapOrphans(func(pid int) bool) (stop func()) { return func() {} }

// groupSize cannot count the members of a process group here: -1.
func groupSize(int) int { return -1 }
