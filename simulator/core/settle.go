package core

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/limits"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/seed"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Job kinds of PIX out.
const (
	jobSettle = "pixout.settle" // settle a pending cash-out or transfer
	jobExpire = "pixout.expire" // end a transfer still queued at its expiration
)

func settleJobID(id int64) string { return "settle-" + itoa(id) }
func expireJobID(id int64) string { return "expire-" + itoa(id) }

// scheduleSettlement writes the jobs that will end a pending transaction, in the
// transaction that created it: settlement after the settlement delay (at once
// for a HIGH-priority transfer, "processed instantly"; the scenario's delay, or
// never, for timing scenarios), and, for a DICT transfer, the end of its time in
// the queue (spec "expiration": seconds in the queue before cancellation).
func (s *Simulator) scheduleSettlement(tx storage.Tx, t pix.Transaction, sc scenarios.Scenario, now time.Time) error {
	delay := s.settlementDelay
	if t.Kind == pix.TxTransfer && t.Priority == pix.PriorityHigh {
		delay = 0
	}
	if sc.Phase == scenarios.Timing {
		delay = sc.Delay
	}
	payload := []byte(itoa(t.ID))
	if !sc.Never {
		if err := tx.PutNewJob(agenda.Job{ID: settleJobID(t.ID), Kind: jobSettle, Due: now.Add(delay), Payload: payload}); err != nil {
			return err
		}
	}
	if expires(t) {
		return tx.PutNewJob(agenda.Job{ID: expireJobID(t.ID), Kind: jobExpire, Due: t.CreatedAt.Add(t.Expiration), Payload: payload})
	}
	return nil
}

// expires reports whether t has an expiration job: a DICT transfer's time in
// the queue (scheduleSettlement).
func expires(t pix.Transaction) bool { return t.Kind == pix.TxTransfer }

// jobsOf are the ids of the jobs scheduleSettlement can write for t: its
// settlement and, when it expires, its expiration. Looking up a job a
// cash-out never has would cost its settlement a read that misses.
func jobsOf(t pix.Transaction) []string {
	if expires(t) {
		return []string{settleJobID(t.ID), expireJobID(t.ID)}
	}
	return []string{settleJobID(t.ID)}
}

// outcome is how a pending transaction ends.
type outcome struct {
	failure *pix.FailureReason // nil: settle
	forced  bool               // decided by the control plane: skip the checks
	job     *agenda.Job        // the job that runs it, completed in the same transaction
}

// settleJob ends a pending transaction as the settling bank would.
func (s *Simulator) settleJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return nil // not ours to retry
	}
	return s.finish(ctx, id, outcome{job: &j}, now)
}

// expireJob ends a DICT transfer still queued at its expiration: ERROR with
// PAYMENT_EXPIRED, the hold released (Gap G-26).
func (s *Simulator) expireJob(ctx context.Context, now time.Time, j agenda.Job) error {
	id, err := strconv.ParseInt(string(j.Payload), 10, 64)
	if err != nil {
		return nil
	}
	f, _ := pix.LookupFailure(pix.CodePaymentExpired)
	return s.finish(ctx, id, outcome{failure: &f, forced: true, job: &j}, now)
}

// SettleTransaction forces a pending transaction to settle now (control
// plane): a PIX out, or a refund in processing (DEVOLVIDO).
func (s *Simulator) SettleTransaction(ctx context.Context, ref string) (pix.Transaction, error) {
	return s.force(ctx, ref, outcome{forced: true})
}

// FailTransaction forces a pending transaction to fail now with a code of the
// spec's errorCode table (control plane): a PIX out, or a refund in processing
// (NAO_REALIZADO, the code's message as motivo; Gap G-71).
func (s *Simulator) FailTransaction(ctx context.Context, ref string, code pix.Code) (pix.Transaction, error) {
	f, ok := pix.LookupFailure(code)
	if !ok {
		return pix.Transaction{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "errorCode",
			Message: "must be one of TAX_ID_MISMATCH, INVALID_TAX_ID, BLOCKED_ACCOUNT, ACCOUNT_CLOSED, ORDER_REJECTED, PAYMENT_EXPIRED, SETTLEMENT_TIMEOUT"})
	}
	return s.force(ctx, ref, outcome{failure: &f, forced: true})
}

func (s *Simulator) force(ctx context.Context, ref string, o outcome) (pix.Transaction, error) {
	t, err := s.Transaction(ctx, ref)
	if err != nil {
		return t, err
	}
	now := s.clock.Now()
	switch {
	case t.Status == pix.TxStatusPending && t.Kind == pix.TxRefundIn:
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			r, err := tx.Refund(t.RelatedID, t.ExternalID)
			if err != nil {
				return err
			}
			return s.refunds.Force(tx, r, o.failure, now)
		})
	case t.Status == pix.TxStatusPending && t.Kind.IsPixOut():
		err = s.finish(ctx, t.ID, o, now)
	default:
		return t, pix.Errorf(pix.KindConflict, pix.CodeTransactionNotSettleable,
			"transaction %d is a %s %s; only a pending cash-out, transfer, split or refund can be settled or failed here", t.ID, t.Status, t.Kind)
	}
	if err != nil {
		return t, err
	}
	s.agenda.Wake()
	return s.Transaction(ctx, ref)
}

// finish moves a pending transaction to CONFIRMED or ERROR, once: the status
// change, the ledger movements, the other side of a PIX between sandbox accounts
// and the webhooks are one store transaction, and a transaction already final
// is left alone (jobs run at least once).
func (s *Simulator) finish(ctx context.Context, id int64, o outcome, now time.Time) error {
	return s.store.Update(ctx, func(tx storage.Tx) error {
		if o.job != nil { // the job's bookkeeping commits with its work
			if err := tx.CompleteJob(*o.job, now); err != nil {
				return err
			}
		}
		t, err := tx.Transaction(id)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || t.Final() {
			return err
		}
		dest, found, err := destination(tx, t)
		if err != nil {
			return err
		}
		failure := o.failure
		if failure == nil && !o.forced {
			failure = settlementCheck(t, dest, found)
		}
		t.ProcessedAt = now
		t.EndToEndID = s.endToEndID('E', s.banks.Sandbox.ISPB, now)
		if found {
			t.Counterpart = dest.Counterpart() // the holder as the settling bank knows it
		} else {
			t.Counterpart = s.externalCounterpart(t)
		}
		for _, jid := range jobsOf(t) {
			if err := tx.DeleteJob(jid); err != nil {
				return err
			}
		}
		if failure != nil {
			return s.fail(tx, t, *failure, now)
		}
		return s.settle(tx, t, now)
	})
}

// settlementCheck is what the settling bank verifies (spec "Cash-out webhook
// payload" errorCode table): a forced scenario first, then the stated document.
func settlementCheck(t pix.Transaction, dest pix.DictEntry, found bool) *pix.FailureReason {
	if sc, ok := scenarios.Lookup(t.Scenario); ok {
		if f, ok := sc.FailsSettlement(); ok {
			return &f
		}
	}
	var code pix.Code
	switch {
	case t.Document != "" && !pix.ValidDocument(t.Document):
		code = pix.CodeInvalidTaxID
	case t.Document != "" && found && dest.Document != t.Document:
		code = pix.CodeTaxIDMismatch
	default:
		return nil
	}
	f, _ := pix.LookupFailure(code)
	return &f
}

// destination finds the key's holder in the DICT directory.
func destination(tx storage.Tx, t pix.Transaction) (pix.DictEntry, bool, error) {
	e, err := tx.DictEntry(t.PixKey)
	if errors.Is(err, storage.ErrNotFound) {
		return pix.DictEntry{}, false, nil
	}
	return e, err == nil, err
}

// externalCounterpart is the destination of a cash-out to a key the directory
// does not know: the holder the payer named, at a participant chosen from the
// key (the same key always lands at the same bank).
func (s *Simulator) externalCounterpart(t pix.Transaction) pix.Counterpart {
	b := s.banks.ForKey(t.PixKey)
	return pix.Counterpart{Name: t.Counterpart.Name, Document: t.Document, ISPB: b.ISPB, BankName: b.Name, BankCode: b.Code}
}

// settle confirms t: the hold leaves the account — out of the sandbox, or to the
// receiving sandbox account, which sees a PIX received (or, when the transfer
// names a charge of that account by txId, the charge paid) — and the fee goes
// out; webhooks follow.
func (s *Simulator) settle(tx storage.Tx, t pix.Transaction, now time.Time) error {
	t.Status = pix.TxStatusConfirmed
	if receiver := t.Counterpart.AccountID; receiver == 0 {
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(t.AccountID), To: ledger.WorldPocket, Amount: t.Amount, Ref: refs.Ref(t, "settle")}); err != nil {
			return err
		}
	} else {
		payer, err := s.sandboxCounterpart(tx, t.AccountID)
		if err != nil {
			return err
		}
		from := ledger.BlockedOf(t.AccountID)
		var in pix.Transaction
		if t.TxID != "" {
			in, err = s.payChargeOf(tx, receiver, t, payer, from, now)
			if kind := pix.ErrorKind(err); kind == pix.KindConflict || kind == pix.KindUnprocessable || kind == pix.KindNotFound {
				// The receiving bank refuses a payment its charge does not accept.
				return s.fail(tx, t, pix.FailureReason{Code: pix.CodeOrderRejected, Message: "destination bank rejected the operation: " + err.Error()}, now)
			}
		} else {
			in, err = s.receivePix(tx, receiver, from, t.Amount, payer, t.EndToEndID, "", t.PixKey, t.Description, now)
		}
		if err != nil {
			return err
		}
		t.RelatedID, in.RelatedID = in.ID, t.ID // both sides point at each other
		if err := tx.PutTransaction(in); err != nil {
			return err
		}
	}
	if t.Fee > 0 && s.rules.feeOnSettle {
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(t.AccountID), To: ledger.WorldPocket, Amount: t.Fee, Ref: refs.Ref(t, "fee")}); err != nil {
			return err
		}
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	return emitPixOut(tx, t, now)
}

// payChargeOf pays, with a settling transfer, the charge of the receiving
// account that the transfer names by txId.
func (s *Simulator) payChargeOf(tx storage.Tx, receiver pix.AccountID, t pix.Transaction, payer pix.Counterpart, from ledger.Pocket, now time.Time) (pix.Transaction, error) {
	ref := pix.LocationRef{Kind: pix.LocationCob, AccountID: receiver, TxID: t.TxID}
	if _, err := tx.Cob(receiver, t.TxID); errors.Is(err, storage.ErrNotFound) {
		ch, err := tx.ChargeByTxID(t.TxID)
		if err != nil || ch.AccountID != receiver {
			return pix.Transaction{}, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "the receiver has no charge with txid %s", t.TxID)
		}
		ref = pix.LocationRef{Kind: pix.LocationCashIn, AccountID: receiver, TransactionID: ch.TransactionID}
	} else if err != nil {
		return pix.Transaction{}, err
	}
	amount := t.Amount
	return s.payResolved(tx, ref, &amount, payer, from, t.EndToEndID, now)
}

// sandboxCounterpart is a sandbox account as the other side of a PIX.
func (s *Simulator) sandboxCounterpart(tx storage.AccountTx, id pix.AccountID) (pix.Counterpart, error) {
	a, err := tx.Account(id)
	return seed.AccountEntry(a, s.banks.Sandbox).Counterpart(), err
}

// fail ends t in ERROR with the reason, the hold back to available.
func (s *Simulator) fail(tx storage.Tx, t pix.Transaction, f pix.FailureReason, now time.Time) error {
	t.Status, t.ErrorCode, t.ErrorMessage = pix.TxStatusError, f.Code, f.Message
	if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(t.AccountID), To: ledger.AvailableOf(t.AccountID), Amount: t.Hold(), Ref: refs.Ref(t, "release")}); err != nil {
		return err
	}
	if limits.Counted(t.Kind) {
		if err := s.totals.Count(tx, t, -1); err != nil {
			return err
		}
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	return emitPixOut(tx, t, now)
}
