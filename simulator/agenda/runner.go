package agenda

import (
	"context"
	"math"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

const (
	// maxSleep bounds the runner's wall-time wait, so a host clock that is
	// stepped while the runner sleeps delays a job by at most this much.
	maxSleep = time.Minute
	// errorPause is how long the runner waits after a store error before
	// trying again.
	errorPause = time.Second
)

// Start starts the background runner: one goroutine that runs RunDue at once
// (so jobs that fell due while the server was down run right away), then
// waits for the earliest of the next job's due time, a Wake, or Stop, and
// runs RunDue again.
//
// Only a clock in clock.ModeReal makes the runner sleep until the next job is
// due. With a virtual clock the runner never waits on a timer: it runs the
// jobs already due when woken, and time moves only through Advance and
// AdvanceTo.
//
// Handlers run with a context derived from ctx that Stop cancels. Start does
// nothing if the runner is already started.
func (a *Agenda) Start(ctx context.Context) {
	a.lifeMu.Lock()
	defer a.lifeMu.Unlock()
	if a.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	a.cancel, a.done = cancel, done
	go func() {
		defer close(done)
		a.loop(ctx)
	}()
}

// Stop stops the runner and waits for it, including a handler that is
// running. Stop does nothing if the runner is not started; the agenda can be
// started again afterwards.
func (a *Agenda) Stop() {
	a.lifeMu.Lock()
	defer a.lifeMu.Unlock()
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.cancel, a.done = nil, nil
}

func (a *Agenda) loop(ctx context.Context) {
	for {
		wait, sleep := a.step(ctx)
		if ctx.Err() != nil {
			return
		}
		var (
			timer   *time.Timer
			timeout <-chan time.Time
		)
		if sleep {
			// Wall time: the agenda's real-time timer.
			timer = time.NewTimer(wait)
			timeout = timer.C
		}
		select {
		case <-ctx.Done():
		case <-a.wake:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// step runs the due jobs and says how long to sleep before the next step;
// sleep is false when only a Wake or Stop should end the wait.
func (a *Agenda) step(ctx context.Context) (wait time.Duration, sleep bool) {
	a.nextWake.Store(math.MaxInt64) // while it runs, every new job wakes it again
	if _, err := a.RunDue(ctx); err != nil {
		if ctx.Err() == nil {
			a.log.Error("agenda: running due jobs", "error", err)
		}
		return errorPause, true
	}
	if a.clk.Mode() != clock.ModeReal {
		return 0, false
	}
	j, ok, err := a.store.NextJob(ctx)
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error("agenda: finding the next job", "error", err)
		}
		return errorPause, true
	}
	if !ok {
		return 0, false
	}
	a.nextWake.Store(j.Due.UnixNano())
	wait = j.Due.Sub(a.clk.Now())
	return max(0, min(wait, maxSleep)), true
}
