package core

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// CreateTransfer accepts a PIX to a DICT key (spec "Endpoints > POST /dict/pix")
// and schedules its settlement; replayed reports a repeated request.
//
// Rule 2: a repeated request with the same x-idempotency-key returns the same
// transfer and creates none; the key, the transaction and the hold are written in
// one store transaction, so concurrent repeats serialise on the key and all but
// one find it taken. The same key with a different request is refused (422,
// CodeIdempotencyKeyConflict; Gap G-22).
//
// Other refusals: KindInvalid on invalid input (pix.TransferRequest.Validate:
// CodeIdempotencyKeyMissing for the header, CodeInvalidRequest for the body);
// the code sc forces, or the scenario of a magic DICT key
// (CodePixInvalidPixKey, CodePixInsufficientBalance, CodeDictKeyNotFound);
// CodeNotFound (KindNotFound) when the account is gone; KindUnprocessable
// CodeDictKeyNotFound and CodeIspbDenied (rule 3); KindInvalid the limit codes
// (CodePixTransactionLimitExceeded, CodePixDailyLimitExceeded,
// CodePixNightLimitExceeded, shared with cash-out) and
// CodePixInsufficientBalance, which this route answers 422 (httpapi's route
// table).
func (s *Simulator) CreateTransfer(ctx context.Context, id pix.AccountID, req pix.TransferRequest, sc scenarios.Scenario) (t pix.Transaction, replayed bool, err error) {
	now := s.clock.Now()
	in, err := req.Validate()
	if err != nil {
		return pix.Transaction{}, false, err
	}
	fingerprint := in.Fingerprint()
	if sc.IsNone() {
		sc = s.keyScenario(ctx, in.PixKey, scenarios.OpTransfer)
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		replayed = false
		if rec, err := tx.Idempotency(id, in.IdempotencyKey); err == nil && s.rules.replayTransfers {
			if rec.Fingerprint != fingerprint {
				return pix.Errorf(pix.KindUnprocessable, pix.CodeIdempotencyKeyConflict,
					"x-idempotency-key %s was already used with a different request", in.IdempotencyKey)
			}
			t, err = tx.Transaction(rec.TransactionID)
			replayed = true
			return err
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		// Request-time failures are not bound to the key: a corrected retry with
		// the same key is a new attempt (DOMAIN.md B1 item 7).
		if err := sc.RejectAtRequest(scenarios.OpTransfer); err != nil {
			return err
		}
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		entry, err := tx.DictEntry(in.PixKey)
		if errors.Is(err, storage.ErrNotFound) {
			return pix.Errorf(pix.KindUnprocessable, pix.CodeDictKeyNotFound, "key not found in DICT: %s", refs.Quote(in.PixKey))
		} else if err != nil {
			return err
		}
		if in.Denies(entry.ISPB) {
			return pix.Errorf(pix.KindUnprocessable, pix.CodeIspbDenied,
				"the key belongs to institution %s, which is listed in ispbDeny", entry.ISPB)
		}
		txID, err := tx.NextID("transaction")
		if err != nil {
			return err
		}
		t = pix.Transaction{
			ID: txID, UUID: uuid.NewString(), AccountID: a.ID, Kind: pix.TxTransfer, Status: pix.TxStatusPending,
			Amount: in.Amount, IdempotencyKey: in.IdempotencyKey, PixKey: entry.Key, KeyType: string(entry.Type),
			Description: in.Description, Priority: in.Priority, Expiration: in.Expiration,
			Document: in.CreditorDocument, Counterpart: entry.Counterpart(), CreatedAt: now, Scenario: sc.Name, TxID: in.TxID,
		}
		// The Central Bank's limits bind the payer's PIX whatever route starts
		// it: the same per-transaction, daily and night limits as a cash-out,
		// counted in the same running totals (Gap G-24).
		st, err := settingsOf(tx, a)
		if err != nil {
			return err
		}
		if err := s.totals.Check(tx, st, t); err != nil {
			return err // the route answers 422 (routes.go overrides)
		}
		if err := s.hold(tx, t); err != nil {
			return err // insufficient balance: the route answers 422 (routes.go overrides)
		}
		if err := s.totals.Count(tx, t, 1); err != nil {
			return err
		}
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		if err := tx.PutIdempotency(id, in.IdempotencyKey, storage.IdempotencyRecord{Fingerprint: fingerprint, TransactionID: t.ID, CreatedAt: now}); err != nil {
			return err
		}
		return s.scheduleSettlement(tx, t, sc, now)
	})
	if err != nil {
		return pix.Transaction{}, false, err
	}
	return t, replayed, nil // the store wakes the agenda for the settlement (agenda.Notifier)
}
