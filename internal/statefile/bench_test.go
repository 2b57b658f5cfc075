package statefile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkContendedUpdate measures what issue 17 asked: N processes that
// each update one shared file a few times, all at once, as a burst of cron
// jobs updates a breaker record or a metrics file. Each update takes the
// lock, reads the file, adds one and replaces it. It compares the ways the
// breaker and the metrics file used to do it with each other:
//
//   - wait=block: a flock blocking in a goroutine (what Lock does);
//     wait=poll: a non-blocking flock tried every 10 ms (what the metrics
//     file did);
//   - sync=file: the new file synced before the rename (what Replace does);
//     sync=dir: the directory synced after it as well (what the metrics and
//     report files did).
//
// Reported per update: hold-ms (lock taken to lock released: read, write,
// syncs), p50-ms and p99-ms (asking for the lock to releasing it), and per
// burst: burst-ms (first lock asked for to last released) and cpu-ms (all
// the processes' CPU time, their start included). Run it with
//
//	go test -run '^$' -bench ContendedUpdate -benchtime 3x ./internal/statefile/
func BenchmarkContendedUpdate(b *testing.B) {
	const updates = 5
	for _, wait := range []string{"block", "poll"} {
		for _, sync := range []string{"file", "dir"} {
			for _, procs := range []int{1, 16, 200} {
				b.Run(fmt.Sprintf("wait=%s/sync=%s/procs=%d", wait, sync, procs), func(b *testing.B) {
					var all burstReport
					for b.Loop() {
						all.add(burst(b, procs, helperArgs{Updates: updates, Poll: wait == "poll", SyncDir: sync == "dir"}))
					}
					all.report(b)
				})
			}
		}
	}
}

// helperEnv switches the test binary into a helper process that runs the
// updates described in helperEnv's value (JSON helperArgs) once its stdin
// is closed, and writes a helperReport to stdout.
const helperEnv = "STATEFILE_TEST_HELPER"

type helperArgs struct {
	Path    string
	Updates int
	Poll    bool
	SyncDir bool
}

type helperReport struct {
	Waits, Holds []time.Duration
	First, Last  int64 // Unix nanoseconds: first lock asked for, last released
}

func TestMain(m *testing.M) {
	if args := os.Getenv(helperEnv); args != "" {
		os.Exit(runHelper(args))
	}
	if path := os.Getenv(crashEnv); path != "" {
		os.Exit(runCrashWriter(path))
	}
	os.Exit(m.Run())
}

func runHelper(args string) int {
	var a helperArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, _ = os.Stdin.Read(make([]byte, 1))
	var r helperReport
	for range a.Updates {
		asked := time.Now()
		if r.First == 0 {
			r.First = asked.UnixNano()
		}
		wait, hold, err := update(a, asked)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		r.Waits = append(r.Waits, wait)
		r.Holds = append(r.Holds, hold)
		r.Last = asked.Add(wait + hold).UnixNano()
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

// update adds one to the counter in a.Path under its lock.
func update(a helperArgs, asked time.Time) (wait, hold time.Duration, err error) {
	lock := Lock
	if a.Poll {
		lock = pollLock
	}
	unlock, err := lock(context.Background(), a.Path+".lock", 0o600, time.Minute)
	if err != nil {
		return 0, 0, err
	}
	taken := time.Now()
	data, err := os.ReadFile(a.Path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = []byte("0"), nil
	}
	n, perr := strconv.Atoi(string(data))
	if err == nil && perr != nil {
		err = perr
	}
	if err == nil {
		err = replaceSynced(a.Path, []byte(strconv.Itoa(n+1)), a.SyncDir)
	}
	unlock()
	return taken.Sub(asked), time.Since(taken), err
}

// replaceSynced is Replace, syncing the directory too if syncDir is set.
func replaceSynced(path string, data []byte, syncDir bool) error {
	dir, base := filepath.Split(path)
	tmp := filepath.Join(dir, "."+base+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	return finish(f, path, data, 0o600, syncDir)
}

// pollLock is how the metrics file used to wait for its lock: a
// non-blocking flock tried again every 10 ms.
func pollLock(ctx context.Context, path string, perm fs.FileMode, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, perm)
	if err != nil {
		return nil, err
	}
	giveUp := time.NewTimer(wait)
	defer giveUp.Stop()
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, err
		}
		poll := time.NewTimer(10 * time.Millisecond)
		select {
		case <-poll.C:
		case <-giveUp.C:
			_ = f.Close()
			return nil, &BusyError{Path: path, Wait: wait}
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		}
	}
}

// burstReport gathers the helpers' reports of one or more bursts.
type burstReport struct {
	waits, holds, latencies []time.Duration
	bursts, cpu             time.Duration
	n                       int
}

func (r *burstReport) add(o burstReport) {
	r.waits = append(r.waits, o.waits...)
	r.holds = append(r.holds, o.holds...)
	r.latencies = append(r.latencies, o.latencies...)
	r.bursts += o.bursts
	r.cpu += o.cpu
	r.n += o.n
}

func (r *burstReport) report(b *testing.B) {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	q := func(ds []time.Duration, p float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[int(p*float64(len(s)-1))]
	}
	b.ReportMetric(ms(q(r.holds, 0.5)), "hold-ms")
	b.ReportMetric(ms(q(r.latencies, 0.5)), "p50-ms")
	b.ReportMetric(ms(q(r.latencies, 0.99)), "p99-ms")
	b.ReportMetric(ms(r.bursts)/float64(r.n), "burst-ms")
	b.ReportMetric(ms(r.cpu)/float64(r.n), "cpu-ms")
	b.ReportMetric(0, "ns/op")
}

// burst starts procs helpers on one file, lets them go at once, and checks
// that no update was lost.
func burst(b *testing.B, procs int, a helperArgs) burstReport {
	b.StopTimer()
	defer b.StartTimer()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	a.Path = filepath.Join(b.TempDir(), "counter")
	args, err := json.Marshal(a)
	if err != nil {
		b.Fatal(err)
	}
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	gates := make([]func() error, procs)
	for i := range cmds {
		cmds[i] = exec.Command(exe, "-test.run=^$", "-test.bench=^$")
		cmds[i].Env = append(os.Environ(), helperEnv+"="+string(args))
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], os.Stderr
		w, err := cmds[i].StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		gates[i] = w.Close
		if err := cmds[i].Start(); err != nil {
			b.Fatal(err)
		}
	}
	for _, open := range gates {
		_ = open()
	}
	var r burstReport
	first, last := int64(1<<63-1), int64(0)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			b.Fatalf("helper %d: %v", i, err)
		}
		r.cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		var h helperReport
		if err := json.Unmarshal(outs[i].Bytes(), &h); err != nil {
			b.Fatalf("helper %d: %v", i, err)
		}
		r.waits = append(r.waits, h.Waits...)
		r.holds = append(r.holds, h.Holds...)
		for j := range h.Waits {
			r.latencies = append(r.latencies, h.Waits[j]+h.Holds[j])
		}
		first, last = min(first, h.First), max(last, h.Last)
	}
	r.bursts, r.n = time.Duration(last-first), 1
	data, err := os.ReadFile(a.Path)
	if err != nil || string(data) != strconv.Itoa(procs*a.Updates) {
		b.Fatalf("counter %q (%v), want %d: an update was lost", data, err, procs*a.Updates)
	}
	return r
}

// BenchmarkUncontendedUpdate is one update by one process, as in
// BenchmarkContendedUpdate: the time the lock is held, plus taking it.
//
//	go test -run '^$' -bench UncontendedUpdate ./internal/statefile/
func BenchmarkUncontendedUpdate(b *testing.B) {
	for _, sync := range []string{"file", "dir"} {
		b.Run("sync="+sync, func(b *testing.B) {
			a := helperArgs{Path: filepath.Join(b.TempDir(), "counter"), SyncDir: sync == "dir"}
			for b.Loop() {
				if _, _, err := update(a, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
