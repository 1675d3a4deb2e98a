package core

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/med"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// jobCashInExpire ends a cash-in charge still PENDING at its expirationDate
// (ERROR, PAYMENT_EXPIRED).
const jobCashInExpire = "cashin.expire"

// CreateCashIn creates a cash-in charge (spec "Endpoints > POST
// /api/pix/cash-in"): a transaction PENDING until paid, with a dynamic BR Code,
// expiring at expirationDate.
//
// Refusals, in the order they are checked: CodeNotFound (KindNotFound) when
// the account is gone; CodeHTTPError, CodePixInvalidAmount or
// CodeProviderExpirationBelowMinimum (the account's minimum) on invalid input;
// the code sc forces (PROVIDER_FAILURE: CodeHTTPError as
// KindUnavailableProvider, a 500); CodePixDuplicateExternalID.
func (s *Simulator) CreateCashIn(ctx context.Context, id pix.AccountID, req pix.CashInRequest, sc scenarios.Scenario) (pix.Transaction, pix.Charge, error) {
	now := s.clock.Now()
	var st pix.Settings
	if err := s.store.View(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		st, err = settingsOf(tx, a)
		return err
	}); err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	in, err := req.Validate(st.EffectiveMinExpiration())
	if err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	if err := sc.RejectAtRequest(scenarios.OpCashIn); err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	var t pix.Transaction
	var ch pix.Charge
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return err
		}
		if err := unusedExternalID(tx, id, "transaction.externalId", in.ExternalID); err != nil {
			return err
		}
		txID, err := tx.NextID("transaction")
		if err != nil {
			return err
		}
		chargeTxID := strings.ReplaceAll(uuid.NewString(), "-", "")
		t = pix.Transaction{ID: txID, UUID: uuid.NewString(), AccountID: id, Kind: pix.TxCashIn, Status: pix.TxStatusPending,
			Amount: in.Amount, ExternalID: in.ExternalID, Description: in.Description, TxID: chargeTxID, CreatedAt: now, Scenario: sc.Name,
			Counterpart: pix.Counterpart{Name: in.PayerName, Document: in.PayerDocument}}
		ch = pix.Charge{TransactionID: txID, AccountID: id, CorrelationID: uuid.NewString(), TxID: chargeTxID,
			ExpiresAt: now.Add(in.Expiration), GenerateQrCode: in.GenerateQrCode, PayerName: in.PayerName,
			PayerDocument: in.PayerDocument, AdditionalInfo: in.AdditionalInfo, Splits: in.Splits, Scenario: sc.Name}
		if ch.LocID, ch.Location, ch.PixCode, err = newLocation(tx, a.Name, pix.LocationRef{Kind: pix.LocationCashIn, AccountID: id, TransactionID: txID}); err != nil {
			return err
		}
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		if err := tx.PutCharge(ch); err != nil {
			return err
		}
		if err := tx.PutNewJob(agenda.Job{ID: cashInExpireJobID(txID), Kind: jobCashInExpire, Due: ch.ExpiresAt, Payload: []byte(itoa(txID))}); err != nil {
			return err
		}
		return scheduleAutoPay(tx, sc, "cashin-"+itoa(txID), now, ch.ExpiresAt, pix.Payment{TransactionID: itoa(txID)})
	})
	if err != nil {
		return pix.Transaction{}, pix.Charge{}, err
	}
	return t, ch, nil // the store wakes the agenda when the expiry is due before its next look
}

// CashInCharge returns a cash-in charge by its transaction (control plane).
func (s *Simulator) CashInCharge(ctx context.Context, id int64) (pix.Charge, error) {
	return view(ctx, s.store, func(tx storage.Tx) (pix.Charge, error) {
		c, err := tx.Charge(id)
		return c, refs.NotFound(err, "cash-in charge %d not found", id)
	})
}

// cashInExpireJob ends a cash-in charge still PENDING at its expirationDate:
// ERROR with PAYMENT_EXPIRED, visible in the listing, and a cash_in webhook
// saying so (Gap G-37).
func (s *Simulator) cashInExpireJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return nil
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		t, err := tx.Transaction(id)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || t.Status != pix.TxStatusPending {
			return err
		}
		ch, err := tx.Charge(id)
		if err != nil {
			return err
		}
		f, _ := pix.LookupFailure(pix.CodePaymentExpired)
		t.Status, t.ErrorCode, t.ErrorMessage, t.ProcessedAt = pix.TxStatusError, f.Code, "charge expired before it was paid", now
		if err := tx.PutTransaction(t); err != nil {
			return err
		}
		return s.emitCashIn(tx, t, ch, now)
	})
}

func cashInExpireJobID(id int64) string { return "cashinexp-" + itoa(id) }

// payCashIn confirms a PENDING cash-in charge: CONFIRMED with the payer as
// counterpart, the fee, a cash_in webhook, and its splits (spec "States and
// transitions > Cash-in charge": webhook sent; splits executed if present).
func (s *Simulator) payCashIn(tx storage.Tx, ref pix.LocationRef, amount *pix.Cents, payer pix.Counterpart, from ledger.Pocket, e2e string, now time.Time) (pix.Transaction, error) {
	t, err := tx.Transaction(ref.TransactionID)
	if err != nil {
		return pix.Transaction{}, refs.NotFound(err, "cash-in charge %d not found", ref.TransactionID)
	}
	ch, err := tx.Charge(t.ID)
	if err != nil {
		return pix.Transaction{}, err
	}
	if t.Status != pix.TxStatusPending || !now.Before(ch.ExpiresAt) {
		if t.Status != pix.TxStatusConfirmed {
			ch.RefusedAt = now
			if err := tx.PutCharge(ch); err != nil {
				return pix.Transaction{}, err
			}
		}
		if t.Status == pix.TxStatusPending {
			return pix.Transaction{}, errChargeEnded("cash-in charge " + itoa(t.ID) + " expired at " + ch.ExpiresAt.UTC().Format(timeFormat))
		}
		return pix.Transaction{}, errChargeEnded("cash-in charge " + itoa(t.ID) + " is " + string(t.Status) + ": it accepts no payment")
	}
	if amount != nil && *amount != t.Amount {
		return pix.Transaction{}, errWrongAmount(t.Amount, *amount)
	}
	t.Status, t.EndToEndID, t.ProcessedAt = pix.TxStatusConfirmed, e2e, now
	t.Counterpart = payer
	if t.Fee, err = s.credit(tx, t, from, now); err != nil {
		return pix.Transaction{}, err
	}
	if err := tx.PutTransaction(t); err != nil {
		return pix.Transaction{}, err
	}
	if err := tx.DeleteJob(cashInExpireJobID(t.ID)); err != nil {
		return pix.Transaction{}, err
	}
	if err := s.emitCashIn(tx, t, ch, now); err != nil {
		return pix.Transaction{}, err
	}
	if err := med.ScheduleForCharge(tx, ch.Scenario, t, now); err != nil {
		return pix.Transaction{}, err
	}
	return t, s.startSplits(tx, t, ch, now)
}
