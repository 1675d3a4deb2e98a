package clock

import (
	"sync"
	"time"
)

// Real follows the wall clock plus an offset, in UTC. The offset starts at the
// value given to NewReal and only grows, through Set.
//
// Now never goes backwards: if the host's wall clock is stepped back, Now keeps
// returning the latest time it has reported until the wall clock catches up.
//
// Real is safe for concurrent use.
type Real struct {
	wall func() time.Time

	mu     sync.Mutex
	offset time.Duration
	last   time.Time // the latest time Now has reported
}

var _ Settable = (*Real)(nil)

// NewReal returns a Real clock reading time.Now plus offset.
func NewReal(offset time.Duration) *Real {
	return NewRealWithWall(offset, time.Now)
}

// NewRealWithWall returns a Real clock reading wall plus offset. Tests use it
// to supply a controllable wall clock. A nil wall means time.Now.
func NewRealWithWall(offset time.Duration, wall func() time.Time) *Real {
	if wall == nil {
		wall = time.Now
	}
	return &Real{wall: wall, offset: offset}
}

// Now returns the wall time plus the offset, in UTC.
func (r *Real) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nowLocked(r.wall())
}

// nowLocked returns the clock's time given a wall reading. The caller must
// hold r.mu.
func (r *Real) nowLocked(wall time.Time) time.Time {
	// UTC also strips the monotonic reading, so the result compares like a
	// persisted timestamp.
	t := wall.Add(r.offset).UTC()
	if t.Before(r.last) {
		return r.last
	}
	r.last = t
	return t
}

// Mode returns ModeReal.
func (r *Real) Mode() Mode { return ModeReal }

// Set moves the clock forward to t by growing the offset. Returns ErrBackwards
// if t is before Now.
func (r *Real) Set(t time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	wall := r.wall()
	now := r.nowLocked(wall)
	if t.Before(now) {
		return ErrBackwards
	}
	// t >= now >= wall+offset, so the new offset is at least the old one.
	r.offset = t.Sub(wall.Round(0))
	r.last = t.UTC()
	return nil
}

// Offset returns how far the clock runs ahead of the wall clock.
func (r *Real) Offset() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.offset
}
