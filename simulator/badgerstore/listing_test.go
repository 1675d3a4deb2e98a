package badgerstore

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// TestListTransactions compares the listing (page and bucketed total) with a
// brute-force filter over random histories, ranges and filters.
func TestListTransactions(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	kinds := []pix.TxKind{pix.TxCashOut, pix.TxTransfer, pix.TxPixIn, pix.TxCashIn, pix.TxSplit, pix.TxRefundIn, pix.TxRefundOut}
	busy := base.Add(5*24*time.Hour + 7*time.Minute)
	var all []pix.Transaction
	err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.PutAccount(pix.Account{ID: 1}); err != nil {
			return err
		}
		for i := int64(1); i <= 600; i++ {
			t := pix.Transaction{ID: i, AccountID: 1, Kind: kinds[rng.IntN(len(kinds))], Status: pix.TxStatusPending,
				CreatedAt: base.Add(time.Duration(rng.Int64N(int64(5 * 24 * time.Hour)))), PixKey: []string{"", "k1", "k2"}[rng.IntN(3)]}
			if err := tx.PutTransaction(t); err != nil {
				return err
			}
			if rng.IntN(3) > 0 { // a status change updates the counts
				t.Status = pix.TxStatuses[1+rng.IntN(2)]
				if err := tx.PutTransaction(t); err != nil {
					return err
				}
			}
			all = append(all, t)
		}
		// A busy last minute: its partial edges were counted key by key.
		for i := int64(601); i <= 680; i++ {
			t := pix.Transaction{ID: i, AccountID: 1, Kind: kinds[rng.IntN(len(kinds))], Status: pix.TxStatuses[rng.IntN(3)],
				CreatedAt: busy.Add(time.Duration(rng.Int64N(int64(time.Minute))))}
			if err := tx.PutTransaction(t); err != nil {
				return err
			}
			all = append(all, t)
		}
		// Another account's transactions never show.
		if err := tx.PutAccount(pix.Account{ID: 2}); err != nil {
			return err
		}
		return tx.PutTransaction(pix.Transaction{ID: 9999, AccountID: 2, Kind: pix.TxPixIn, Status: pix.TxStatusPending, CreatedAt: base.Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Status changes in later transactions, read first as a settlement does
	// (the version PutTransaction replaces comes from that read) or written
	// blind (it reads the version itself).
	err = s.Update(ctx, func(tx storage.Tx) error {
		for i := range all {
			if all[i].Status != pix.TxStatusPending || rng.IntN(2) == 0 {
				continue
			}
			next := all[i]
			if rng.IntN(2) == 0 {
				read, err := tx.Transaction(next.ID)
				if err != nil {
					return err
				}
				next = read
			}
			next.Status = pix.TxStatuses[1+rng.IntN(2)]
			if err := tx.PutTransaction(next); err != nil {
				return err
			}
			all[i] = next
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func(d int) { deepOffset = d }(deepOffset)
	for trial := 0; trial < 240; trial++ {
		deepOffset = []int{500, 1}[trial%2] // every other trial seeks deep pages through the buckets
		from := base.Add(time.Duration(rng.Int64N(int64(5 * 24 * time.Hour))))
		f := pix.TransactionFilter{From: from, To: from.Add(time.Duration(rng.Int64N(int64(3 * 24 * time.Hour)))), Page: 1 + rng.IntN(8), Size: 1 + rng.IntN(30)}
		switch rng.IntN(6) {
		case 0: // from before the oldest transaction: the left edge opens to a whole day
			f.From = base.Add(-time.Duration(rng.Int64N(int64(48 * time.Hour))))
		case 1: // to after the newest: the right edge opens
			f.To = busy.Add(time.Minute + time.Duration(rng.Int64N(int64(48*time.Hour))))
		case 2: // to inside the busy minute: newer transactions keep the edge
			f.To = busy.Add(time.Duration(rng.Int64N(int64(time.Minute))))
		}
		if rng.IntN(2) == 0 {
			f.Status = pix.TxStatuses[rng.IntN(3)]
		}
		if rng.IntN(2) == 0 {
			f.Type = pix.TxTypes[rng.IntN(4)]
		}
		if rng.IntN(4) == 0 {
			f.PixKey, f.MaxResults = "k1", 1+rng.IntN(40)
		}
		var want []pix.Transaction
		for _, x := range all {
			if f.Matches(x) {
				want = append(want, x)
			}
		}
		slices.SortFunc(want, func(x, y pix.Transaction) int { // newest first, ties by id descending
			if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
				return c
			}
			return cmp.Compare(y.ID, x.ID)
		})
		wantTotal := len(want)
		if f.MaxResults > 0 && wantTotal > f.MaxResults {
			want, wantTotal = want[:f.MaxResults], f.MaxResults
		}
		var page []pix.Transaction
		var total int
		if err := s.View(ctx, func(tx storage.Tx) (err error) {
			page, total, err = tx.ListTransactions(1, f)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		lo := min((f.Page-1)*f.Size, len(want))
		hi := min(lo+f.Size, len(want))
		if total != wantTotal || len(page) != hi-lo {
			t.Fatalf("trial %d %+v: total %d page %d, want %d and %d", trial, f, total, len(page), wantTotal, hi-lo)
		}
		for i := range page {
			if page[i].ID != want[lo+i].ID {
				t.Fatalf("trial %d: page[%d] = %d, want %d", trial, i, page[i].ID, want[lo+i].ID)
			}
		}
	}
}
