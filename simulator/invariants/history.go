package invariants

import (
	"fmt"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
)

// history is one account's transactions, MEDs and journal, read for the
// checks of checkHistory, and where they report.
type history struct {
	tx      snapshot
	id      pix.AccountID
	rep     *pix.InvariantReport
	txs     []pix.Transaction
	byID    map[int64]pix.Transaction
	refundE map[string]int64 // REFUND_OUT transaction by end-to-end id
	meds    []pix.MED

	// What the journal moved, by cause.
	opening   effect
	actualTx  map[int64]*effect
	actualMED map[int64]*effect
	// What the history says, by transaction.
	expectedTx map[int64]effect
}

func (h *history) violate(format string, args ...any) {
	h.rep.Violations = append(h.rep.Violations, fmt.Sprintf("account %d: ", h.id)+fmt.Sprintf(format, args...))
}

// at returns m's effect for k, creating it.
func at(m map[int64]*effect, k int64) *effect {
	if m[k] == nil {
		m[k] = &effect{}
	}
	return m[k]
}

// checkHistory recomputes account id's balance from its transaction history
// and MED records, and checks it against the stored balance and, transaction by
// transaction, against the journal entries each one wrote.
//
// Every journal entry names its cause in Ref (simulator/refs):
// "<KIND>:<transaction id>:<what>", "med:<id>:<what>" or "opening-balance".
// Each side of an entry that touches this account belongs to the named
// transaction, except across a PIX between sandbox accounts: the side of a
// "receive" entry that leaves the sender's blocked pocket belongs to the PIX
// out it settles (the receipt's RelatedID), and the side of a refund entry
// that enters the payer's available pocket belongs to the payer's REFUND_OUT
// (same end-to-end id, the return's rtrId). Both sides may be in one account
// (a PIX to its own key).
//
// MED blocks cannot be matched to a transaction one for one: a MED holds its
// block while it is in force (MED.BlockedAmount), and when it is refunded the
// block becomes part of its refund's hold without a movement of its own, so the
// MED's entries and its refund's entries each carry part of that hold. The
// check therefore counts the block in force per MED, and checks a refunded MED
// together with its REFUND_IN transaction (their entries against their summed
// expected effects).
func checkHistory(tx snapshot, id pix.AccountID, stored pix.Balance, entries []ledger.Entry, rep *pix.InvariantReport) error {
	h, err := readHistory(tx, id, rep)
	if err != nil {
		return err
	}
	for _, e := range entries {
		h.attributeEntry(e)
	}
	total := h.expectTransactions()
	total.add(h.checkMEDBlocks())
	h.checkTransactionEntries()
	if (pix.Balance{Available: total.Available, Blocked: total.Blocked}) != stored {
		h.violate("stored balance %+v but the opening balance, %d transactions and %d MEDs give available %s blocked %s",
			stored, len(h.txs), len(h.meds), total.Available, total.Blocked)
	}
	h.checkEndToEndIDs()
	return h.checkRefunds()
}

// readHistory reads the account's transactions and MEDs.
func readHistory(tx snapshot, id pix.AccountID, rep *pix.InvariantReport) (*history, error) {
	txs, _, err := tx.ListTransactions(id, allTime)
	if err != nil {
		return nil, err
	}
	rep.Transactions += len(txs)
	h := &history{tx: tx, id: id, rep: rep, txs: txs, byID: make(map[int64]pix.Transaction, len(txs)), refundE: map[string]int64{},
		actualTx: map[int64]*effect{}, actualMED: map[int64]*effect{}, expectedTx: map[int64]effect{}}
	for _, t := range txs {
		h.byID[t.ID] = t
		if t.Kind == pix.TxRefundOut {
			h.refundE[t.EndToEndID] = t.ID
		}
	}
	err = tx.MEDs(id, func(m pix.MED) bool { h.meds = append(h.meds, m); return true })
	return h, err
}

// attributeEntry adds what journal entry e moved in this account to its
// cause: the opening balance, a MED, or the transactions each side belongs
// to; an entry naming no cause, or money of a transaction the account does
// not record, is a violation.
func (h *history) attributeEntry(e ledger.Entry) {
	if e.Ref == refs.OpeningBalance {
		h.opening.add(localEffect(h.id, e))
		return
	}
	kind, n, what, ok := refs.Parse(e.Ref)
	if !ok {
		h.violate("journal entry %d (%s, %s) names no transaction or MED", e.Seq, e.Ref, e.Amount)
		return
	}
	if kind == refs.MEDKind {
		at(h.actualMED, n).add(localEffect(h.id, e))
		return
	}
	cause, ok := h.byID[n]
	if !ok {
		var err error
		if cause, err = h.tx.Transaction(n); err != nil {
			h.violate("journal entry %d (%s, %s) names transaction %d, which does not exist", e.Seq, e.Ref, e.Amount, n)
			return
		}
	}
	// Each side of the entry in this account belongs to one transaction of it.
	for _, side := range entrySides(e) {
		if side.p.Bucket == ledger.World || side.p.Account != h.id {
			continue
		}
		owner := cause.ID
		switch {
		case what == "receive" && side.sign < 0: // paid out of this account's PIX out
			owner = cause.RelatedID
		case cause.Kind == pix.TxRefundIn && what == "refund" && side.sign > 0: // a refund this account received
			owner = h.refundE[cause.EndToEndID]
		}
		if _, mine := h.byID[owner]; !mine {
			h.violate("journal entry %d (%s, %s) moved money of this account for transaction %d of account %d, which no transaction of this account records",
				e.Seq, e.Ref, e.Amount, n, cause.AccountID)
			continue
		}
		at(h.actualTx, owner).add(sideEffect(side, e))
	}
}

// expectTransactions records what each transaction must have moved, by kind
// and status, and returns the opening balance plus all of it; a kind and
// status the sandbox never produces is a violation.
func (h *history) expectTransactions() effect {
	total := h.opening
	for _, t := range h.txs {
		want, ok := expectedEffect(t)
		if !ok {
			h.violate("transaction %d: %s in status %s is not a state the sandbox produces", t.ID, t.Kind, t.Status)
		}
		total.add(want)
		h.expectedTx[t.ID] = want
	}
	return total
}

// checkMEDBlocks checks each MED's entries against its block in force, a
// refunded MED together with its REFUND_IN transaction, and that no entries
// name a MED the account lacks. It returns the blocks in force.
func (h *history) checkMEDBlocks() effect {
	var total effect
	for _, m := range h.meds {
		want := effect{-m.BlockedAmount, m.BlockedAmount}
		total.add(want)
		got := effect{}
		if a := h.actualMED[m.ID]; a != nil {
			got = *a
		}
		delete(h.actualMED, m.ID)
		if m.RefundID != "" {
			r, err := h.tx.Refund(m.OriginalTransactionID, m.RefundID)
			if err == nil && h.byID[r.TransactionID].ID != 0 {
				// Checked with its refund: the block carried into the refund's hold.
				e := h.expectedTx[r.TransactionID]
				e.add(want)
				h.expectedTx[r.TransactionID] = e
				at(h.actualTx, r.TransactionID).add(got)
				continue
			}
			h.violate("MED %d: its refund %s has no REFUND_IN transaction in this account", m.ID, m.RefundID)
		}
		if got != want {
			h.violate("MED %d (%s, block %s): its journal entries moved %s, its block in force is %s", m.ID, m.Status, m.BlockedAmount, got, want)
		}
	}
	for mid, got := range h.actualMED {
		h.violate("journal entries of MED %d (%s) but the account has no such MED", mid, *got)
	}
	return total
}

// checkTransactionEntries checks that each transaction's own journal entries
// moved what its kind and status say.
func (h *history) checkTransactionEntries() {
	for _, t := range h.txs {
		got := effect{}
		if a := h.actualTx[t.ID]; a != nil {
			got = *a
		}
		if want := h.expectedTx[t.ID]; got != want {
			h.violate("transaction %d (%s %s, amount %s, fee %s): its journal entries moved %s, its kind and status say %s",
				t.ID, t.Kind, t.Status, t.Amount, t.Fee, got, want)
		}
	}
}

// checkEndToEndIDs checks that an end-to-end id names one PIX of the account
// (the refund route finds the original by it); the only pairs sharing one are
// a PIX the account sent to its own key and its receipt, which point at each
// other, and the two sides of a refund of such a PIX (REFUND_IN and
// REFUND_OUT, the same rtrId).
func (h *history) checkEndToEndIDs() {
	byE2E := map[string][]pix.Transaction{}
	for _, t := range h.txs {
		if t.EndToEndID != "" {
			byE2E[t.EndToEndID] = append(byE2E[t.EndToEndID], t)
		}
	}
	for e2e, same := range byE2E {
		if len(same) == 1 || (len(same) == 2 && sharesEndToEndID(same[0], same[1])) {
			continue
		}
		ids := make([]int64, len(same))
		for i, t := range same {
			ids[i] = t.ID
		}
		h.violate("endToEndId %s on %d transactions %v", e2e, len(same), ids)
	}
}

// sharesEndToEndID reports whether a and b may share an end-to-end id: the
// two sides of a PIX to the account's own key, or of a refund of one.
func sharesEndToEndID(a, b pix.Transaction) bool {
	return a.RelatedID == b.ID && b.RelatedID == a.ID ||
		a.Kind == pix.TxRefundIn && b.Kind == pix.TxRefundOut || a.Kind == pix.TxRefundOut && b.Kind == pix.TxRefundIn
}

// checkRefunds checks the refunds of each received PIX: at most its amount
// in all (those not failed), equal to the running total the sum rule reads,
// and each with a REFUND_IN transaction of its amount and status.
func (h *history) checkRefunds() error {
	for _, o := range h.txs {
		if o.Kind != pix.TxPixIn && o.Kind != pix.TxCashIn {
			continue
		}
		refunds, err := h.tx.Refunds(o.ID)
		if err != nil {
			return err
		}
		h.rep.Refunds += len(refunds)
		var sum pix.Cents
		for _, r := range refunds {
			if r.Status != pix.RefundStatusNaoRealizado {
				sum += r.Amount
			}
			h.checkRefundTransaction(o, r)
		}
		if sum > o.Amount {
			h.violate("transaction %d: refunds not failed add up to %s, above its amount %s", o.ID, sum, o.Amount)
		}
		counted, err := h.tx.Counter(refs.RefundedCounter(o.ID))
		if err != nil {
			return err
		}
		if counted != sum {
			h.violate("transaction %d: the running refunded total is %s but its refunds not failed add up to %s", o.ID, counted, sum)
		}
	}
	return nil
}

// checkRefundTransaction checks that refund r of o has its REFUND_IN
// transaction in the account, with r's amount and status.
func (h *history) checkRefundTransaction(o pix.Transaction, r pix.Refund) {
	rt, ok := h.byID[r.TransactionID]
	switch {
	case !ok:
		h.violate("refund %s of transaction %d: its REFUND_IN transaction %d is not in the account's history", r.ID, o.ID, r.TransactionID)
	case rt.Kind != pix.TxRefundIn || rt.Amount != r.Amount || rt.Status != r.Status.TxStatus():
		h.violate("refund %s of transaction %d (%s %s): transaction %d is %s %s %s", r.ID, o.ID, r.Status, r.Amount,
			rt.ID, rt.Kind, rt.Status, rt.Amount)
	}
}
