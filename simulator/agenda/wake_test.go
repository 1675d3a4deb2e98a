package agenda

import (
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

func woken(a *Agenda) bool {
	select {
	case <-a.wake:
		return true
	default:
		return false
	}
}

// WakeFor wakes the runner only for a job it would otherwise reach late.
func TestWakeFor(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	v := New(NewMemStore(), clock.NewVirtual(t0), nil)
	v.WakeFor(t0.Add(time.Second))
	if woken(v) {
		t.Fatal("virtual clock: a job due later woke the runner (an advance runs it)")
	}
	v.WakeFor(t0)
	if !woken(v) {
		t.Fatal("virtual clock: a job already due did not wake the runner")
	}

	r := New(NewMemStore(), clock.NewRealWithWall(0, func() time.Time { return t0 }), nil)
	r.WakeFor(t0.Add(time.Hour))
	if !woken(r) {
		t.Fatal("real clock, nothing planned: a new job did not wake the runner")
	}
	r.nextWake.Store(t0.Add(time.Minute).UnixNano()) // the runner sleeps until then
	r.WakeFor(t0.Add(time.Hour))
	if woken(r) {
		t.Fatal("real clock: a job due after the runner's next look woke it")
	}
	r.WakeFor(t0.Add(time.Second))
	if !woken(r) {
		t.Fatal("real clock: a job due before the runner's next look did not wake it")
	}
}
