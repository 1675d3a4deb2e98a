package core

import (
	"context"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// AccountBalance returns an account's balance at the simulation clock's now.
func (s *Simulator) AccountBalance(ctx context.Context, id pix.AccountID) (pix.BalanceReport, error) {
	now := s.clock.Now()
	var b pix.Balance
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		b, err = tx.Balance(id)
		return refs.NotFound(err, "account %d not found", id)
	})
	return pix.BalanceReport{Balance: b, At: now}, err
}
