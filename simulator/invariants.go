package simulator

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// CheckInvariants checks the ledger and the transaction history against each
// other in one consistent snapshot:
//
//   - no pocket below zero, and stored balances equal to the replay of their journal;
//   - conservation: the money inside plus the outside world's balance is zero
//     (nothing was created or destroyed);
//   - every account's balance equals what its transactions say it should be
//     (opening balance plus the effect of each transaction by kind and status, plus
//     the MED blocks in force), and each transaction's own journal entries moved
//     exactly that effect, so a mismatch names the transaction;
//   - every journal entry belongs to a transaction, a MED or the opening balance;
//   - an end-to-end id names one PIX of the account;
//   - the refunds of each received PIX that did not fail add up to at most its
//     amount, agree with the running total the sum rule reads, and each refund's
//     REFUND_IN transaction has the refund's amount and status.
func (s *Simulator) CheckInvariants(ctx context.Context) (pix.InvariantReport, error) {
	rep := pix.InvariantReport{At: s.clock.Now()}
	err := s.store.View(ctx, func(tx storage.Tx) error {
		accounts, err := tx.Accounts()
		if err != nil {
			return err
		}
		rep.Accounts = len(accounts)
		for _, a := range accounts {
			stored, err := tx.Balance(a.ID)
			if err != nil {
				return err
			}
			if stored.Available < 0 || stored.Blocked < 0 {
				rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: negative balance %+v", a.ID, stored))
			}
			rep.Inside += stored.Gross()
			var entries []ledger.Entry
			if err := tx.Journal(a.ID, func(e ledger.Entry) error {
				entries = append(entries, e)
				// Entries with the world touch one account, so each is counted once.
				if e.From.Bucket == ledger.World {
					rep.World -= e.Amount
				}
				if e.To.Bucket == ledger.World {
					rep.World += e.Amount
				}
				return nil
			}); err != nil {
				return err
			}
			rep.Entries += len(entries)
			replayed, err := ledger.ReplayAccount(a.ID, entries)
			if err != nil {
				rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: journal does not replay: %v", a.ID, err))
			} else if replayed != stored {
				rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: stored %+v but journal gives %+v", a.ID, stored, replayed))
			}
			if err := s.checkHistory(tx, a.ID, stored, entries, &rep); err != nil {
				return err
			}
		}
		if rep.Inside+rep.World != 0 {
			rep.Violations = append(rep.Violations, fmt.Sprintf("conservation: money inside %s + world %s != 0", rep.Inside, rep.World))
		}
		return nil
	})
	return rep, err
}

// effect is a change of an account's two pockets.
type effect struct{ Available, Blocked pix.Cents }

func (e *effect) add(o effect) { e.Available += o.Available; e.Blocked += o.Blocked }

func (e effect) String() string {
	return fmt.Sprintf("available %+d blocked %+d", e.Available, e.Blocked)
}

// expectedEffect is what a transaction of the account must have done to its
// balance, by kind and status (the movements of cashout.go, transfer.go,
// splits.go, settle.go, payment.go and refund.go):
//
//   - a PIX out (cash-out, DICT transfer, split) holds amount + fee while
//     PENDING (available → blocked), takes it out of the account when CONFIRMED,
//     and leaves nothing when ERROR (released, or never held);
//   - a PIX received, or a cash-in charge once CONFIRMED, credits amount − fee;
//     a charge PENDING or expired (ERROR) moves nothing;
//   - a refund of a received PIX (REFUND_IN) holds its amount while PENDING, takes
//     it out when CONFIRMED (DEVOLVIDO), leaves nothing when ERROR;
//   - a refund received by a sandbox payer (REFUND_OUT) credits its amount.
func expectedEffect(t pix.Transaction) (effect, bool) {
	switch t.Kind {
	case pix.TxCashOut, pix.TxTransfer, pix.TxSplit:
		switch t.Status {
		case pix.TxStatusPending:
			return effect{-t.Hold(), t.Hold()}, true
		case pix.TxStatusConfirmed:
			return effect{Available: -t.Hold()}, true
		case pix.TxStatusError:
			return effect{}, true
		}
	case pix.TxPixIn, pix.TxCashIn:
		switch t.Status {
		case pix.TxStatusConfirmed:
			return effect{Available: t.Amount - t.Fee}, true
		case pix.TxStatusPending, pix.TxStatusError:
			return effect{}, t.Kind == pix.TxCashIn
		}
	case pix.TxRefundIn:
		switch t.Status {
		case pix.TxStatusPending:
			return effect{-t.Amount, t.Amount}, true
		case pix.TxStatusConfirmed:
			return effect{Available: -t.Amount}, true
		case pix.TxStatusError:
			return effect{}, true
		}
	case pix.TxRefundOut:
		if t.Status == pix.TxStatusConfirmed {
			return effect{Available: t.Amount}, true
		}
	}
	return effect{}, false
}

// entrySide is one pocket of a ledger entry and the sign of its change.
type entrySide struct {
	p    ledger.Pocket
	sign pix.Cents
}

// entrySides returns e's source (−) and destination (+).
func entrySides(e ledger.Entry) [2]entrySide { return [2]entrySide{{e.From, -1}, {e.To, 1}} }

// localEffect is what entry e does to account id's pockets.
func localEffect(id pix.AccountID, e ledger.Entry) effect {
	var out effect
	for _, side := range entrySides(e) {
		if side.p.Bucket == ledger.World || side.p.Account != id {
			continue
		}
		if side.p.Bucket == ledger.Available {
			out.Available += side.sign * e.Amount
		} else {
			out.Blocked += side.sign * e.Amount
		}
	}
	return out
}

// allTime covers every transaction of an account: createdAt from the Unix
// epoch to the last instant the store's time index can encode.
var allTime = pix.TransactionFilter{From: time.Unix(0, 0), To: time.Unix(0, math.MaxInt64-1), Page: 1, Size: math.MaxInt}

// checkHistory recomputes account id's balance from its transaction history
// and MED records, and checks it against the stored balance and, transaction by
// transaction, against the journal entries each one wrote.
//
// Every journal entry names its cause in Ref: "<KIND>:<transaction id>:<what>",
// "med:<id>:<what>" or "opening-balance". Each side of an entry that touches
// this account belongs to the named transaction, except across a PIX between
// sandbox accounts: the side of a "receive" entry that leaves the sender's
// blocked pocket belongs to the PIX out it settles (the receipt's RelatedID),
// and the side of a refund entry that enters the payer's available pocket
// belongs to the payer's REFUND_OUT (same end-to-end id, the return's rtrId).
// Both sides may be in one account (a PIX to its own key).
//
// MED blocks cannot be matched to a transaction one for one: a MED holds its
// block while it is in force (MED.BlockedAmount), and when it is refunded the
// block becomes part of its refund's hold without a movement of its own, so the
// MED's entries and its refund's entries each carry part of that hold. The
// check therefore counts the block in force per MED, and checks a refunded MED
// together with its REFUND_IN transaction (their entries against their summed
// expected effects).
func (s *Simulator) checkHistory(tx storage.Tx, id pix.AccountID, stored pix.Balance, entries []ledger.Entry, rep *pix.InvariantReport) error {
	txs, _, err := tx.ListTransactions(id, allTime)
	if err != nil {
		return err
	}
	rep.Transactions += len(txs)
	byID := make(map[int64]pix.Transaction, len(txs))
	byE2E := map[string]int64{}
	for _, t := range txs {
		byID[t.ID] = t
		if t.Kind == pix.TxRefundOut {
			byE2E[t.EndToEndID] = t.ID
		}
	}
	violate := func(format string, args ...any) {
		rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: ", id)+fmt.Sprintf(format, args...))
	}

	// What the journal moved, by cause.
	var opening effect
	actualTx := map[int64]*effect{}
	actualMED := map[int64]*effect{}
	at := func(m map[int64]*effect, k int64) *effect {
		if m[k] == nil {
			m[k] = &effect{}
		}
		return m[k]
	}
	for _, e := range entries {
		if e.Ref == "opening-balance" {
			opening.add(localEffect(id, e))
			continue
		}
		kind, rest, _ := strings.Cut(e.Ref, ":")
		num, what, _ := strings.Cut(rest, ":")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			violate("journal entry %d (%s, %s) names no transaction or MED", e.Seq, e.Ref, e.Amount)
			continue
		}
		if kind == "med" {
			at(actualMED, n).add(localEffect(id, e))
			continue
		}
		cause, ok := byID[n]
		if !ok {
			if cause, err = tx.Transaction(n); err != nil {
				violate("journal entry %d (%s, %s) names transaction %d, which does not exist", e.Seq, e.Ref, e.Amount, n)
				continue
			}
		}
		// Each side of the entry in this account belongs to one transaction of it.
		for _, side := range entrySides(e) {
			if side.p.Bucket == ledger.World || side.p.Account != id {
				continue
			}
			owner := cause.ID
			switch {
			case what == "receive" && side.sign < 0: // paid out of this account's PIX out
				owner = cause.RelatedID
			case cause.Kind == pix.TxRefundIn && what == "refund" && side.sign > 0: // a refund this account received
				owner = byE2E[cause.EndToEndID]
			}
			if _, mine := byID[owner]; !mine {
				violate("journal entry %d (%s, %s) moved money of this account for transaction %d of account %d, which no transaction of this account records",
					e.Seq, e.Ref, e.Amount, n, cause.AccountID)
				continue
			}
			var le effect
			if side.p.Bucket == ledger.Available {
				le.Available = side.sign * e.Amount
			} else {
				le.Blocked = side.sign * e.Amount
			}
			at(actualTx, owner).add(le)
		}
	}

	// What the history says, transaction by transaction.
	total := opening
	expectedTx := map[int64]effect{}
	for _, t := range txs {
		want, ok := expectedEffect(t)
		if !ok {
			violate("transaction %d: %s in status %s is not a state the sandbox produces", t.ID, t.Kind, t.Status)
		}
		total.add(want)
		expectedTx[t.ID] = want
	}
	var meds []pix.MED
	if err := tx.MEDs(id, func(m pix.MED) bool { meds = append(meds, m); return true }); err != nil {
		return err
	}
	for _, m := range meds {
		want := effect{-m.BlockedAmount, m.BlockedAmount}
		total.add(want)
		got := effect{}
		if a := actualMED[m.ID]; a != nil {
			got = *a
		}
		delete(actualMED, m.ID)
		if m.RefundID != "" {
			r, err := tx.Refund(m.OriginalTransactionID, m.RefundID)
			if err == nil && byID[r.TransactionID].ID != 0 {
				// Checked with its refund: the block carried into the refund's hold.
				e := expectedTx[r.TransactionID]
				e.add(want)
				expectedTx[r.TransactionID] = e
				at(actualTx, r.TransactionID).add(got)
				continue
			}
			violate("MED %d: its refund %s has no REFUND_IN transaction in this account", m.ID, m.RefundID)
		}
		if got != want {
			violate("MED %d (%s, block %s): its journal entries moved %s, its block in force is %s", m.ID, m.Status, m.BlockedAmount, got, want)
		}
	}
	for mid, got := range actualMED {
		violate("journal entries of MED %d (%s) but the account has no such MED", mid, *got)
	}
	for _, t := range txs {
		got := effect{}
		if a := actualTx[t.ID]; a != nil {
			got = *a
		}
		if want := expectedTx[t.ID]; got != want {
			violate("transaction %d (%s %s, amount %s, fee %s): its journal entries moved %s, its kind and status say %s",
				t.ID, t.Kind, t.Status, t.Amount, t.Fee, got, want)
		}
	}
	if (pix.Balance{Available: total.Available, Blocked: total.Blocked}) != stored {
		violate("stored balance %+v but the opening balance, %d transactions and %d MEDs give available %s blocked %s",
			stored, len(txs), len(meds), total.Available, total.Blocked)
	}

	// End-to-end ids name one PIX of the account (the refund route finds the
	// original by it); the only pairs sharing one are a PIX the account sent to
	// its own key and its receipt, which point at each other, and the two sides
	// of a refund of such a PIX (REFUND_IN and REFUND_OUT, the same rtrId).
	byE2EAll := map[string][]pix.Transaction{}
	for _, t := range txs {
		if t.EndToEndID != "" {
			byE2EAll[t.EndToEndID] = append(byE2EAll[t.EndToEndID], t)
		}
	}
	for e2e, same := range byE2EAll {
		if len(same) == 1 || (len(same) == 2 && (same[0].RelatedID == same[1].ID && same[1].RelatedID == same[0].ID ||
			same[0].Kind == pix.TxRefundIn && same[1].Kind == pix.TxRefundOut || same[0].Kind == pix.TxRefundOut && same[1].Kind == pix.TxRefundIn)) {
			continue
		}
		ids := make([]int64, len(same))
		for i, t := range same {
			ids[i] = t.ID
		}
		violate("endToEndId %s on %d transactions %v", e2e, len(same), ids)
	}

	// Refunds of each received PIX.
	for _, o := range txs {
		if o.Kind != pix.TxPixIn && o.Kind != pix.TxCashIn {
			continue
		}
		refunds, err := tx.Refunds(o.ID)
		if err != nil {
			return err
		}
		rep.Refunds += len(refunds)
		var sum pix.Cents
		for _, r := range refunds {
			if r.Status != pix.RefundStatusNaoRealizado {
				sum += r.Amount
			}
			rt, ok := byID[r.TransactionID]
			switch {
			case !ok:
				violate("refund %s of transaction %d: its REFUND_IN transaction %d is not in the account's history", r.ID, o.ID, r.TransactionID)
			case rt.Kind != pix.TxRefundIn || rt.Amount != r.Amount || rt.Status != r.Status.TxStatus():
				violate("refund %s of transaction %d (%s %s): transaction %d is %s %s %s", r.ID, o.ID, r.Status, r.Amount,
					rt.ID, rt.Kind, rt.Status, rt.Amount)
			}
		}
		if sum > o.Amount {
			violate("transaction %d: refunds not failed add up to %s, above its amount %s", o.ID, sum, o.Amount)
		}
		counted, err := tx.Counter(refundedCounter(o.ID))
		if err != nil {
			return err
		}
		if counted != sum {
			violate("transaction %d: the running refunded total is %s but its refunds not failed add up to %s", o.ID, counted, sum)
		}
	}
	return nil
}

// Account returns an account and its balance (control plane).
func (s *Simulator) Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error) {
	var a pix.Account
	var b pix.Balance
	now := s.clock.Now()
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		if a, err = tx.Account(id); err != nil {
			return notFound(err, "account %d not found", id)
		}
		b, err = tx.Balance(id)
		return err
	})
	return a, pix.BalanceReport{Balance: b, At: now}, err
}
