package runner

import (
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes retry the reaper of its orphaned descendants (Linux's
// child subreaper), so grandchildren whose parent exited are still ours to
// wait for and to clear away when their attempt ends. While a Run is under
// way, adopted orphans that exit are reaped (see reapOrphans), as
// an init process would: retry is often PID 1 in a container.
//
// A process that calls it must not start children of its own with Setsid
// or Setpgid while a Run is under way: when they exit, the Run may reap
// them before their own Wait can.
func AdoptOrphans() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// reaperDelay is how long a run goes before it starts reaping adopted
// orphans as they exit. Most runs are over sooner and never pay for the
// set-up (a signal handler, a goroutine, and the wait for the signal
// machinery to go idle when it stops); an orphan that exits earlier is a
// zombie for at most this long, and the first sweep reaps it.
const reaperDelay = 50 * time.Millisecond

// reapOrphans reaps, from reaperDelay on until the returned function is
// called (and once more then), every adopted orphan that exits: a zombie
// child of ours that is not one we started (ours reports those by pid)
// and not the leader of a process group in our session. The processes we
// start (attempts, hooks, fallbacks) lead their own process group in our
// session, and a group leader cannot call setsid, so they are never taken
// from their own Wait, even before ours knows them. Without it, an orphan
// that exited would stay a zombie until its attempt ended, or, if it had
// left the attempt's group, until retry exited. It does nothing unless we
// are a subreaper.
func reapOrphans(ours func(pid int) bool) (stop func()) {
	var on int
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0); err != nil || on == 0 {
		return func() {}
	}
	var mu sync.Mutex
	stopped := false
	var stopReaping func()
	later := time.AfterFunc(reaperDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopReaping = startReaping(ours)
		}
	})
	return func() {
		later.Stop()
		mu.Lock()
		stopped = true
		s := stopReaping
		mu.Unlock()
		if s != nil {
			s()
		}
		reapZombies(ours)
	}
}

// startReaping reaps every adopted orphan that exits from now until the
// returned function is called, and those that already have.
func startReaping(ours func(pid int) bool) (stop func()) {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		reapZombies(ours) // those that exited before we listened
		for {
			select {
			case <-chld:
				reapZombies(ours)
			case <-quit:
				return
			}
		}
	}()
	return func() {
		signal.Stop(chld)
		close(quit)
		<-done
	}
}

// reapZombies reaps our zombie children that are neither ours nor
// process group leaders in our session.
func reapZombies(ours func(pid int) bool) {
	if !anyZombie() {
		return // the usual case: no child has exited but those already waited for
	}
	self := os.Getpid()
	sid, err := unix.Getsid(0)
	if err != nil {
		return
	}
	for _, pid := range children(self) {
		if ours(pid) {
			continue // one we started: its Wait reaps it
		}
		st, ok := statOf(pid)
		if !ok || st.ppid != self || st.state != 'Z' {
			continue
		}
		if st.pgrp == pid && st.session == sid {
			continue // one we started that ours does not know yet
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// anyZombie reports whether a child of ours has exited and not been reaped
// (or whether it cannot tell): one waitid that reaps nothing, where a
// sweep reads a file per thread and per child.
func anyZombie() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	switch {
	case err == unix.ECHILD:
		return false // no children at all
	case err != nil:
		return true
	}
	return info.Signo != 0 // SIGCHLD for the zombie it found; left zero when there is none
}

// children lists our child processes from /proc/self/task/*/children (a
// handful of small files, where scanning all of /proc would read one per
// process on the machine on every SIGCHLD), or every process when the
// kernel does not offer those files.
func children(self int) []int {
	tasks, err := os.ReadDir("/proc/self/task")
	var pids []int
	listed := false
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		listed = true
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if err == nil && listed {
		return pids
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// groupSize counts the running processes (zombies aside) of process group
// pgid, reading /proc; -1 when /proc cannot be read.
func groupSize(pgid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := statOf(pid); ok && st.pgrp == pgid && st.state != 'Z' {
			n++
		}
	}
	return n
}

// procStat is the part of /proc/PID/stat that reapZombies needs.
type procStat struct {
	state               byte
	ppid, pgrp, session int
}

// statOf reads /proc/PID/stat; false when the process is gone or the file
// cannot be read.
func statOf(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold anything
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	var errs [3]error
	st.state = f[0][0]
	st.ppid, errs[0] = strconv.Atoi(f[1])
	st.pgrp, errs[1] = strconv.Atoi(f[2])
	st.session, errs[2] = strconv.Atoi(f[3])
	for _, err := range errs {
		if err != nil {
			return procStat{}, false
		}
	}
	return st, true
}
