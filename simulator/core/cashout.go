package core

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// CreateCashOut accepts a cash-out and schedules its settlement (spec
// "Endpoints > POST /api/pix/cash-out"). The service does not query DICT here: the
// key is checked against its type only, and the settling bank (the settlement
// job) finds the destination. At acceptance the amount plus the account's fee
// moves from available to blocked.
//
// Refusals, in the order they are checked: CodeHTTPError, CodePixInvalidAmount
// or CodePixInvalidPixKey on invalid input (pix.CashOutRequest.Validate); the
// code sc forces, or the scenario of a magic DICT key, before the account is
// read; CodeNotFound (KindNotFound) when the account is gone;
// CodePixDuplicateExternalID; the limit codes CodePixTransactionLimitExceeded,
// CodePixDailyLimitExceeded and CodePixNightLimitExceeded (simulator/limits);
// CodePixInsufficientBalance when available does not cover amount plus fee.
// All but CodeNotFound are KindInvalid.
func (s *Simulator) CreateCashOut(ctx context.Context, id pix.AccountID, req pix.CashOutRequest, sc scenarios.Scenario) (pix.Transaction, error) {
	now := s.clock.Now()
	in, err := req.Validate()
	if err != nil {
		return pix.Transaction{}, err
	}
	if sc.IsNone() {
		sc = s.keyScenario(ctx, in.Key, scenarios.OpCashOut)
	}
	if err := sc.RejectAtRequest(scenarios.OpCashOut); err != nil {
		if pix.ErrorCode(err) == pix.CodePixDuplicateExternalID {
			err.(*pix.Error).Details = map[string]any{"externalId": in.ExternalID, "existingTransactionId": 0}
		}
		return pix.Transaction{}, err
	}
	var out, attempted pix.Transaction
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		if err := unusedExternalID(tx, id, "externalId", in.ExternalID); err != nil {
			return err
		}
		st, err := settingsOf(tx, a)
		if err != nil {
			return err
		}
		txID, err := tx.NextID("transaction")
		if err != nil {
			return err
		}
		t := pix.Transaction{
			ID: txID, UUID: uuid.NewString(), AccountID: id, Kind: pix.TxCashOut, Status: pix.TxStatusPending,
			Amount: in.Amount, Fee: st.Fee, ExternalID: in.ExternalID, Description: in.Description,
			PixKey: in.Key, PixKeySent: in.KeySent, KeyType: string(in.KeyType), Document: in.Document,
			Counterpart: pix.Counterpart{Name: in.Name, Document: in.Document},
			CreatedAt:   now, Scenario: sc.Name,
		}
		attempted = t
		if err := s.totals.Check(tx, st, t); err != nil {
			return err
		}
		if err := s.hold(tx, t); err != nil {
			return err
		}
		if err := s.totals.Count(tx, t, 1); err != nil {
			return err
		}
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		out = t
		return s.scheduleSettlement(tx, t, sc, now)
	})
	if err != nil {
		s.rules.afterRefusal(ctx, s.store, attempted, err)
		return pix.Transaction{}, err
	}
	return out, nil // the store wakes the agenda for the settlement (agenda.Notifier)
}

// hold reserves a pending transaction's amount plus fee: available → blocked.
func (s *Simulator) hold(tx storage.Tx, t pix.Transaction) error {
	amount := s.rules.holdAmount(tx, t)
	_, err := tx.Move(ledger.Entry{At: t.CreatedAt, From: ledger.AvailableOf(t.AccountID), To: ledger.BlockedOf(t.AccountID),
		Amount: amount, Ref: refs.Ref(t, "hold")})
	if errors.Is(err, ledger.ErrInsufficient) {
		bal, berr := tx.Balance(t.AccountID)
		if berr != nil {
			return berr
		}
		return pix.Errorf(pix.KindInvalid, pix.CodePixInsufficientBalance,
			"available balance %s is below the amount plus fee %s", bal.Available, t.Hold())
	}
	return err
}

// keyScenario is the scenario a magic DICT key forces, for clients that cannot
// set X-Sandbox-Scenario (fixtures/dict.json, docs/scenarios.md).
func (s *Simulator) keyScenario(ctx context.Context, key string, op scenarios.Operation) scenarios.Scenario {
	var e pix.DictEntry
	if err := s.store.View(ctx, func(tx storage.Tx) (err error) { e, err = tx.DictEntry(key); return err }); err != nil {
		return scenarios.None
	}
	return scenarios.ForKey(e.Scenario, op)
}

// unusedExternalID refuses an externalId the account already used
// (CodePixDuplicateExternalID, naming the request's field).
func unusedExternalID(tx storage.Tx, id pix.AccountID, field, externalID string) error {
	prev, err := tx.TransactionByExternalID(id, externalID)
	if err == nil {
		return &pix.Error{Kind: pix.KindInvalid, Code: pix.CodePixDuplicateExternalID,
			Message: field + " " + refs.Quote(externalID) + " was already used by this account",
			Details: map[string]any{"externalId": externalID, "existingTransactionId": prev.ID}}
	}
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}
