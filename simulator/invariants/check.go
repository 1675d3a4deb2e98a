package invariants

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Check checks the ledger and the transaction history against each other in
// one consistent snapshot of store, as at now:
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
func Check(ctx context.Context, store storage.Store, now time.Time) (pix.InvariantReport, error) {
	rep := pix.InvariantReport{At: now}
	err := store.View(ctx, func(tx storage.Tx) error {
		accounts, err := tx.Accounts()
		if err != nil {
			return err
		}
		rep.Accounts = len(accounts)
		for _, a := range accounts {
			if err := checkAccount(tx, a.ID, &rep); err != nil {
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

// snapshot is the slice of the store the checks of one account read: its
// balance and journal, its transactions, MEDs and refunds, and the refunded
// totals.
type snapshot interface {
	storage.LedgerTx
	storage.TransactionTx
	storage.MEDTx
	storage.RefundTx
	storage.CounterTx
}

// checkAccount checks one account: its pockets, its journal's replay, and its
// history (checkHistory); it adds the account's money to the report's totals.
func checkAccount(tx snapshot, id pix.AccountID, rep *pix.InvariantReport) error {
	stored, err := tx.Balance(id)
	if err != nil {
		return err
	}
	if stored.Available < 0 || stored.Blocked < 0 {
		rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: negative balance %+v", id, stored))
	}
	rep.Inside += stored.Gross()
	var entries []ledger.Entry
	if err := tx.Journal(id, func(e ledger.Entry) error {
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
	replayed, err := ledger.ReplayAccount(id, entries)
	if err != nil {
		rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: journal does not replay: %v", id, err))
	} else if replayed != stored {
		rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: stored %+v but journal gives %+v", id, stored, replayed))
	}
	return checkHistory(tx, id, stored, entries, rep)
}

// allTime covers every transaction of an account: createdAt from the Unix
// epoch to the last instant the store's time index can encode.
var allTime = pix.TransactionFilter{From: time.Unix(0, 0), To: time.Unix(0, math.MaxInt64-1), Page: 1, Size: math.MaxInt}
