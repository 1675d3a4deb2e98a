package outbox

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ratelimit"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Runner makes the attempts of the deliveries the outbox wrote: its Deliver
// job hands each to the workspace's share of the webhook workers (Pool),
// which makes it with the dispatcher and records its result.
type Runner struct {
	Store storage.Store
	// Pool runs the attempts, each on behalf of its delivery's account
	// (webhook.Scheduler: the workers are shared fairly between accounts).
	Pool       *webhook.Space
	Dispatcher *webhook.Dispatcher
	Log        *slog.Logger
	// Limits counts resends per account (ResendRateLimit).
	Limits *ratelimit.Limiter
}

// Deliver is the handler of JobDeliver: it hands the next attempt of a
// delivery to the worker pool, off the job runner, so a receiver that is slow
// or hangs delays nothing but its own deliveries. The job completes in the
// transaction that marks the delivery in flight; the attempt's result is
// recorded in another (attempt), which schedules the retry by the delivery's
// policy at the attempt's simulation time plus the wait. A delivery still in
// flight when the simulator stops is attempted again on its next start
// (RecoverInFlight).
func (r *Runner) Deliver(ctx context.Context, now time.Time, j agenda.Job) error {
	id := string(j.Payload)
	var d webhook.Delivery
	var ev webhook.Event
	err := r.Store.Update(ctx, func(tx storage.Tx) (err error) {
		if err := tx.CompleteJob(j, now); err != nil {
			return err
		}
		if d, err = tx.Delivery(id); errors.Is(err, storage.ErrNotFound) {
			return nil
		} else if err != nil || d.Status.Final() || d.InFlight != 0 {
			return err
		}
		if ev, err = tx.WebhookEvent(d.EventID); err != nil {
			return err
		}
		if d, err = withTargetSecrets(tx, d); err != nil {
			return err
		}
		if d.InFlight, err = tx.NextID("webhook-attempt"); err != nil {
			return err
		}
		return tx.PutDelivery(d)
	})
	if err != nil || d.ID == "" || ev.ID == "" {
		return err
	}
	r.Pool.Submit(d.AccountID, d.URL, func(actx context.Context) { r.attempt(actx, d, ev, now) })
	return nil
}

// withTargetSecrets returns d to be signed with the secrets its target has
// now, a rotation's included (Gap G-67): a retry of a delivery first made
// before a rotation is signed afresh. A delivery whose target is gone, or
// that has none (a one-off), keeps the secrets it was planned with.
func withTargetSecrets(tx storage.Tx, d webhook.Delivery) (webhook.Delivery, error) {
	if d.TargetID == 0 {
		return d, nil
	}
	t, err := tx.WebhookTarget(d.TargetID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return d, nil
	case err != nil:
		return d, err
	}
	return d.WithSecretsOf(t), nil
}

// attempt makes the attempt of d marked in flight and records its result. An
// attempt cut by a stop is left in flight, to be made again.
func (r *Runner) attempt(ctx context.Context, d webhook.Delivery, ev webhook.Event, now time.Time) {
	a := r.Dispatcher.Send(ctx, d, ev.ID, ev.Body, d.InFlight, len(d.Attempts)+1, now)
	if ctx.Err() != nil {
		return
	}
	err := r.Store.Update(context.WithoutCancel(ctx), func(tx storage.Tx) error {
		cur, err := tx.Delivery(d.ID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil // dropped by a reset meanwhile
		}
		if err != nil || cur.InFlight != d.InFlight {
			return err // recorded already
		}
		next := cur.Record(a, webhook.DefaultPolicy)
		next.InFlight = 0
		if next.Status == webhook.StatusRetrying {
			return schedule(tx, next, next.NextAttemptAt)
		}
		return tx.PutDelivery(next)
	})
	if err != nil {
		r.Log.Error("webhook: recording an attempt", "delivery", d.ID, "error", err)
	}
	// A retry is a job: the store wakes the agenda when it is due before
	// the runner's next look (agenda.Notifier).
}

// RecoverInFlight schedules again, due now, every attempt left in flight by
// a stop: at least once, with the same webhook-id.
func (r *Runner) RecoverInFlight(ctx context.Context, now time.Time) error {
	return r.Store.Update(ctx, func(tx storage.Tx) error {
		ds, err := tx.InFlightDeliveries()
		if err != nil {
			return err
		}
		for _, d := range ds {
			d.InFlight = 0
			if err := schedule(tx, d, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// Wait returns when every webhook attempt due by the clock's now has been
// made and recorded: it waits for the worker pool, runs the jobs that fell
// due meanwhile with runDue (retries due by now), and again until nothing is
// left.
func (r *Runner) Wait(ctx context.Context, runDue func(context.Context) (int, error)) error {
	for {
		if err := r.Pool.Wait(ctx); err != nil {
			return err
		}
		ran, err := runDue(ctx)
		if err != nil {
			return err
		}
		if ran == 0 && r.Pool.Pending() == 0 {
			return nil
		}
	}
}
