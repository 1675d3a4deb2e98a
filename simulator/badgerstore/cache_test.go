package badgerstore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecache"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

func cacheAccount(name string) pix.Account {
	return pix.Account{ID: 7, Name: name, Document: "52998224725", PixKeys: []pix.PixKey{{Type: "EMAIL", Key: "a@example.org"}}}
}

func update(t *testing.T, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// storeWithCachedAccount opens a store holding account 7 named name, read once
// so that it is cached.
func storeWithCachedAccount(t *testing.T, name string) *Store {
	t.Helper()
	s := mustOpen(t, t.TempDir())
	t.Cleanup(func() { s.Close() })
	update(t, s, func(tx *Tx) error { return tx.PutAccount(cacheAccount(name)) })
	if got := accountName(t, s); got != name {
		t.Fatalf("account %q, want %q", got, name)
	}
	return s
}

func accountName(t *testing.T, s *Store) string {
	t.Helper()
	var name string
	err := s.view(context.Background(), func(tx *Tx) error {
		a, err := tx.Account(7)
		name = a.Name
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// Cached accounts, settings and DICT entries follow every write: in later
// batches, later in the same batch, and not at all when the batch that wrote
// them was discarded.
func TestRecordCache_ReadsFollowWrites(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutAccount(cacheAccount("one")) })
	for range 2 { // the second read is a hit
		if got := accountName(t, s); got != "one" {
			t.Fatalf("account %q, want one", got)
		}
	}
	update(t, s, func(tx *Tx) error { return tx.PutAccount(cacheAccount("two")) })
	if got := accountName(t, s); got != "two" {
		t.Fatalf("after a later batch: %q, want two", got)
	}
	update(t, s, func(tx *Tx) error {
		if a, err := tx.Account(7); err != nil || a.Name != "two" {
			t.Errorf("in the batch before its write: %q, %v", a.Name, err)
		}
		if err := tx.PutAccount(cacheAccount("three")); err != nil {
			return err
		}
		if a, err := tx.Account(7); err != nil || a.Name != "three" {
			t.Errorf("in the batch after its write: %q, %v", a.Name, err)
		}
		return nil
	})
	if got := accountName(t, s); got != "three" {
		t.Fatalf("after the batch: %q, want three", got)
	}
	// A write in a batch discarded by a failing operation leaves no trace.
	discardedBatch(t, s, func(tx *Tx) error {
		if err := tx.PutAccount(cacheAccount("discarded")); err != nil {
			return err
		}
		_, err := tx.Account(7)
		return err
	})
	if got := accountName(t, s); got != "three" {
		t.Fatalf("after a discarded write: %q, want three", got)
	}

	// Settings (absent, then present) and DICT entries the same way.
	var st pix.Settings
	var ok bool
	read := func() {
		t.Helper()
		if err := s.view(context.Background(), func(tx *Tx) (err error) { st, ok, err = tx.Settings(7); return err }); err != nil {
			t.Fatal(err)
		}
	}
	read()
	read()
	if ok {
		t.Fatal("settings found before any were written")
	}
	update(t, s, func(tx *Tx) error { return tx.PutSettings(7, pix.Settings{Fee: 5}) })
	if read(); !ok || st.Fee != 5 {
		t.Fatalf("settings %+v %v after writing a fee of 5", st, ok)
	}
	for _, bank := range []string{"A", "B"} {
		update(t, s, func(tx *Tx) error { return tx.PutDictEntry(pix.DictEntry{Key: "k@example.org", BankName: bank}) })
		for range 2 {
			var e pix.DictEntry
			if err := s.view(context.Background(), func(tx *Tx) (err error) { e, err = tx.DictEntry("k@example.org"); return err }); err != nil || e.BankName != bank {
				t.Fatalf("DICT entry %+v, %v, want bank %s", e, err, bank)
			}
		}
	}
}

// discardedBatch runs write in a batch of its own that is then discarded: an
// operation that fails after writing.
func discardedBatch(t *testing.T, s *Store, write func(tx *Tx) error) {
	t.Helper()
	release := holdWriter(t, s)
	failed := make(chan error, 1)
	go func() {
		failed <- s.update(context.Background(), func(tx *Tx) error {
			if err := write(tx); err != nil {
				return err
			}
			return errors.New("refused after writing")
		})
	}()
	waitQueued(s, 1)
	release()
	if err := <-failed; err == nil || err.Error() != "refused after writing" {
		t.Fatalf("the failing operation: %v", err)
	}
}

// A read-only transaction reads the store as of its snapshot, even after a
// newer version of the record is cached.
func TestRecordCache_OlderSnapshotReadsItsOwnVersion(t *testing.T) {
	s := storeWithCachedAccount(t, "old") // cached as of the first commit
	olderSnapshotReadsItsOwnVersion(t, s,
		func(name string) error {
			return s.update(context.Background(), func(tx *Tx) error { return tx.PutAccount(cacheAccount(name)) })
		},
		func(tx *Tx) (string, error) { a, err := tx.Account(7); return a.Name, err })
}

// olderSnapshotReadsItsOwnVersion checks that a read-only transaction opened
// while the record was "old" reads "old" after write("new") committed and a
// new read (cached) saw "new".
func olderSnapshotReadsItsOwnVersion(t *testing.T, s *Store, write func(name string) error, read func(tx *Tx) (string, error)) {
	t.Helper()
	inView, resume, done := make(chan struct{}), make(chan struct{}), make(chan string)
	go func() {
		_ = s.view(context.Background(), func(tx *Tx) error {
			close(inView)
			<-resume
			got, err := read(tx)
			if err != nil {
				got = err.Error()
			}
			done <- got
			return nil
		})
	}()
	<-inView
	if err := write("new"); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second read is a hit
		var got string
		if err := s.view(context.Background(), func(tx *Tx) (err error) { got, err = read(tx); return err }); err != nil || got != "new" {
			t.Fatalf("a new read: %q, %v", got, err)
		}
	}
	close(resume)
	if got := <-done; got != "old" {
		t.Fatalf("the older snapshot read %q, want old", got)
	}
}

// After Reset the records are gone, cached or not.
func TestRecordCache_Reset(t *testing.T) {
	s := storeWithCachedAccount(t, "one")
	if err := s.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := accountName(t, s); got != "<none>" {
		t.Fatalf("after reset: %q", got)
	}
}

// In tests every hit is checked against the store, so the suites that use the
// store check the cache too: a wrong entry is an error, not a wrong answer.
func TestRecordCache_VerifiedInTests(t *testing.T) {
	s := storeWithCachedAccount(t, "one")
	s.cache.Store(accountKey(7), s.snaps.commits.Load(), storecache.Entry{Val: cacheAccount("wrong"), Found: true})
	err := s.view(context.Background(), func(tx *Tx) error { _, err := tx.Account(7); return err })
	if err == nil || !strings.Contains(err.Error(), "differs from the store") {
		t.Fatalf("a wrong cached account read as %v", err)
	}
}

// A caller that changes the account it read does not change the cache.
func TestRecordCache_ReadsAreCopies(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutAccount(cacheAccount("one")) })
	for range 2 {
		err := s.view(context.Background(), func(tx *Tx) error {
			a, err := tx.Account(7)
			if err != nil {
				return err
			}
			if len(a.PixKeys) != 1 || a.PixKeys[0].Key != "a@example.org" {
				t.Fatalf("keys %+v", a.PixKeys)
			}
			a.PixKeys[0].Key = "changed@example.org"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// An account's cached list of webhook targets follows every change of a
// target: created, changed and deleted, in later batches and in the same
// batch; another account's targets stay out of it; and a caller that changes
// what it read does not change the cache.
func TestRecordCache_TargetListFollowsWrites(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	urls := func(tx *Tx) []string {
		t.Helper()
		ts, err := tx.WebhookTargets(7)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i, tg := range ts {
			out = append(out, tg.URL)
			ts[i].URL = "changed by the caller"
			if len(tg.Headers) > 0 {
				ts[i].Headers[0].Value = "changed by the caller"
			}
		}
		return out
	}
	read := func(want ...string) {
		t.Helper()
		for range 2 { // the second read is a hit
			var got []string
			if err := s.view(context.Background(), func(tx *Tx) error { got = urls(tx); return nil }); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("targets %q, want %q", got, want)
			}
		}
		if _, cached := s.cache.Lookup(targetsCacheKey(7), s.snaps.commits.Load()); !cached {
			t.Fatal("the list is not cached")
		}
	}
	target := func(id, account int64, url string) webhook.Target {
		return webhook.Target{ID: id, AccountID: account, URL: url, EventType: "pix-out", Active: true,
			Headers: []webhook.Header{{Key: "X-A", Value: "1"}}}
	}
	read()
	update(t, s, func(tx *Tx) error { return tx.PutWebhookTarget(target(1, 7, "https://one")) })
	read("https://one")
	update(t, s, func(tx *Tx) error { return tx.PutWebhookTarget(target(1, 7, "https://one/changed")) })
	read("https://one/changed")
	update(t, s, func(tx *Tx) error { return tx.PutWebhookTarget(target(2, 8, "https://other-account")) })
	read("https://one/changed")
	update(t, s, func(tx *Tx) error {
		if got := urls(tx); len(got) != 1 {
			t.Errorf("in the batch before its write: %q", got)
		}
		if err := tx.PutWebhookTarget(target(3, 7, "https://three")); err != nil {
			return err
		}
		if got := urls(tx); len(got) != 2 {
			t.Errorf("in the batch after its write: %q", got)
		}
		return nil
	})
	read("https://one/changed", "https://three")
	update(t, s, func(tx *Tx) error { return tx.DeleteWebhookTarget(target(1, 7, "https://one/changed")) })
	read("https://three")
}

// A cached balance follows every movement: in later batches and later in the
// same batch.
func TestRecordCache_BalanceFollowsMoves(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutAccount(cacheAccount("one")) })
	move := func(tx *Tx, amount pix.Cents) error {
		_, err := tx.Move(ledger.Entry{From: ledger.WorldPocket, To: ledger.AvailableOf(7), Amount: amount, Ref: "test"})
		return err
	}
	available := func() pix.Cents {
		t.Helper()
		var b pix.Balance
		if err := s.view(context.Background(), func(tx *Tx) (err error) { b, err = tx.Balance(7); return err }); err != nil {
			t.Fatal(err)
		}
		return b.Available
	}
	var want pix.Cents
	for _, amount := range []pix.Cents{100, 250} {
		update(t, s, func(tx *Tx) error { return move(tx, amount) })
		want += amount
		for range 2 { // the second read is a hit
			if got := available(); got != want {
				t.Fatalf("available %d, want %d", got, want)
			}
		}
		if _, cached := s.cache.Lookup(balanceKey(7), s.snaps.commits.Load()); !cached {
			t.Fatal("the balance is not cached")
		}
	}
	update(t, s, func(tx *Tx) error {
		if err := move(tx, 1); err != nil {
			return err
		}
		if b, err := tx.Balance(7); err != nil || b.Available != want+1 {
			t.Errorf("in the batch after its move: %d, %v", b.Available, err)
		}
		return move(tx, 1)
	})
	if got := available(); got != want+2 {
		t.Fatalf("after two moves in one batch: %d, want %d", got, want+2)
	}
}
