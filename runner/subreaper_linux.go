package runner

import "golang.org/x/sys/unix"

// AdoptOrphans makes retry the reaper of its orphaned descendants (Linux's
// child subreaper), so grandchildren whose parent exited are still ours to
// wait for and to clear away when their attempt ends.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
