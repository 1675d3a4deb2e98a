package outbox

import (
	"encoding/json"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// JobDeliver makes one attempt of a webhook delivery.
const JobDeliver = "webhook.deliver"

func deliverJobID(deliveryID string) string { return "deliver-" + deliveryID }

// Outbox is the slice of a store transaction the outbox writes: an event,
// the deliveries to its targets and their deliver jobs.
type Outbox interface {
	storage.WebhookTargetTx
	storage.WebhookEventTx
	storage.DeliveryTx
	storage.JobTx
}

// Emit writes a webhook event and one delivery per active target of its type
// (the transactional outbox: inside the store transaction of the state change,
// so a webhook exists exactly when the change committed), each with a job due
// now. The caller wakes the agenda after commit.
func Emit(tx Outbox, account pix.AccountID, eventType, kind string, txID int64, body any, now time.Time) error {
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
		if err := tx.PutDelivery(d); err != nil {
			return err
		}
		if err := tx.PutNewJob(deliverJob(d, now)); err != nil { // a new delivery has no job yet
			return err
		}
	}
	return nil
}

// schedule writes d and the job that makes its next attempt at due.
func schedule(tx Outbox, d webhook.Delivery, due time.Time) error {
	if err := tx.PutDelivery(d); err != nil {
		return err
	}
	return tx.PutJob(deliverJob(d, due))
}

func deliverJob(d webhook.Delivery, due time.Time) agenda.Job {
	return agenda.Job{ID: deliverJobID(d.ID), Kind: JobDeliver, Due: due, Payload: []byte(d.ID)}
}
