package simulator

import (
	"context"
	"fmt"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// CheckInvariants recomputes every account's balance from its journal and checks
// the ledger invariants in one consistent snapshot: no pocket below zero, stored
// balances equal to their replay, and conservation (the money inside plus the
// outside world's balance is zero: nothing was created or destroyed).
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
				continue
			}
			if replayed != stored {
				rep.Violations = append(rep.Violations, fmt.Sprintf("account %d: stored %+v but journal gives %+v", a.ID, stored, replayed))
			}
		}
		if rep.Inside+rep.World != 0 {
			rep.Violations = append(rep.Violations, fmt.Sprintf("conservation: money inside %s + world %s != 0", rep.Inside, rep.World))
		}
		return nil
	})
	return rep, err
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
