package badgerstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecache"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

func recentTx(note string) pix.Transaction {
	return pix.Transaction{ID: 5, AccountID: 7, Kind: pix.TxCashOut, Status: pix.TxStatusPending, Amount: 100, Description: note}
}

// description reads transaction 5 in a read-only transaction, and reports
// whether the recent cache answered.
func description(t *testing.T, s *Store) (string, bool) {
	t.Helper()
	var desc string
	var hit bool
	err := s.view(context.Background(), func(tx *Tx) error {
		_, _, _, hit = s.recent.Lookup(txKey(5), tx.at)
		got, err := tx.Transaction(5)
		desc = got.Description
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return "<none>", hit
	}
	if err != nil {
		t.Fatal(err)
	}
	return desc, hit
}

// Transactions and jobs are read back from what their batch wrote once it
// committed; a batch reads its own pending writes from Badger; a discarded
// batch leaves no trace; a deletion reads as absent.
func TestRecentCache_ReadsFollowWrites(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("one")) })
	if got, hit := description(t, s); got != "one" || !hit {
		t.Fatalf("after the commit: %q (hit %v), want one from the cache", got, hit)
	}
	update(t, s, func(tx *Tx) error {
		tx.txs = nil // read through the store, not the batch's own memory
		if got, err := tx.Transaction(5); err != nil || got.Description != "one" {
			t.Errorf("in the batch before its write: %q, %v", got.Description, err)
		}
		if err := tx.PutTransaction(recentTx("two")); err != nil {
			return err
		}
		tx.txs = nil
		if got, err := tx.Transaction(5); err != nil || got.Description != "two" {
			t.Errorf("in the batch after its write: %q, %v", got.Description, err)
		}
		return nil
	})
	if got, hit := description(t, s); got != "two" || !hit {
		t.Fatalf("after a later batch: %q (hit %v), want two from the cache", got, hit)
	}

	// A batch discarded by an operation that failed after writing.
	discardedBatch(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("discarded")) })
	if got, hit := description(t, s); got != "two" || hit {
		t.Fatalf("after a discarded write: %q (hit %v), want two from Badger", got, hit)
	}

	// A job, its id index, and their deletion when it completes.
	ctx := context.Background()
	j := agenda.Job{ID: "settle-5", Kind: "settle", Due: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), Payload: []byte(`{"id":5}`)}
	if err := s.PutJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	at := s.snaps.commits.Load()
	for _, key := range [][]byte{jobIDKey(j.ID), jobKey(j.Due, j.ID)} {
		if _, _, _, ok := s.recent.Lookup(key, at); !ok {
			t.Fatalf("%s not cached after PutJob", key)
		}
	}
	if got, ok, err := s.GetJob(ctx, j.ID); err != nil || !ok || !agenda.SameJob(got, j) {
		t.Fatalf("GetJob: %+v, %v, %v", got, ok, err)
	}
	if err := s.Update(ctx, func(tx storage.Tx) error { return tx.CompleteJob(j, j.Due) }); err != nil {
		t.Fatal(err)
	}
	at = s.snaps.commits.Load()
	if _, _, found, ok := s.recent.Lookup(jobIDKey(j.ID), at); !ok || found {
		t.Fatalf("the job's id after its completion: found %v, cached %v; want cached as absent", found, ok)
	}
	if _, ok, err := s.GetJob(ctx, j.ID); err != nil || ok {
		t.Fatalf("GetJob after completion: %v, %v", ok, err)
	}

	// Written, then deleted, later in the same batch: nothing stays cached;
	// and the batch reads its own deletion.
	update(t, s, func(tx *Tx) error {
		if err := tx.PutJob(j); err != nil {
			return err
		}
		if err := tx.DeleteJob(j.ID); err != nil {
			return err
		}
		if _, ok, err := tx.Job(j.ID); err != nil || ok {
			t.Errorf("the batch reads its deleted job: %v, %v", ok, err)
		}
		return nil
	})
	if _, _, found, ok := s.recent.Lookup(jobIDKey(j.ID), s.snaps.commits.Load()); !ok || found {
		t.Fatalf("a job put and deleted in one batch: found %v, cached %v; want cached as absent", found, ok)
	}
	if _, ok, err := s.GetJob(ctx, j.ID); err != nil || ok {
		t.Fatalf("GetJob after a put and a delete in one batch: %v, %v", ok, err)
	}
	// A cached job deleted by a later batch is absent for that batch.
	if err := s.PutJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *Tx) error {
		if err := tx.DeleteJob(j.ID); err != nil {
			return err
		}
		if _, ok, err := tx.Job(j.ID); err != nil || ok {
			t.Errorf("the batch reads the job it deleted: %v, %v", ok, err)
		}
		return nil
	})
}

// A read-only transaction reads the store as of its snapshot, even when a newer
// version was cached since.
func TestRecentCache_OlderSnapshotReadsItsOwnVersion(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("old")) })
	olderSnapshotReadsItsOwnVersion(t, s,
		func(desc string) error {
			return s.update(context.Background(), func(tx *Tx) error { return tx.PutTransaction(recentTx(desc)) })
		},
		func(tx *Tx) (string, error) { got, err := tx.Transaction(5); return got.Description, err })
	if got, hit := description(t, s); got != "new" || !hit {
		t.Fatalf("after: %q (hit %v), want new from the cache", got, hit)
	}
}

// Reset forgets every entry; a wrong entry is an error in tests.
func TestRecentCache_ResetAndVerified(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("one")) })
	wrong, err := json.Marshal(storecodec.Tx(recentTx("two")))
	if err != nil {
		t.Fatal(err)
	}
	s.recent.Commit([]storecache.Write{{Key: txKey(5), Val: wrong}}, s.snaps.commits.Load())
	err = s.view(context.Background(), func(tx *Tx) error { _, err := tx.Transaction(5); return err })
	if err == nil || !strings.Contains(err.Error(), "differs from the store") {
		t.Fatalf("a wrong cached transaction read as %v", err)
	}
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := description(t, s); got != "<none>" {
		t.Fatalf("after reset: %q", got)
	}
}

// The first reader of a cached transaction keeps what it decoded; the readers
// after it get that, until the transaction is written again.
func TestRecentCache_DecodedOnce(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("one")) })
	decoded := func() any {
		_, dec, _, _ := s.recent.Lookup(txKey(5), s.snaps.commits.Load())
		return dec
	}
	if decoded() != nil {
		t.Fatal("decoded before any read")
	}
	for range 2 {
		if got, hit := description(t, s); got != "one" || !hit {
			t.Fatalf("read %q (hit %v)", got, hit)
		}
		if d, ok := decoded().(pix.Transaction); !ok || d.Description != "one" {
			t.Fatalf("kept decoded: %#v", decoded())
		}
	}
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("two")) })
	if decoded() != nil {
		t.Fatal("a new version kept the old one's decoded record")
	}
	// A wrong decoded record is an error in tests.
	val, _, _, _ := s.recent.Lookup(txKey(5), s.snaps.commits.Load())
	s.recent.Decoded(txKey(5), val, recentTx("wrong"))
	err := s.view(context.Background(), func(tx *Tx) error { _, err := tx.Transaction(5); return err })
	if err == nil || !strings.Contains(err.Error(), "differs from the store") {
		t.Fatalf("a wrong decoded transaction read as %v", err)
	}
}

// A transaction the cache does not hold (written before the store opened) is
// kept, decoded, by the reader that missed it; a write replaces it.
func TestRecentCache_ReadsStoreMisses(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("before")) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	if got, hit := description(t, s); got != "before" || hit {
		t.Fatalf("first read after opening: %q (hit %v), want a miss", got, hit)
	}
	if got, hit := description(t, s); got != "before" || !hit {
		t.Fatalf("second read: %q (hit %v), want a hit", got, hit)
	}
	if _, dec, _, _ := s.recent.Lookup(txKey(5), s.snaps.commits.Load()); dec == nil {
		t.Fatal("the reader that missed did not keep what it decoded")
	}
	update(t, s, func(tx *Tx) error { return tx.PutTransaction(recentTx("after")) })
	if got, hit := description(t, s); got != "after" || !hit {
		t.Fatalf("after a write: %q (hit %v)", got, hit)
	}
}
