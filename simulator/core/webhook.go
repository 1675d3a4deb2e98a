package core

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// WaitWebhooks returns when every webhook attempt due by the clock's now has
// been made and recorded (outbox.Runner.Wait).
func (s *Simulator) WaitWebhooks(ctx context.Context) error {
	return s.deliveries.Wait(ctx, s.agenda.RunDue)
}

// ResendWebhook sends a transaction's webhook again, once (POST
// /api/resend-webhook/{transactionIdentifier}; outbox.Runner.Resend).
func (s *Simulator) ResendWebhook(ctx context.Context, id pix.AccountID, ident, url string) (webhook.Attempt, error) {
	return s.deliveries.Resend(ctx, id, ident, url, s.clock.Now())
}

// WebhookTargets lists an account's webhook targets (control plane).
func (s *Simulator) WebhookTargets(ctx context.Context, account pix.AccountID) ([]webhook.Target, error) {
	var out []webhook.Target
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		if _, err := tx.Account(account); err != nil {
			return refs.NotFound(err, "account %d not found", account)
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
			return refs.NotFound(err, "account %d not found", t.AccountID)
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
			return refs.NotFound(err, "webhook target %d not found", id)
		}
		return tx.DeleteWebhookTarget(t)
	})
}

// RotateWebhookSecrets gives the targets ids a new signing secret (control
// plane; Gap G-67): secret, or a fresh one when it is empty, the same for
// all. Until the wall clock passes overlap from now, their deliveries are
// signed with each one's old secret too (webhook.RotateSecret), retries of
// earlier deliveries included. The targets that exist are rotated together,
// in one store transaction and with one overlap's end; those that do not are
// skipped. It returns the targets rotated, or a *pix.Error: KindInvalid
// naming secret (not a Standard Webhooks secret, or a target's current one)
// or overlap (outside 0 to webhook.MaxRotationOverlap), KindNotFound when no
// target of ids exists.
func (s *Simulator) RotateWebhookSecrets(ctx context.Context, ids []int64, secret string, overlap time.Duration) ([]webhook.Target, error) {
	if err := webhook.CheckOverlap(overlap); err != nil {
		return nil, err
	}
	if secret == "" {
		secret = webhook.NewSecret()
	} else if !webhook.ValidSecret(secret) {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "secret",
			Message: `must be a Standard Webhooks secret: "whsec_" and the standard base64 of 24 to 64 bytes`})
	}
	now, wall := s.clock.Now(), s.dispatcher.WallNow()
	var out []webhook.Target
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		out = nil
		for _, id := range ids {
			t, err := tx.WebhookTarget(id)
			if errors.Is(err, storage.ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
			if t.Secret == secret {
				return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "secret", Message: "must differ from the current secret"})
			}
			t = webhook.RotateSecret(t, secret, wall, overlap)
			t.UpdatedAt = now
			if err := tx.PutWebhookTarget(t); err != nil {
				return err
			}
			out = append(out, t)
		}
		if len(out) == 0 && len(ids) > 0 {
			return pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "webhook target %d not found", ids[0])
		}
		return nil
	})
	return out, err
}

// WebhookDeliveries lists deliveries with their attempts, newest first,
// filtered by account and transaction when not zero (control plane).
func (s *Simulator) WebhookDeliveries(ctx context.Context, account pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error) {
	return view(ctx, s.store, func(tx storage.Tx) ([]webhook.Delivery, error) {
		return tx.Deliveries(account, txID, limit)
	})
}

// WebhookDeliveriesAfterAttempt lists the deliveries with an attempt newer
// than the attempt (webhookLogId) after, oldest such attempt first: a cursor
// for following deliveries as they happen, retries of old ones included.
func (s *Simulator) WebhookDeliveriesAfterAttempt(ctx context.Context, account pix.AccountID, after int64, limit int) ([]webhook.Delivery, error) {
	return view(ctx, s.store, func(tx storage.Tx) ([]webhook.Delivery, error) {
		return tx.DeliveriesAfterAttempt(account, after, limit)
	})
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
		return outbox.Emit(tx, t.AccountID, webhookEventCashIn, "CashIn", t.ID, webhook.CashInPayload(t, ch), now)
	}
	return outbox.Emit(tx, t.AccountID, webhookEventCashIn, "RECEIVE", t.ID, webhook.ReceivePayload(t), now)
}

// emitPixOut sends the outcome webhook of a PIX out to the account's cash_out
// targets: TRANSFER (V2) for a DICT transfer, CashOut for a cash-out or a split.
func emitPixOut(tx storage.Tx, t pix.Transaction, now time.Time) error {
	if t.Kind == pix.TxTransfer {
		return outbox.Emit(tx, t.AccountID, webhook.EventCashOut, "TRANSFER", t.ID, webhook.TransferPayload(t), now)
	}
	return outbox.Emit(tx, t.AccountID, webhook.EventCashOut, "CashOut", t.ID, webhook.CashOutPayload(t), now)
}

// CheckReceiver runs the receiver check (simulator/receivercheck) with the
// simulator's webhook dispatcher settings: its HTTP client, its user agent and
// --webhook-deny-private, which applies to the receiver and the callback URL.
func (s *Simulator) CheckReceiver(ctx context.Context, cfg receivercheck.Config) (receivercheck.Report, error) {
	return receivercheck.Run(ctx, cfg, *s.dispatcher)
}

// registrationEnabled is whether the public webhook registration routes act
// (--webhook-registration; switchable through the control plane).
type registrationSwitch struct{ on atomic.Bool }

// WebhookRegistration reports whether POST/GET /api/webhooks act (true) or answer
// as disabled, as the spec says they currently do (false, the default).
func (s *Simulator) WebhookRegistration() bool { return s.registration.on.Load() }

// SetWebhookRegistration switches the public registration routes (control plane).
func (s *Simulator) SetWebhookRegistration(enabled bool) { s.registration.on.Store(enabled) }
