package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// jobDeliver makes one attempt of a webhook delivery.
const jobDeliver = "webhook.deliver"

func deliverJobID(deliveryID string) string { return "deliver-" + deliveryID }

// emit writes a webhook event and one delivery per active target of its type
// (the transactional outbox: inside the store transaction of the state change,
// so a webhook exists exactly when the change committed), each with a job due
// now. The caller wakes the agenda after commit.
func (s *Simulator) emit(tx storage.Tx, account pix.AccountID, eventType, kind string, txID int64, body any, now time.Time) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ev := webhook.Event{ID: webhook.NewEventID(), AccountID: int64(account), EventType: eventType, Kind: kind,
		TransactionID: txID, Body: b, CreatedAt: now}
	if err := tx.PutWebhookEvent(ev); err != nil {
		return err
	}
	targets, err := tx.WebhookTargets(account)
	if err != nil {
		return err
	}
	for _, d := range webhook.Plan(ev, targets, now) {
		if err := s.scheduleDelivery(tx, d, now); err != nil {
			return err
		}
	}
	return nil
}

func (s *Simulator) scheduleDelivery(tx storage.Tx, d webhook.Delivery, due time.Time) error {
	if err := tx.PutDelivery(d); err != nil {
		return err
	}
	return tx.PutJob(agenda.Job{ID: deliverJobID(d.ID), Kind: jobDeliver, Due: due, Payload: []byte(d.ID)})
}

// deliverJob hands the next attempt of a delivery to the worker pool, off the
// job runner: a receiver that is slow or hangs delays nothing but its own
// deliveries. The job completes in the transaction that marks the delivery in
// flight; the attempt's result is recorded in another (recordAttempt), which
// schedules the retry by the delivery's policy at the attempt's simulation
// time plus the wait. A delivery still in flight when the simulator stops is
// attempted again on its next start (recoverInFlight).
func (s *Simulator) deliverJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id := string(j.Payload)
	var d webhook.Delivery
	var ev webhook.Event
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
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
		if d.InFlight, err = tx.NextID("webhook-attempt"); err != nil {
			return err
		}
		return tx.PutDelivery(d)
	})
	if err != nil || d.ID == "" || ev.ID == "" {
		return err
	}
	s.pool.Submit(d.URL, func(actx context.Context) { s.attempt(actx, d, ev, now) })
	return nil
}

// attempt makes the attempt of d marked in flight and records its result. An
// attempt cut by a stop is left in flight, to be made again.
func (s *Simulator) attempt(ctx context.Context, d webhook.Delivery, ev webhook.Event, now time.Time) {
	a := s.dispatcher.Send(ctx, d, ev.ID, ev.Body, d.InFlight, len(d.Attempts)+1, now)
	if ctx.Err() != nil {
		return
	}
	err := s.store.Update(context.WithoutCancel(ctx), func(tx storage.Tx) error {
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
			return s.scheduleDelivery(tx, next, next.NextAttemptAt)
		}
		return tx.PutDelivery(next)
	})
	if err != nil {
		s.log.Error("webhook: recording an attempt", "delivery", d.ID, "error", err)
	}
	// A retry is a job: the store wakes the agenda when it is due before
	// the runner's next look (agenda.Notifier).
}

// recoverInFlight schedules again, due now, every attempt left in flight by
// a stop: at least once, with the same webhook-id.
func (s *Simulator) recoverInFlight(ctx context.Context) error {
	now := s.clock.Now()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		ds, err := tx.InFlightDeliveries()
		if err != nil {
			return err
		}
		for _, d := range ds {
			d.InFlight = 0
			if err := s.scheduleDelivery(tx, d, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// WaitWebhooks returns when every webhook attempt due by the clock's now has
// been made and recorded: it waits for the worker pool, runs the jobs that
// fell due meanwhile (retries due by now), and again until nothing is left.
func (s *Simulator) WaitWebhooks(ctx context.Context) error {
	for {
		if err := s.pool.Wait(ctx); err != nil {
			return err
		}
		ran, err := s.agenda.RunDue(ctx)
		if err != nil {
			return err
		}
		if ran == 0 && s.pool.Pending() == 0 {
			return nil
		}
	}
}

// WebhookTargets lists an account's webhook targets (control plane).
func (s *Simulator) WebhookTargets(ctx context.Context, account pix.AccountID) ([]webhook.Target, error) {
	var out []webhook.Target
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		if _, err := tx.Account(account); err != nil {
			return notFound(err, "account %d not found", account)
		}
		out, err = tx.WebhookTargets(account)
		return err
	})
	return out, err
}

// RegisterWebhookTarget registers a webhook target for an account with the rules
// of spec "POST /api/webhooks" (intended shape): at most 5 custom headers, none of
// the blocked names, at most 3 active URLs per event type, and re-registering a
// URL for its event type updates it and leaves the others unchanged. The control
// plane accepts http URLs too, so receivers on loopback work (Gap G-27).
func (s *Simulator) RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error) {
	if err := webhook.ValidateTarget(t, requireHTTPS); err != nil {
		return webhook.Target{}, false, err
	}
	now := s.clock.Now()
	var out webhook.Target
	var created bool
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Account(pix.AccountID(t.AccountID)); err != nil {
			return notFound(err, "account %d not found", t.AccountID)
		}
		existing, err := tx.WebhookTargets(pix.AccountID(t.AccountID))
		if err != nil {
			return err
		}
		out, created, err = webhook.Register(existing, t, now)
		if err != nil {
			return err
		}
		if created {
			if out.ID, err = tx.NextID("webhook-target"); err != nil {
				return err
			}
		}
		return tx.PutWebhookTarget(out)
	})
	return out, created, err
}

// DeleteWebhookTarget removes a target (control plane).
func (s *Simulator) DeleteWebhookTarget(ctx context.Context, id int64) error {
	return s.store.Update(ctx, func(tx storage.Tx) error {
		t, err := tx.WebhookTarget(id)
		if err != nil {
			return notFound(err, "webhook target %d not found", id)
		}
		return tx.DeleteWebhookTarget(t)
	})
}

// WebhookDeliveries lists deliveries with their attempts, newest first,
// filtered by account and transaction when not zero (control plane).
func (s *Simulator) WebhookDeliveries(ctx context.Context, account pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		out, err = tx.Deliveries(account, txID, limit)
		return err
	})
	return out, err
}

// WebhookDeliveriesAfterAttempt lists the deliveries with an attempt newer
// than the attempt (webhookLogId) after, oldest such attempt first: a cursor
// for following deliveries as they happen, retries of old ones included.
func (s *Simulator) WebhookDeliveriesAfterAttempt(ctx context.Context, account pix.AccountID, after int64, limit int) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		out, err = tx.DeliveriesAfterAttempt(account, after, limit)
		return err
	})
	return out, err
}

// emitCashIn sends the outcome webhook of a cash-in charge (paid or expired)
// to the account's cash_in targets, in the shape the account's settings or
// the server's default choose (Gap G-38): V2 RECEIVE, whose data.id is the
// charge's transactionId and txId the charge's txid, or the flat CashIn.
func (s *Simulator) emitCashIn(tx storage.Tx, t pix.Transaction, ch pix.Charge, now time.Time) error {
	shape := s.cashInWebhook
	a, err := tx.Account(t.AccountID)
	if err != nil {
		return err
	}
	st, err := settingsOf(tx, a)
	if err != nil {
		return err
	}
	if st.CashInWebhook.Valid() {
		shape = st.CashInWebhook
	}
	if shape == pix.CashInWebhookCashIn {
		return s.emit(tx, t.AccountID, webhookEventCashIn, "CashIn", t.ID, webhook.CashInPayload(t, ch), now)
	}
	return s.emit(tx, t.AccountID, webhookEventCashIn, "RECEIVE", t.ID, webhook.ReceivePayload(t), now)
}

// emitPixOut sends the outcome webhook of a PIX out to the account's cash_out
// targets: TRANSFER (V2) for a DICT transfer, CashOut for a cash-out or a split.
func (s *Simulator) emitPixOut(tx storage.Tx, t pix.Transaction, now time.Time) error {
	if t.Kind == pix.TxTransfer {
		return s.emit(tx, t.AccountID, webhook.EventCashOut, "TRANSFER", t.ID, webhook.TransferPayload(t), now)
	}
	return s.emit(tx, t.AccountID, webhook.EventCashOut, "CashOut", t.ID, webhook.CashOutPayload(t), now)
}

// CheckReceiver runs the receiver check (simulator/receivercheck) with the
// simulator's webhook dispatcher settings: its HTTP client, its user agent and
// --webhook-deny-private, which applies to the receiver and the callback URL.
func (s *Simulator) CheckReceiver(ctx context.Context, cfg receivercheck.Config) (receivercheck.Report, error) {
	return receivercheck.Run(ctx, cfg, *s.dispatcher)
}
