package badgerstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// A data directory written before the listing indexes existed (no schema
// version, no derived keys) is reindexed on open: its listings, totals and
// events by transaction come back as if written by this version.
func TestUpgradeRebuildsDerivedKeys(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	const n = 1234 // more than two reindex batches
	if err := s.Update(ctx, func(tx storage.Tx) error {
		for i := int64(1); i <= n; i++ {
			st := pix.TxStatuses[i%3]
			if err := tx.PutTransaction(pix.Transaction{ID: i, AccountID: pix.AccountID(1 + i%2), Kind: pix.TxPixIn, Status: st,
				PixKey: "k", CreatedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
				return err
			}
		}
		if err := tx.PutDelivery(webhook.Delivery{ID: "dlv_1", EventID: "msg_1", AccountID: 1, TransactionID: 7, CreatedAt: base,
			Attempts: []webhook.Attempt{{ID: 41, Number: 1}, {ID: 42, Number: 2}}}); err != nil {
			return err
		}
		return tx.PutWebhookEvent(webhook.Event{ID: "msg_1", AccountID: 1, EventType: webhook.EventCashIn, TransactionID: 7, Body: []byte("{}"), CreatedAt: base})
	}); err != nil {
		t.Fatal(err)
	}
	f := pix.TransactionFilter{From: base, To: base.Add(30 * 24 * time.Hour), Page: 2, Size: 10, Status: pix.TxStatusConfirmed}
	list := func(s *Store) (ids []int64, total int, events int) {
		t.Helper()
		if err := s.View(ctx, func(tx storage.Tx) error {
			page, tot, err := tx.ListTransactions(1, f)
			for _, p := range page {
				ids = append(ids, p.ID)
			}
			total = tot
			if err != nil {
				return err
			}
			ev, err := tx.WebhookEvents(7)
			events = len(ev)
			if err != nil {
				return err
			}
			ds, err := tx.DeliveriesAfterAttempt(0, 41, 10) // attempt 42 only
			events += 10 * len(ds)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids, total, events
	}
	wantIDs, wantTotal, wantEvents := list(s)
	if wantTotal == 0 || len(wantIDs) != 10 || wantEvents != 11 {
		t.Fatalf("before: %v %d %d", wantIDs, wantTotal, wantEvents)
	}
	// Make it an old directory: no version, no derived keys.
	if err := s.db.DropPrefix(derivedPrefixes...); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(schemaKey) }); err != nil {
		t.Fatal(err)
	}
	if ids, total, _ := list(s); len(ids) != 0 || total != 0 {
		t.Fatalf("the derived keys were not dropped: %v %d", ids, total)
	}
	s.Close()

	s, err = Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ids, total, events := list(s)
	if total != wantTotal || events != wantEvents || len(ids) != len(wantIDs) {
		t.Fatalf("after the upgrade: %v %d %d, want %v %d %d", ids, total, events, wantIDs, wantTotal, wantEvents)
	}
	for i := range ids {
		if ids[i] != wantIDs[i] {
			t.Fatalf("after the upgrade: %v, want %v", ids, wantIDs)
		}
	}
	// A directory from a newer build is refused rather than misread.
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("newer schema: %v", err)
	}
}
