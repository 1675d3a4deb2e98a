package clock

import (
	"errors"
	"time"
)

// Clock reports the current simulated time. Now always returns a time in UTC.
type Clock interface {
	Now() time.Time
}

// Mode names how a Settable clock moves between calls to Set.
type Mode string

const (
	// ModeReal is the mode of a clock that follows the wall clock (Real).
	ModeReal Mode = "real"
	// ModeVirtual is the mode of a clock that moves only through Set (Virtual).
	ModeVirtual Mode = "virtual"
)

// ErrBackwards is returned by Settable.Set when the requested time is before
// the clock's current time.
var ErrBackwards = errors.New("clock: cannot move backwards")

// Settable is a Clock the agenda can move forward.
//
// Only agenda.Agenda calls Set, so that due jobs run as time passes.
type Settable interface {
	Clock
	// Mode reports whether the clock follows the wall clock or moves only
	// through Set.
	Mode() Mode
	// Set moves the clock forward to t. Setting the current time is allowed
	// and changes nothing. Returns ErrBackwards if t is before Now.
	Set(t time.Time) error
}
