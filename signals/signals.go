// Package signals turns the signals retry receives into cancellation of the
// run and forwards them to the running attempt's process group.
//
// The first SIGINT, SIGTERM, SIGHUP or SIGQUIT cancels the context returned
// by Listen (so a wait ends at once and no attempt starts afterwards) and is
// forwarded to the attached attempt. A second SIGINT or SIGTERM kills the
// attempt's process group; a repeated SIGHUP or SIGQUIT is forwarded again.
// The same signal again within sameInstant is the first one delivered
// twice, not a second: timeout(1) signals both its child and its own
// process group, so retry run under it receives each signal twice.
// The first signal is remembered for the 128+n exit code.
//
// A SIGHUP or SIGINT that retry was started with ignored stays ignored, as
// a shell leaves it: `nohup retry ...` keeps ignoring SIGHUP, and a
// script's background `retry ... &` keeps ignoring SIGINT, for retry and its
// attempts alike. SIGTERM and SIGQUIT are caught whatever the process
// inherits (the Go runtime handles SIGQUIT in any case), so attempts get
// them at their defaults.
package signals

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"
)

// sameInstant is how soon the same signal again counts as the first one
// delivered twice: far less than a person takes to press Ctrl-C again,
// far more than the microseconds between timeout(1)'s two kills.
const sameInstant = 100 * time.Millisecond

// passDelay is how long the first attempt runs before the PassedOn signals
// are caught; one sent sooner is dropped, as Go's runtime drops it.
const passDelay = 50 * time.Millisecond

// Handled returns the signals that retry catches and forwards.
func Handled() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}

// Catchable returns the handled signals that this process was not started
// with ignored: what Listen should catch. Call it before the first Listen,
// which changes what counts as ignored.
func Catchable() []os.Signal {
	return slices.DeleteFunc(Handled(), signal.Ignored)
}

// PassedOn returns the signals that retry forwards to the running attempt
// (from passDelay into the first one on) without stopping anything:
// SIGUSR1 and SIGUSR2, which programs take to reopen their logs or report
// progress (dd, nginx, gunicorn), and which a container's entrypoint must
// pass on (docker kill --signal USR1). Go's runtime would otherwise catch
// them and do nothing.
func PassedOn() []os.Signal {
	return []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2}
}

// Target is what a signal is forwarded to: in practice the process group
// of the running attempt.
type Target interface {
	Signal(sig syscall.Signal) error
}

// Relay receives signals and forwards them to the attached Target.
type Relay struct {
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}

	sigs []os.Signal // the signals caught

	// pass are the signals to pass on (see PassOn), caught passDelay after
	// the first Attach (passTimer, set then); passCh receives them until
	// Stop (passStopped).
	pass        []os.Signal
	passTimer   *time.Timer
	passCh      chan os.Signal
	passStopped bool

	mu       sync.Mutex
	first    syscall.Signal
	received int
	kill     bool // a second SIGINT or SIGTERM asked for SIGKILL
	target   Target
	// last is the last signal handled and when; now is the clock.
	last   syscall.Signal
	lastAt time.Time
	now    func() time.Time
}

// Listen starts catching sigs, nil meaning all the handled signals (pass
// Catchable() to leave alone those the process was started with ignored),
// and returns once they are caught. The returned context is cancelled by
// the first of them. Call Stop when the run is over. Catching a signal
// takes a round trip to the runtime's signal thread, some 0.2-0.5 ms for
// these four on a small machine.
func Listen(parent context.Context, sigs []os.Signal) (context.Context, *Relay) {
	if sigs == nil {
		sigs = Handled()
	}
	ctx, cancel := context.WithCancel(parent)
	r := &Relay{
		sigs:   sigs,
		cancel: cancel,
		ch:     make(chan os.Signal, 8),
		done:   make(chan struct{}),
		now:    time.Now,
	}
	signal.Notify(r.ch, r.sigs...)
	go r.loop()
	return ctx, r
}

func (r *Relay) loop() {
	defer close(r.done)
	for s := range r.ch {
		if sig, ok := s.(syscall.Signal); ok {
			r.Deliver(sig)
		}
	}
}

// Deliver handles sig as if it had been received from the system.
func (r *Relay) Deliver(sig syscall.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.received > 0 && sig == r.last && now.Sub(r.lastAt) < sameInstant {
		return // the same signal delivered twice: already handled
	}
	r.last, r.lastAt = sig, now
	r.received++
	if r.received == 1 {
		r.first = sig
		r.cancel()
	}
	send := sig
	if r.received > 1 && (sig == syscall.SIGINT || sig == syscall.SIGTERM) {
		r.kill = true
		send = syscall.SIGKILL
	}
	if r.target != nil {
		_ = r.target.Signal(send)
	}
}

// Attach makes t the target of forwarded signals until the returned detach
// function is called. If a signal arrived before t was attached (the attempt
// was starting), it is forwarded to t at once, so an attempt that starts in
// the same instant as a cancel is stopped too.
func (r *Relay) Attach(t Target) (detach func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Caught once an attempt has run for passDelay, as the orphan reaper
	// starts: catching costs a round trip to the runtime's signal thread
	// per signal, 0.02 of a start's time beside `retry -- true` (which
	// ends first and so pays nothing), and before an attempt there is no
	// one to pass them to.
	if r.passTimer == nil && !r.passStopped && len(r.pass) > 0 {
		r.passTimer = time.AfterFunc(passDelay, r.passOn)
	}
	r.target = t
	if r.received > 0 {
		_ = t.Signal(r.first)
		if r.kill {
			_ = t.Signal(syscall.SIGKILL)
		}
	}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.target == t {
			r.target = nil
		}
	}
}

// PassOn makes r forward sigs (PassedOn(), in practice) to the attached
// target, from passDelay into the first attempt on, and nothing else;
// those the process was started with ignored stay ignored. Call it before
// the first Attach.
func (r *Relay) PassOn(sigs []os.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pass = slices.DeleteFunc(slices.Clone(sigs), signal.Ignored)
}

// passer is a Target that can send a signal to the attempt's own process
// alone (runner's process does), as a signal sent to a program reaches it
// without retry; a target without it gets the signal as it gets the rest.
type passer interface {
	PassOn(sig syscall.Signal) error
}

// passOn catches the signals to pass on and forwards each to the target
// attached when it arrives; with none attached (between attempts) it is
// dropped, as Go's runtime drops it.
func (r *Relay) passOn() {
	ch := make(chan os.Signal, 8)
	r.mu.Lock()
	if r.passStopped {
		r.mu.Unlock()
		return
	}
	r.passCh = ch
	signal.Notify(ch, r.pass...)
	r.mu.Unlock()
	for s := range ch {
		sig, ok := s.(syscall.Signal)
		if !ok {
			continue
		}
		r.mu.Lock()
		switch t := r.target.(type) {
		case nil:
		case passer:
			_ = t.PassOn(sig)
		default:
			_ = t.Signal(sig)
		}
		r.mu.Unlock()
	}
}

// Received returns the first signal received, or 0 if none was.
func (r *Relay) Received() syscall.Signal {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first
}

// Stop stops forwarding signals and releases the context. Once a signal
// has been received, the handled signals stay caught (and are dropped)
// until the process exits: it is on its way to exit with 128+n of the
// first one, and a later signal (a storm of them, or a second Ctrl-C) must
// not kill it with another status before it gets there. Without a signal
// received, their default actions come back.
//
// Catching goes on without a gap: a channel that nobody reads is
// registered before the relay's own is taken away. (signal.Ignore would
// leave one: it marks the signal unhandled before it installs SIG_IGN, and
// a signal landing in between takes its default action.)
func (r *Relay) Stop() {
	r.mu.Lock()
	r.passStopped = true
	if r.passTimer != nil {
		r.passTimer.Stop()
	}
	if r.passCh != nil {
		signal.Stop(r.passCh)
		close(r.passCh)
	}
	r.mu.Unlock()
	keep := make(chan os.Signal, 1)
	signal.Notify(keep, r.sigs...)
	signal.Stop(r.ch)
	close(r.ch)
	<-r.done
	r.cancel()
	if r.Received() == 0 {
		signal.Stop(keep)
	}
}
