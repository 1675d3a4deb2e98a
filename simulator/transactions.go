package simulator

import (
	"context"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// ListTransactions returns a page of the account's transactions, newest first,
// and the total matching (spec "GET /api/transactions" and "GET
// /api/pix/transactions/pix-key/{pixKey}"). Every kind appears: PIX received and
// sent through either route family, charges, splits, refunds of both routes,
// MED refunds and refunds received. The filter must already be valid.
func (s *Simulator) ListTransactions(ctx context.Context, id pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error) {
	var page []pix.Transaction
	var total int
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		page, total, err = tx.ListTransactions(id, f)
		return err
	})
	return page, total, err
}
