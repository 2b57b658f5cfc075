package runner

import "time"

// Limit is one attempt's time limit and what set it.
type Limit struct {
	// D is the limit; 0 with an empty From means none.
	D time.Duration
	// From names what set the limit: LimitTimeout, LimitDeadline, or
	// whatever Config.Limits named; empty when there is none.
	From string
}

// What sets a Limit, unless Config.Limits names something else.
const (
	// LimitTimeout is Config.Timeout (--timeout).
	LimitTimeout = "timeout"
	// LimitDeadline is the time left before the deadline, when it is
	// shorter than the limit the attempt would have had.
	LimitDeadline = "deadline"
)

// attemptLimit returns attempt n's limit: Config.Limits' when set, else
// Config.Timeout, cut to the time left before the deadline.
func (r *run) attemptLimit(n int) Limit {
	if r.cfg.Limits != nil {
		return r.cut(r.cfg.Limits(n, r.last))
	}
	return r.cut(Limit{D: r.cfg.Timeout, From: LimitTimeout})
}

// limit returns the time limit of a hook starting now (0 for none) and
// whether it is the deadline that sets it.
func (r *run) limit() (time.Duration, bool) {
	l := r.cut(Limit{D: r.cfg.Timeout, From: LimitTimeout})
	return l.D, l.From == LimitDeadline
}

// cut cuts l to the time left before the deadline.
func (r *run) cut(l Limit) Limit {
	if l.D <= 0 {
		l = Limit{}
	}
	if d := r.cfg.Policy.Deadline; d > 0 {
		left := d - time.Since(r.start)
		if l.D == 0 || left < l.D {
			return Limit{D: max(left, 0), From: LimitDeadline}
		}
	}
	return l
}
