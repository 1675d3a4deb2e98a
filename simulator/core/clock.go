package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

const metaClock = "clock"

// clockState is the persisted clock, so that a restart on the same data dir never
// moves time backwards: tokens, certificates and jobs keep their meaning.
type clockState struct {
	Mode   clock.Mode    `json:"mode"`
	Now    time.Time     `json:"now"`    // virtual: the current instant; real: the last instant moved to
	Offset time.Duration `json:"offset"` // real: how far ahead of wall time
}

func (s *Simulator) restoreClock(ctx context.Context, cfg Config) (clock.Settable, error) {
	var st clockState
	var found bool
	if err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		found, err = tx.Meta(metaClock, &st)
		return err
	}); err != nil {
		return nil, err
	}
	switch cfg.ClockMode {
	case clock.ModeVirtual:
		start := cfg.ClockStart.UTC()
		if found && st.Now.After(start) {
			start = st.Now // never backwards on the same data dir
		}
		return clock.NewVirtual(start), nil
	case clock.ModeReal, "":
		var offset time.Duration
		if found && st.Offset > 0 {
			offset = st.Offset
		}
		c := clock.NewRealWithWall(offset, cfg.Wall)
		if found && st.Now.After(c.Now()) {
			// The data dir was last run ahead of this start (a virtual run, or a
			// wall clock that went back): keep time monotonic.
			if err := c.Set(st.Now); err != nil {
				return nil, err
			}
		}
		return c, nil
	default:
		return nil, fmt.Errorf("simulator: unknown clock mode %q", cfg.ClockMode)
	}
}

// saveClock persists the clock as at t (the target of a move in progress), so a
// crash during the move restarts at t and runs the remaining due jobs at once.
func (s *Simulator) saveClock(ctx context.Context, t time.Time) error {
	st := s.clockState(t)
	return s.store.Update(ctx, func(tx storage.Tx) error { return tx.PutMeta(metaClock, st) })
}

// clockState is the clock as persisted when it stands (or is moving) at t.
func (s *Simulator) clockState(t time.Time) clockState {
	st := clockState{Mode: s.clock.Mode(), Now: t.UTC()}
	if r, ok := s.clock.(*clock.Real); ok {
		st.Offset = r.Offset() + t.Sub(r.Now())
	}
	return st
}

// ClockNow reports the clock.
func (s *Simulator) ClockNow() pix.ClockReport {
	return pix.ClockReport{Now: s.clock.Now(), Mode: string(s.clock.Mode())}
}

// AdvanceClock moves the clock forward by d, running every job that falls due on
// the way in due order; it returns when they have run.
func (s *Simulator) AdvanceClock(ctx context.Context, d time.Duration, wait pix.ClockWait) (pix.ClockReport, error) {
	if d < 0 {
		return pix.ClockReport{}, pix.Errorf(pix.KindInvalid, pix.CodeInvalidRequest, "seconds must not be negative")
	}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	target := s.clock.Now().Add(d)
	if target.After(pix.MaxClockTime) {
		return pix.ClockReport{}, beyondClockLimit("seconds")
	}
	return s.moveClockLocked(ctx, target, wait)
}

// SetClock moves the clock forward to t, like AdvanceClock. Moving backwards is
// refused: jobs already run and tokens already issued would lose their meaning.
func (s *Simulator) SetClock(ctx context.Context, t time.Time, wait pix.ClockWait) (pix.ClockReport, error) {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	if now := s.clock.Now(); t.Before(now) {
		return pix.ClockReport{}, pix.Errorf(pix.KindInvalid, pix.CodeInvalidRequest,
			"now %s is before the current simulation time %s; the clock only moves forward",
			t.UTC().Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	}
	if t.After(pix.MaxClockTime) {
		return pix.ClockReport{}, beyondClockLimit("now")
	}
	return s.moveClockLocked(ctx, t, wait)
}

// beyondClockLimit refuses a move past pix.MaxClockTime (a later time could
// not be stored), naming the field that asked for it.
func beyondClockLimit(field string) error {
	return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field,
		Message: "must not move the clock past " + pix.MaxClockTime.Format(time.RFC3339) + ", the latest simulation time"})
}

// moveClockLocked moves the clock to target. The caller must hold s.clockMu.
// The state-changing jobs due on the way run in due order; webhook attempts go
// to the worker pool, and the move waits for them only with ClockWaitWebhooks.
func (s *Simulator) moveClockLocked(ctx context.Context, target time.Time, wait pix.ClockWait) (pix.ClockReport, error) {
	if err := s.saveClock(ctx, target); err != nil {
		return pix.ClockReport{}, err
	}
	var each func(context.Context) error
	if wait == pix.ClockWaitWebhooks {
		each = s.pool.Wait
	}
	ran, err := s.agenda.AdvanceToEach(ctx, target, each)
	if errors.Is(err, clock.ErrBackwards) {
		// A real clock passed target while the move was under way: run what is due.
		ran, err = s.agenda.RunDue(ctx)
	}
	if err == nil && wait == pix.ClockWaitWebhooks {
		err = s.WaitWebhooks(ctx)
	}
	if err != nil {
		return pix.ClockReport{}, err
	}
	return pix.ClockReport{Now: s.clock.Now(), Mode: string(s.clock.Mode()), JobsRun: ran, WebhooksPending: s.pool.Pending()}, nil
}
