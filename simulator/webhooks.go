package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
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

// deliverJob makes the next attempt of a delivery. The HTTP call happens outside
// any store transaction; its result is recorded in one, and a retry is scheduled
// there by the delivery's policy, at the attempt's simulation time plus the wait.
func (s *Simulator) deliverJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id := string(j.Payload)
	var d webhook.Delivery
	var ev webhook.Event
	var attemptID int64
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
		if d, err = tx.Delivery(id); err != nil {
			return err
		}
		if d.Status.Final() {
			return nil
		}
		if ev, err = tx.WebhookEvent(d.EventID); err != nil {
			return err
		}
		attemptID, err = tx.NextID("webhook-attempt")
		return err
	})
	if errors.Is(err, storage.ErrNotFound) || (err == nil && d.Status.Final()) {
		return nil
	}
	if err != nil {
		return err
	}
	a := s.dispatcher.Send(ctx, d, ev.ID, ev.Body, attemptID, len(d.Attempts)+1, now)
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		// The job's bookkeeping commits with the attempt; a retry below
		// schedules the job's next version.
		if err := tx.CompleteJob(j, now); err != nil {
			return err
		}
		cur, err := tx.Delivery(id)
		if err != nil {
			return err
		}
		if cur.Status.Final() || len(cur.Attempts) != len(d.Attempts) {
			return nil // another run recorded this attempt
		}
		next := cur.Record(a, webhook.DefaultPolicy)
		if next.Status == webhook.StatusRetrying {
			return s.scheduleDelivery(tx, next, next.NextAttemptAt)
		}
		return tx.PutDelivery(next)
	})
	if err == nil {
		s.agenda.Wake()
	}
	return err
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
