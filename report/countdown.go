package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"retry/runner"
)

// Terminal control sequences the countdown uses.
const (
	eraseLine = "\r\x1b[K" // back to the start of the line, erase it
	dim       = "\x1b[2m"
	reset     = "\x1b[0m"
)

// Countdown shows a live line on a terminal while retry waits before the
// next attempt:
//
//	retry: attempt 4/5 in 7s (slow phase) — Ctrl-C to stop
//
// rewritten in place as the time left changes (each tenth of a second
// under ten seconds, each second above), and erased when the --on-retry
// hook or the next attempt starts, or the run ends, so nothing else ever
// lands on it. The caller turns it on
// only when W is a terminal (never for a file, a pipe or CI logs).
//
// Observe must see each event before any other renderer that writes to W,
// so the line is gone before they print. The runner calls Observe from one
// goroutine; while a wait is shown, a goroutine of the Countdown's own
// rewrites the line, and it has ended by the time Observe or Stop returns.
type Countdown struct {
	// W is the terminal, usually stderr.
	W io.Writer
	// Min is the shortest wait worth a countdown: waits of Min or less show
	// nothing. cmd uses one second.
	Min time.Duration
	// Color dims the line. The caller sets it only when W is a terminal
	// and the user has not asked for no colour (see UseColor).
	Color bool

	stop chan struct{} // closed to end the goroutine
	done chan struct{} // closed when the goroutine has ended
}

// UseColor reports whether colour may be used on a stream: only on a
// terminal, and never when NO_COLOR is set to a non-empty value in env
// (KEY=VALUE pairs), as https://no-color.org asks.
func UseColor(terminal bool, env []string) bool {
	if !terminal {
		return false
	}
	for i := len(env) - 1; i >= 0; i-- { // the last setting wins, as in getenv
		if v, ok := strings.CutPrefix(env[i], "NO_COLOR="); ok {
			return v == ""
		}
	}
	return true
}

// Observe starts the countdown when an attempt is followed by a wait longer
// than Min, and erases it at the next event (the hook or the next attempt
// starting, the run ending); it is a runner.Config.Observe function.
func (c *Countdown) Observe(e runner.Event) {
	c.Stop()
	if e, ok := e.(*runner.AttemptEnded); ok {
		next := e.Attempt.Next
		if !e.Final && next.Retry && next.Wait > c.Min {
			c.start(e.Attempt.N+1, e.Max, next.Phase.String(), next.Wait)
		}
	}
}

// Stop erases the countdown line, if one is shown, and ends its goroutine.
// Observe calls it for every event; the caller may call it too, at any
// time, when it is about to write to W for another reason.
func (c *Countdown) Stop() {
	if c.stop == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.stop, c.done = nil, nil
	_, _ = io.WriteString(c.W, eraseLine)
}

// Show shows a countdown for a wait that is not a backoff, such as one for
// an open circuit, until end or until Stop:
//
//	retry: WHAT in 7s — Ctrl-C to stop
//
// It replaces any countdown shown.
func (c *Countdown) Show(what string, end time.Time) {
	c.Stop()
	if d := time.Until(end); d > c.Min {
		c.run(end, func(left time.Duration) string {
			return fmt.Sprintf("retry: %s in %s — Ctrl-C to stop", OneLine(what), Duration(left))
		})
	}
}

// start shows the line for a wait of d before attempt n of max, and
// starts the goroutine that rewrites it each second until d has passed or
// Stop is called.
func (c *Countdown) start(n, max int, phase string, d time.Duration) {
	c.run(time.Now().Add(d), func(left time.Duration) string {
		return fmt.Sprintf("retry: attempt %s in %s (%s phase) — Ctrl-C to stop",
			attemptCount(n, max), Duration(left), phase)
	})
}

// run shows text(time left) until end, rewritten by a goroutine each
// second, until end has passed or Stop is called.
func (c *Countdown) run(end time.Time, text func(time.Duration) string) {
	d := time.Until(end)
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	draw := func(left time.Duration) {
		line := text(left)
		if c.Color {
			line = dim + line + reset
		}
		_, _ = io.WriteString(c.W, "\r"+line+"\x1b[K")
	}
	left := shownLeft(d)
	draw(left)
	go c.tick(end, left, draw, c.stop, c.done)
}

// tick redraws the line each time the time left, as shownLeft rounds it,
// changes; rounded up, it never promises less time than is left. It
// returns when stop is closed or the wait is over; the line stays until
// Stop erases it.
func (c *Countdown) tick(end time.Time, shown time.Duration, draw func(time.Duration), stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTimer(time.Until(end) - (shown - step(shown)))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		left := time.Until(end)
		if left <= 0 {
			return
		}
		shown = shownLeft(left)
		draw(shown)
		t.Reset(left - (shown - step(shown)))
	}
}

// shownLeft rounds the time left up to tenths of a second under ten
// seconds (a 1.5s wait shows 1.5s, not 2s then 1s), to whole seconds above.
func shownLeft(d time.Duration) time.Duration {
	if tenths := (d + tenth - 1) / tenth * tenth; tenths < 10*time.Second {
		return tenths
	}
	return (d + time.Second - 1) / time.Second * time.Second
}

// step is how far the time left falls from shown before the line changes.
func step(shown time.Duration) time.Duration {
	if shown <= 10*time.Second {
		return tenth
	}
	return time.Second
}

const tenth = 100 * time.Millisecond
