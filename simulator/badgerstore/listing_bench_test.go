package badgerstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// BenchmarkListTransactions loads 1,000,000 transactions into one account and
// 100 into another, all inside the default 31-day window, on a data dir, and
// lists page 1 (size 20, with its total) and a filtered page of each. The cost
// must follow the page size, not the history: compare the 1M and 100 figures.
func BenchmarkListTransactions(b *testing.B) {
	ctx := context.Background()
	s, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	window := 31 * 24 * time.Hour
	load := func(account pix.AccountID, n int) {
		rng := rand.New(rand.NewPCG(uint64(account), 1))
		kinds := []pix.TxKind{pix.TxCashOut, pix.TxTransfer, pix.TxPixIn, pix.TxCashIn, pix.TxRefundIn}
		const batch = 1000
		for start := 0; start < n; start += batch {
			if err := s.Update(ctx, func(tx storage.Tx) error {
				if start == 0 {
					if err := tx.PutAccount(pix.Account{ID: account}); err != nil {
						return err
					}
				}
				for i := start; i < min(start+batch, n); i++ {
					id := int64(account)*10_000_000 + int64(i) + 1
					t := pix.Transaction{ID: id, UUID: fmt.Sprintf("u-%d", id), AccountID: account, Kind: kinds[rng.IntN(len(kinds))],
						Status: pix.TxStatuses[rng.IntN(3)], Amount: pix.Cents(rng.IntN(100000) + 1), ExternalID: fmt.Sprintf("ext-%d", id),
						EndToEndID: fmt.Sprintf("E13140088202603011200%011d", id), PixKey: "pix@bcb.gov.br",
						Counterpart: pix.Counterpart{Name: "Fulano de Tal", Document: "52998224725", ISPB: "00000000", BankName: "Banco do Brasil S.A.", BankCode: "001"},
						CreatedAt:   now.Add(-time.Duration(rng.Int64N(int64(window))))}
					if err := tx.PutTransaction(t); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	started := time.Now() // wall time: reporting the load only
	load(1, 1_000_000)
	load(2, 100)
	b.Logf("loaded 1,000,100 transactions in %s", time.Since(started).Round(time.Second))

	filters := map[string]pix.TransactionFilter{
		"page1":    {From: now.Add(-window), To: now, Page: 1, Size: 20},
		"filtered": {From: now.Add(-window), To: now, Page: 1, Size: 20, Status: pix.TxStatusConfirmed, Type: pix.TxTypeWithdraw},
		"page1000": {From: now.Add(-window), To: now, Page: 1000, Size: 20},
		"byKey":    {From: now.Add(-30 * 24 * time.Hour), To: now, Page: 1, Size: 100, PixKey: "pix@bcb.gov.br", MaxResults: pix.MaxKeyResults},
	}
	for _, acct := range []struct {
		name string
		id   pix.AccountID
	}{{"1M", 1}, {"100", 2}} {
		for _, name := range []string{"page1", "filtered", "page1000", "byKey"} {
			f := filters[name]
			b.Run(acct.name+"/"+name, func(b *testing.B) {
				for b.Loop() {
					if err := s.View(ctx, func(tx storage.Tx) error {
						_, _, err := tx.ListTransactions(acct.id, f)
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkListTransactionsBusyMinute lists page 1 (size 50, with its total)
// of an account that created 5,000 transactions in the last 50 s, as in a load
// run: the listing's range ends now, inside the busiest minute.
func BenchmarkListTransactionsBusyMinute(b *testing.B) {
	ctx := context.Background()
	s, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 4, 1, 12, 0, 50, 0, time.UTC)
	for start := 0; start < 5000; start += 500 {
		if err := s.Update(ctx, func(tx storage.Tx) error {
			if err := tx.PutAccount(pix.Account{ID: 1}); err != nil {
				return err
			}
			for i := start; i < start+500; i++ {
				t := pix.Transaction{ID: int64(i + 1), UUID: fmt.Sprint("u-", i), AccountID: 1, Kind: pix.TxCashOut, Status: pix.TxStatusPending,
					Amount: 100, ExternalID: fmt.Sprint("ext-", i), CreatedAt: now.Add(-time.Duration(i) * 10 * time.Millisecond)}
				if err := tx.PutTransaction(t); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	f := pix.TransactionFilter{From: now.Add(-31 * 24 * time.Hour), To: now, Page: 1, Size: 50}
	for b.Loop() {
		if err := s.View(ctx, func(tx storage.Tx) error {
			_, _, err := tx.ListTransactions(1, f)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}
