package badgerstore

import (
	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Webhook keys:
//
//	wh/tgt/<id>                         webhook.Target
//	ix/whtgt/<account>/<id>             (empty)
//	wh/evt/<id>                         storecodec.Event (a webhook.Event)
//	wh/dlv/<id>                         webhook.Delivery
//	ix/dlvall/<createdAt>/<id>          (empty) — every delivery in time order
//	ix/dlvacct/<account>/<createdAt>/<id>
//	ix/dlvtx/<transaction>/<createdAt>/<id>
func targetKey(id int64) []byte { return []byte("wh/tgt/" + num(id)) }
func targetIndex(t webhook.Target) []byte {
	return []byte(prefixTargetIndex + num(t.AccountID) + "/" + num(t.ID))
}

// targetsCacheKey names an account's list of targets in the record cache: the
// prefix of its index keys.
func targetsCacheKey(a pix.AccountID) []byte { return []byte(prefixTargetIndex + num(int64(a)) + "/") }

// WebhookTargets returns an account's targets in id order.
func (t *Tx) WebhookTargets(a pix.AccountID) ([]webhook.Target, error) {
	var out []webhook.Target
	prefix := targetsCacheKey(a)
	_, err := loadCached(t, prefix, &out, cloneTargets, func(out *[]webhook.Target) (bool, error) {
		return true, t.scan(prefix, func(key, _ []byte) (bool, error) {
			var tg webhook.Target
			if err := t.mustGet(targetKey(parseTrailingNum(key)), &tg); err != nil {
				return true, err
			}
			*out = append(*out, tg)
			return false, nil
		})
	})
	return out, err
}

// WebhookTarget returns a target by id.
func (t *Tx) WebhookTarget(id int64) (webhook.Target, error) {
	var tg webhook.Target
	return tg, t.mustGet(targetKey(id), &tg)
}

// PutWebhookTarget creates or updates a target.
func (t *Tx) PutWebhookTarget(tg webhook.Target) error {
	if err := t.put(targetKey(tg.ID), tg); err != nil {
		return err
	}
	return t.set(targetIndex(tg), nil)
}

// DeleteWebhookTarget removes a target.
func (t *Tx) DeleteWebhookTarget(tg webhook.Target) error {
	if err := t.del(targetKey(tg.ID)); err != nil {
		return err
	}
	return t.del(targetIndex(tg))
}

// PutWebhookEvent stores an event and indexes it under its transaction.
func (t *Tx) PutWebhookEvent(e webhook.Event) error {
	if err := t.put([]byte("wh/evt/"+e.ID), storecodec.NewEvent(e)); err != nil {
		return err
	}
	return t.set(eventTxKey(e), nil)
}

func eventTxKey(e webhook.Event) []byte {
	return []byte("ix/evttx/" + num(e.TransactionID) + "/" + num(e.CreatedAt.UnixNano()) + "/" + e.ID)
}

// WebhookEvents returns a transaction's events, oldest first.
func (t *Tx) WebhookEvents(txID int64) ([]webhook.Event, error) {
	prefix := []byte("ix/evttx/" + num(txID) + "/")
	var out []webhook.Event
	err := t.scan(prefix, func(key, _ []byte) (bool, error) {
		e, err := t.WebhookEvent(string(key[len(prefix)+21:]))
		if err != nil {
			return true, err
		}
		out = append(out, e)
		return false, nil
	})
	return out, err
}

// WebhookEvent returns an event.
func (t *Tx) WebhookEvent(id string) (webhook.Event, error) {
	var r storecodec.Event
	if err := t.mustGet([]byte("wh/evt/"+id), &r); err != nil {
		return webhook.Event{}, err
	}
	return r.Webhook(), nil
}

// PutDelivery creates or updates a delivery and its indexes.
func (t *Tx) PutDelivery(d webhook.Delivery) error {
	var prev webhook.Delivery
	ok, err := t.get([]byte("wh/dlv/"+d.ID), &prev)
	if err != nil {
		return err
	}
	if err := t.put([]byte("wh/dlv/"+d.ID), d); err != nil {
		return err
	}
	if err := t.indexAttempts(d, len(prev.Attempts)); err != nil {
		return err
	}
	for _, a := range d.Attempts[min(len(prev.Attempts), len(d.Attempts)):] {
		t.tally(tally{what: tallyAttempt, kind: d.EventType, class: a.StatusCode / 100, dur: a.Duration})
	}
	switch {
	case d.InFlight != 0 && prev.InFlight == 0:
		if err := t.set(inFlightKey(d.ID), nil); err != nil {
			return err
		}
	case d.InFlight == 0 && prev.InFlight != 0:
		if err := t.del(inFlightKey(d.ID)); err != nil {
			return err
		}
	}
	if ok {
		return nil
	}
	at := num(d.CreatedAt.UnixNano()) + "/" + d.ID
	for _, k := range []string{"ix/dlvall/" + at, "ix/dlvacct/" + num(d.AccountID) + "/" + at, "ix/dlvtx/" + num(d.TransactionID) + "/" + at} {
		if err := t.set([]byte(k), nil); err != nil {
			return err
		}
	}
	return nil
}

// indexAttempts indexes the attempts of d from the from-th on by attempt id
// (ix/dlvatt/<attempt id>/<delivery id>), for DeliveriesAfterAttempt.
func (t *Tx) indexAttempts(d webhook.Delivery, from int) error {
	for _, a := range d.Attempts[min(from, len(d.Attempts)):] {
		if err := t.set(attemptKey(a.ID, d.ID), nil); err != nil {
			return err
		}
	}
	return nil
}

const (
	prefixAttempt  = "ix/dlvatt/"
	prefixInFlight = "ix/dlvflight/"
)

func inFlightKey(deliveryID string) []byte { return []byte(prefixInFlight + deliveryID) }

// InFlightDeliveries returns the deliveries with an attempt in flight.
func (t *Tx) InFlightDeliveries() ([]webhook.Delivery, error) {
	prefix := []byte(prefixInFlight)
	var out []webhook.Delivery
	err := t.scan(prefix, func(key, _ []byte) (bool, error) {
		d, err := t.Delivery(string(key[len(prefix):]))
		if err != nil {
			return true, err
		}
		out = append(out, d)
		return false, nil
	})
	return out, err
}

func attemptKey(attemptID int64, deliveryID string) []byte {
	return []byte(prefixAttempt + num(attemptID) + "/" + deliveryID)
}

// DeliveriesAfterAttempt returns the deliveries with an attempt whose id is
// above after, in the order of their first such attempt, filtered by account
// when not zero, at most limit.
func (t *Tx) DeliveriesAfterAttempt(a pix.AccountID, after int64, limit int) ([]webhook.Delivery, error) {
	prefix := []byte(prefixAttempt)
	it := t.newIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	return t.deliveriesFrom(it, attemptKey(after+1, ""), prefix, a, limit)
}

// deliveriesFrom loads the deliveries an index names, from start in the
// iterator's direction (a key is <prefix><20-digit number>/<delivery id>),
// each once, filtered by account when not zero, at most limit.
func (t *Tx) deliveriesFrom(it *iterator, start, prefix []byte, a pix.AccountID, limit int) ([]webhook.Delivery, error) {
	var out []webhook.Delivery
	seen := map[string]bool{}
	for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
		id := string(it.Key()[len(prefix)+21:])
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := t.Delivery(id)
		if err != nil {
			return nil, err
		}
		if a != 0 && d.AccountID != int64(a) {
			continue
		}
		out = append(out, d)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// Delivery returns a delivery.
func (t *Tx) Delivery(id string) (webhook.Delivery, error) {
	var d webhook.Delivery
	return d, t.mustGet([]byte("wh/dlv/"+id), &d)
}

// Deliveries returns deliveries newest first, filtered by account and transaction
// when not zero, at most limit.
func (t *Tx) Deliveries(a pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error) {
	prefix := []byte("ix/dlvall/")
	switch {
	case txID != 0:
		prefix = []byte("ix/dlvtx/" + num(txID) + "/")
	case a != 0:
		prefix = []byte("ix/dlvacct/" + num(int64(a)) + "/")
	}
	it := t.newIterator(badger.IteratorOptions{Reverse: true, Prefix: prefix})
	defer it.Close()
	return t.deliveriesFrom(it, append(append([]byte{}, prefix...), 0xFF), prefix, a, limit)
}
