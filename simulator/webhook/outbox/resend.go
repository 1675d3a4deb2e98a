package outbox

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/ratelimit"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// ResendRateLimit is spec "Limits": resend webhook, 60 requests per minute.
const ResendRateLimit = 60

var e2eIdentifier = regexp.MustCompile(`^[ED][a-zA-Z0-9]{31}$`)

// eventTypeOf is the registration event type of a transaction's own webhook.
func eventTypeOf(t pix.Transaction) string {
	switch t.Kind.ListingType() {
	case pix.TxTypePayment:
		return webhook.EventCashIn
	case pix.TxTypeRefundIn:
		return webhook.EventRefundIn
	case pix.TxTypeRefundOut:
		return webhook.EventRefundOut
	}
	return webhook.EventCashOut
}

// Resend sends a transaction's webhook again (spec "POST
// /api/resend-webhook/{transactionIdentifier}"): the latest event of the
// transaction's own type, with the same event id, to the body url when given
// (a one-off target, not stored), else to the account's registered target for
// that type, else 400. The identifier is the transaction's number, its
// end-to-end id (32 characters, E or D first; Gap G-55), its UUID (the
// cash-out response's transactionId) or its externalId; a transaction of
// another account is 404, one that has sent no webhook yet 400. 60 requests per minute of simulation
// time per account, then 429. The attempt is recorded in the delivery log; its
// id is the webhookLogId.
func (r *Runner) Resend(ctx context.Context, id pix.AccountID, ident, url string, now time.Time) (webhook.Attempt, error) {
	if ok, wait := r.Limits.Allow("resend/"+strconv.FormatInt(int64(id), 10), ResendRateLimit, now); !ok {
		return webhook.Attempt{}, ratelimit.Refusal("POST /api/resend-webhook", ResendRateLimit, wait)
	}
	if url != "" {
		if err := webhook.ValidateURL(url, false); err != nil {
			return webhook.Attempt{}, err
		}
	}
	var d webhook.Delivery
	var ev webhook.Event
	var attemptID int64
	err := r.Store.Update(ctx, func(tx storage.Tx) error {
		t, err := findForResend(tx, id, ident)
		if err != nil {
			return err
		}
		events, err := tx.WebhookEvents(t.ID)
		if err != nil {
			return err
		}
		typ := eventTypeOf(t)
		found := false
		for _, e := range events {
			if e.EventType == typ && e.AccountID == int64(id) {
				ev, found = e, true
			}
		}
		if !found { // the transaction exists: "not found" would send the client looking for the wrong thing
			return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "transactionIdentifier",
				Message: fmt.Sprintf("names transaction %d, which has sent no %s webhook yet (it is %s): resend it once its webhook has been sent", t.ID, typ, t.Status)})
		}
		if url != "" {
			d = webhook.OneOff(ev, url, now)
		} else {
			targets, err := tx.WebhookTargets(id)
			if err != nil {
				return err
			}
			active := webhook.ActiveFor(targets, typ)
			if len(active) == 0 {
				return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "url",
					Message: "is required: no webhook URL is registered for " + typ + " (send {\"url\": …} to resend to a URL once)"})
			}
			d = webhook.Plan(ev, active[:1], now)[0]
		}
		attemptID, err = tx.NextID("webhook-attempt")
		return err
	})
	if err != nil {
		return webhook.Attempt{}, err
	}
	a := r.Dispatcher.Send(ctx, d, ev.ID, ev.Body, attemptID, 1, now)
	d = d.Record(a, webhook.Schedule{}) // one attempt: a resend is not retried
	err = r.Store.Update(ctx, func(tx storage.Tx) error { return tx.PutDelivery(d) })
	return a, err
}

func findForResend(tx storage.TransactionTx, id pix.AccountID, ident string) (pix.Transaction, error) {
	var t pix.Transaction
	var err error
	if n, perr := strconv.ParseInt(ident, 10, 64); perr == nil {
		t, err = tx.Transaction(n)
		if err == nil && t.AccountID != id {
			err = storage.ErrNotFound
		}
	} else if e2eIdentifier.MatchString(ident) {
		t, err = tx.TransactionByE2E(id, ident)
	} else {
		if _, perr := uuid.Parse(ident); perr == nil && len(ident) == 36 {
			// The cash-out response's transactionId; an externalId that merely
			// looks like a UUID is still found below.
			if t, err = tx.TransactionByUUID(ident); err == nil && t.AccountID == id {
				return t, nil
			} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return t, err
			}
		}
		t, err = tx.TransactionByExternalID(id, ident)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return t, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "transaction %s not found", refs.Quote(ident))
	}
	return t, err
}
