package refund

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
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// JobSettle settles a refund in processing.
const JobSettle = "refund.settle"

func jobID(r pix.Refund) string {
	return "refund-" + strconv.FormatInt(r.OriginalTransactionID, 10) + "-" + r.ID
}

// Tx is the slice of a store transaction a refund touches: the original PIX
// and the refund's transactions, the refunds, the refunded total, the hold
// and its settlement through the ledger, the transaction sequence, the
// settlement job, the payer's account, and the REFUND webhooks (the outbox).
type Tx interface {
	storage.TransactionTx
	storage.RefundTx
	storage.CounterTx
	storage.LedgerTx
	storage.SequenceTx
	storage.AccountTx
	outbox.Outbox
}

// timeFormat is how messages write an instant.
const timeFormat = time.RFC3339

// Process runs refunds inside the store transactions of the operations and
// jobs that start and end them. The core sets its fields once.
type Process struct {
	// SettleAfter is how long a refund stays in processing.
	SettleAfter time.Duration
	// RtrID draws the end-to-end id of a return (rtrId) at now.
	RtrID func(now time.Time) string
	// Party is a sandbox account as the other side of a PIX.
	Party func(tx storage.AccountTx, id pix.AccountID) (pix.Counterpart, error)
	// Refundable reports whether a PIX received at receivedAt may still be
	// refunded at now; RefundableKind whether a transaction is a receipt a
	// client may refund.
	Refundable     func(receivedAt, now time.Time) bool
	RefundableKind func(pix.Transaction) bool
	// MaxRefunds, when above 0, caps the number of refunds of one PIX. The
	// contract has no such cap: the core leaves it 0 except in the faults
	// build (simulator/faults.RefundTwoPerPIX).
	MaxRefunds int
}

// Create refunds a received PIX of account id, through either route: one
// model, one sum rule and one hold. The same id again returns the same refund
// (replayed); with another amount it is CodeRefundIDConflict. req.ID must be
// valid.
//
// Returns KindNotFound (original not found, or CodeRefundNotAReceipt),
// CodeRefundDeadlineExpired (more than 89 days, KindUnprocessable),
// CodeRefundExceedsBalance. A refund the account cannot cover is created
// NAO_REALIZADO at once (Gap G-44), not refused.
func (p *Process) Create(tx Tx, id pix.AccountID, orig pix.RefundOriginal, req pix.RefundRequest, sc scenarios.Scenario, now time.Time) (pix.Refund, bool, error) {
	o, err := Original(tx, id, orig, p.RefundableKind)
	if err != nil {
		return pix.Refund{}, false, err
	}
	if prev, err := tx.Refund(o.ID, req.ID); err == nil {
		if prev.Amount != req.Amount {
			return pix.Refund{}, false, pix.Errorf(pix.KindInvalid, pix.CodeRefundIDConflict,
				"refund id %s was already used for %s; a different valor needs a new id", req.ID, prev.Amount)
		}
		return prev, true, nil
	} else if !errors.Is(err, storage.ErrNotFound) {
		return pix.Refund{}, false, err
	}
	if !p.Refundable(o.ProcessedAt, now) {
		return pix.Refund{}, false, pix.Errorf(pix.KindUnprocessable, pix.CodeRefundDeadlineExpired,
			"the refund deadline passed: refunds are accepted up to 89 days after receipt (%s)", o.ProcessedAt.UTC().Format(timeFormat))
	}
	if err := sc.RejectAtRequest(scenarios.OpRefund); err != nil {
		return pix.Refund{}, false, err
	}
	r, err := p.New(tx, o, req, now)
	if err != nil {
		return pix.Refund{}, false, err
	}
	r.Scenario = sc.Name
	return r, false, p.Start(tx, &r, nil, now)
}

// Original finds the PIX of account id a refund names, and checks that
// refundable takes it for a receipt.
func Original(tx storage.TransactionTx, id pix.AccountID, orig pix.RefundOriginal, refundable func(pix.Transaction) bool) (pix.Transaction, error) {
	var o pix.Transaction
	var err error
	switch {
	case orig.EndToEndID != "":
		o, err = tx.TransactionByE2E(id, orig.EndToEndID)
		if err != nil {
			return o, refs.NotFound(err, "original transaction not found: no PIX of this account has endToEndId %s", orig.EndToEndID)
		}
	default:
		if n, perr := strconv.ParseInt(orig.TransactionID, 10, 64); perr == nil {
			o, err = tx.Transaction(n)
		} else if _, perr := uuid.Parse(orig.TransactionID); perr == nil {
			o, err = tx.TransactionByUUID(orig.TransactionID)
		} else {
			err = storage.ErrNotFound
		}
		if err == nil && o.AccountID != id {
			err = storage.ErrNotFound // accounts never see each other's transactions
		}
		if err != nil {
			return o, refs.NotFound(err, "parent transaction %s not found", refs.Quote(orig.TransactionID))
		}
	}
	if !refundable(o) || o.EndToEndID == "" {
		return o, pix.Errorf(pix.KindNotFound, pix.CodeRefundNotAReceipt, "transaction %d is not a receipt: only received PIX can be refunded", o.ID)
	}
	return o, nil
}

// New checks the sum rule and builds a refund of o in processing, with its
// REFUND_IN transaction's id.
func (p *Process) New(tx Tx, o pix.Transaction, req pix.RefundRequest, now time.Time) (pix.Refund, error) {
	refunded, err := tx.Counter(refs.RefundedCounter(o.ID))
	if err != nil {
		return pix.Refund{}, err
	}
	capped := false
	if p.MaxRefunds > 0 {
		earlier, err := tx.Refunds(o.ID)
		if err != nil {
			return pix.Refund{}, err
		}
		capped = len(earlier) >= p.MaxRefunds
	}
	if refunded+req.Amount > o.Amount || capped {
		return pix.Refund{}, pix.Errorf(pix.KindInvalid, pix.CodeRefundExceedsBalance,
			"value exceeds the refundable balance: %s of %s already refunded, %s left", refunded, o.Amount, o.Amount-refunded)
	}
	txID, err := tx.NextID("transaction")
	if err != nil {
		return pix.Refund{}, err
	}
	r := pix.Refund{ID: req.ID, AccountID: o.AccountID, OriginalTransactionID: o.ID, OriginalEndToEndID: o.EndToEndID,
		TransactionID: txID, RtrID: p.RtrID(now),
		Amount: req.Amount, Nature: req.Nature, Description: req.Description, Reason: req.Reason,
		Status: pix.RefundStatusEmProcessamento, RequestedAt: now}
	return r, nil
}

// Start takes the hold (available → blocked; from, when given, is an
// amount already blocked, e.g. by a MED), writes the refund, its transaction and
// its settlement job, and counts it against the PIX. If the account cannot
// cover it, the refund ends NAO_REALIZADO at once and nothing moves.
func (p *Process) Start(tx Tx, r *pix.Refund, alreadyBlocked *pix.Cents, now time.Time) error {
	o, err := tx.Transaction(r.OriginalTransactionID)
	if err != nil {
		return err
	}
	t := pix.Transaction{ID: r.TransactionID, UUID: uuid.NewString(), AccountID: r.AccountID, Kind: pix.TxRefundIn, Status: pix.TxStatusPending,
		Amount: r.Amount, EndToEndID: r.RtrID, ExternalID: r.ID, Description: r.Description, Counterpart: o.Counterpart, CreatedAt: now,
		RelatedID: o.ID, TxID: o.TxID, Scenario: r.Scenario}
	need := r.Amount
	if alreadyBlocked != nil {
		need -= min(*alreadyBlocked, r.Amount)
	}
	if need > 0 {
		_, err = tx.Move(ledger.Entry{At: now, From: ledger.AvailableOf(r.AccountID), To: ledger.BlockedOf(r.AccountID), Amount: need, Ref: refs.Ref(t, "hold")})
		if errors.Is(err, ledger.ErrInsufficient) {
			r.Status, r.Motivo, r.SettledAt = pix.RefundStatusNaoRealizado, "Saldo insuficiente para a devolução", now
			t.Status, t.ErrorCode, t.ErrorMessage, t.ProcessedAt = pix.TxStatusError, pix.CodeOrderRejected, r.Motivo, now
			if alreadyBlocked != nil && *alreadyBlocked > 0 { // give back what was blocked for it
				if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(r.AccountID), To: ledger.AvailableOf(r.AccountID), Amount: min(*alreadyBlocked, r.Amount), Ref: refs.Ref(t, "release")}); err != nil {
					return err
				}
			}
			if err := tx.PutTransaction(t); err != nil {
				return err
			}
			if err := tx.PutRefund(*r); err != nil {
				return err
			}
			return emit(tx, o, *r, now)
		}
		if err != nil {
			return err
		}
	}
	refunded, err := tx.Counter(refs.RefundedCounter(o.ID))
	if err != nil {
		return err
	}
	if err := tx.PutCounter(refs.RefundedCounter(o.ID), refunded+r.Amount); err != nil {
		return err
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	if err := tx.PutRefund(*r); err != nil {
		return err
	}
	return tx.PutJob(agenda.Job{ID: jobID(*r), Kind: JobSettle, Due: now.Add(p.SettleAfter),
		Payload: []byte(strconv.FormatInt(r.OriginalTransactionID, 10) + "/" + r.ID)})
}

// SettleJob is the handler of JobSettle over store: it ends a refund in
// processing, DEVOLVIDO (the hold leaves the account, back to the payer) or
// NAO_REALIZADO (the hold returns; by scenario).
func (p *Process) SettleJob(store storage.Store) agenda.Handler {
	return func(ctx context.Context, now time.Time, j agenda.Job) error {
		return p.settle(ctx, store, now, j)
	}
}

func (p *Process) settle(ctx context.Context, store storage.Store, now time.Time, j agenda.Job) error {
	origS, rid, ok := strings.Cut(string(j.Payload), "/")
	orig, err := strconv.ParseInt(origS, 10, 64)
	if !ok || err != nil {
		return nil
	}
	return store.Update(ctx, func(tx storage.Tx) error {
		r, err := tx.Refund(orig, rid)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || r.Status != pix.RefundStatusEmProcessamento {
			return err
		}
		var fail *pix.FailureReason
		if sc, ok := scenarios.Lookup(r.Scenario); ok && sc.Phase == scenarios.AtSettlement && sc.Honours(scenarios.OpRefund) {
			fail = &pix.FailureReason{Code: pix.CodeOrderRejected, Message: "Devolução recusada pelo participante recebedor (" + sc.Name + ")"}
		}
		return p.finish(tx, r, fail, now)
	})
}

// Force ends a refund in processing now, as its settlement job would, and
// cancels that job (the control plane's settle and fail): DEVOLVIDO, or, with
// fail, NAO_REALIZADO with fail's message as motivo and its code on the
// REFUND_IN transaction. A refund no longer in processing is left alone.
func (p *Process) Force(tx Tx, r pix.Refund, fail *pix.FailureReason, now time.Time) error {
	if r.Status != pix.RefundStatusEmProcessamento {
		return nil
	}
	if err := tx.DeleteJob(jobID(r)); err != nil {
		return err
	}
	return p.finish(tx, r, fail, now)
}

// finish moves a refund to DEVOLVIDO, or, with fail, to NAO_REALIZADO with
// motivo.
func (p *Process) finish(tx Tx, r pix.Refund, fail *pix.FailureReason, now time.Time) error {
	o, err := tx.Transaction(r.OriginalTransactionID)
	if err != nil {
		return err
	}
	t, err := tx.Transaction(r.TransactionID)
	if err != nil {
		return err
	}
	r.SettledAt, t.ProcessedAt = now, now
	if fail != nil {
		r.Status, r.Motivo = pix.RefundStatusNaoRealizado, fail.Message
		t.Status, t.ErrorCode, t.ErrorMessage = pix.TxStatusError, fail.Code, fail.Message
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(r.AccountID), To: ledger.AvailableOf(r.AccountID), Amount: r.Amount, Ref: refs.Ref(t, "release")}); err != nil {
			return err
		}
		refunded, err := tx.Counter(refs.RefundedCounter(o.ID))
		if err != nil {
			return err
		}
		if err := tx.PutCounter(refs.RefundedCounter(o.ID), refunded-r.Amount); err != nil {
			return err
		}
	} else {
		r.Status, t.Status = pix.RefundStatusDevolvido, pix.TxStatusConfirmed
		to := ledger.WorldPocket
		if payer := o.Counterpart.AccountID; payer != 0 {
			to = ledger.AvailableOf(payer)
		}
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(r.AccountID), To: to, Amount: r.Amount, Ref: refs.Ref(t, "refund")}); err != nil {
			return err
		}
		if payer := o.Counterpart.AccountID; payer != 0 {
			if err := p.received(tx, payer, o, r, now); err != nil {
				return err
			}
		}
	}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	if err := tx.PutRefund(r); err != nil {
		return err
	}
	return emit(tx, o, r, now)
}

// received records, for a payer that is a sandbox account, the refund it
// received (REFUND_OUT, a credit) and notifies its refund_out targets.
func (p *Process) received(tx Tx, payer pix.AccountID, o pix.Transaction, r pix.Refund, now time.Time) error {
	id, err := tx.NextID("transaction")
	if err != nil {
		return err
	}
	receiver, err := p.Party(tx, o.AccountID)
	if err != nil {
		return err
	}
	t := pix.Transaction{ID: id, UUID: uuid.NewString(), AccountID: payer, Kind: pix.TxRefundOut, Status: pix.TxStatusConfirmed,
		Amount: r.Amount, EndToEndID: r.RtrID, Description: r.Description, Counterpart: receiver, CreatedAt: now, ProcessedAt: now,
		RelatedID: o.RelatedID, TxID: o.TxID}
	if err := tx.PutTransaction(t); err != nil {
		return err
	}
	return outbox.Emit(tx, payer, webhook.EventRefundOut, "REFUND", t.ID, webhook.RefundPayload(o, r, nil, t.ID), now)
}

// emit notifies the refunding account's refund_in targets: a REFUND
// envelope with every settled refund of the PIX.
func emit(tx Tx, o pix.Transaction, r pix.Refund, now time.Time) error {
	all, err := tx.Refunds(o.ID)
	if err != nil {
		return err
	}
	return outbox.Emit(tx, r.AccountID, webhook.EventRefundIn, "REFUND", r.TransactionID, webhook.RefundPayload(o, r, all, r.TransactionID), now)
}

// IsReceipt reports whether t is a PIX the account received: one by key or
// for a cob, or a cash-in charge paid. Only receipts are refunded or contested.
func IsReceipt(t pix.Transaction) bool {
	return t.Kind == pix.TxPixIn || (t.Kind == pix.TxCashIn && t.Status == pix.TxStatusConfirmed)
}
