package clock

import (
	"sync"
	"time"
)

// Virtual only moves when Set is called, and never backwards. It has no timers
// and starts no goroutines: future work lives in agenda.Agenda, not in
// channels.
//
// Virtual is safe for concurrent use.
type Virtual struct {
	mu  sync.Mutex
	now time.Time
}

var _ Settable = (*Virtual)(nil)

// NewVirtual returns a Virtual clock standing at start (converted to UTC).
func NewVirtual(start time.Time) *Virtual {
	return &Virtual{now: start.UTC()}
}

// Now returns the clock's current time, in UTC.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// Mode returns ModeVirtual.
func (v *Virtual) Mode() Mode { return ModeVirtual }

// Set moves the clock forward to t. Returns ErrBackwards if t is before Now.
//
// Only agenda.Agenda calls Set, so that due jobs run as time passes.
func (v *Virtual) Set(t time.Time) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.Before(v.now) {
		return ErrBackwards
	}
	v.now = t.UTC()
	return nil
}
