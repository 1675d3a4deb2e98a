package core

import (
	"context"
	"strconv"

	"github.com/google/uuid"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
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

// Transaction returns a transaction by numeric id or UUID (control plane).
func (s *Simulator) Transaction(ctx context.Context, ref string) (pix.Transaction, error) {
	var t pix.Transaction
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		if n, perr := strconv.ParseInt(ref, 10, 64); perr == nil {
			t, err = tx.Transaction(n)
		} else if _, perr := uuid.Parse(ref); perr == nil {
			t, err = tx.TransactionByUUID(ref)
		} else {
			err = storage.ErrNotFound
		}
		return refs.NotFound(err, "transaction %s not found", refs.Quote(ref))
	})
	return t, err
}
