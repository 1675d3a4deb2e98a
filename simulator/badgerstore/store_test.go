package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

func mustOpen(tb testing.TB, dir string) *Store {
	tb.Helper()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestStore_Move(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	err := s.Update(ctx, func(tx storage.Tx) error {
		for _, id := range []pix.AccountID{1, 2} {
			if err := tx.PutAccount(pix.Account{ID: id}); err != nil {
				return err
			}
		}
		_, err := tx.Move(ledger.Entry{From: ledger.WorldPocket, To: ledger.AvailableOf(1), Amount: 1000, Ref: "seed"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx storage.Tx) error {
		_, err := tx.Move(ledger.Entry{From: ledger.AvailableOf(1), To: ledger.AvailableOf(2), Amount: 1001})
		return err
	})
	if !errors.Is(err, ledger.ErrInsufficient) {
		t.Fatalf("overdraw: err = %v, want ErrInsufficient", err)
	}

	// 50 concurrent transfers of 10 from 1 to 2: all conflict on account 1 and
	// must all apply exactly once.
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Update(ctx, func(tx storage.Tx) error {
				_, err := tx.Move(ledger.Entry{From: ledger.AvailableOf(1), To: ledger.AvailableOf(2), Amount: 10})
				return err
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	err = s.View(ctx, func(tx storage.Tx) error {
		b1, _ := tx.Balance(1)
		b2, _ := tx.Balance(2)
		if b1.Available != 500 || b2.Available != 500 {
			t.Errorf("balances = %+v, %+v; want 500 each", b1, b2)
		}
		for _, id := range []pix.AccountID{1, 2} {
			var entries []ledger.Entry
			if err := tx.Journal(id, func(e ledger.Entry) error { entries = append(entries, e); return nil }); err != nil {
				return err
			}
			got, err := ledger.ReplayAccount(id, entries)
			if err != nil {
				return err
			}
			if want, _ := tx.Balance(id); got != want {
				t.Errorf("account %d: replayed %+v, stored %+v", id, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestStore_Jobs(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, j := range []agenda.Job{
		{ID: "c", Kind: "k", Due: t0.Add(3 * time.Second)},
		{ID: "a", Kind: "k", Due: t0.Add(1 * time.Second)},
		{ID: "b", Kind: "k", Due: t0.Add(1 * time.Second)},
	} {
		if err := s.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	// Rescheduling "a" later removes its old position.
	if err := s.PutJob(ctx, agenda.Job{ID: "a", Kind: "k", Due: t0.Add(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	jobs, err := s.ListJobs(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids string
	for _, j := range jobs {
		ids += j.ID
	}
	if ids != "bca" {
		t.Fatalf("due order = %q, want %q", ids, "bca")
	}
	next, ok, err := s.NextJob(ctx)
	if err != nil || !ok || next.ID != "b" {
		t.Fatalf("NextJob = %v, %v, %v", next, ok, err)
	}
	// A version other than the pending one neither deletes nor replaces it
	// (a job rescheduled while it ran keeps its new version).
	stale := next
	stale.Attempts++
	if err := s.MarkDone(ctx, stale, t0); err != nil {
		t.Fatal(err)
	}
	if replaced, err := s.ReplaceJob(ctx, stale, agenda.Job{ID: "b", Kind: "other", Due: t0}); err != nil || replaced {
		t.Fatalf("ReplaceJob(stale) = %v, %v", replaced, err)
	}
	if cur, ok, _ := s.GetJob(ctx, "b"); !ok || !agenda.SameJob(cur, next) {
		t.Fatalf("pending b = %+v, %v after stale writes", cur, ok)
	}
	moved := next
	moved.Due = t0.Add(9 * time.Second)
	if replaced, err := s.ReplaceJob(ctx, next, moved); err != nil || !replaced {
		t.Fatalf("ReplaceJob = %v, %v", replaced, err)
	}
	if first, _, _ := s.NextJob(ctx); first.ID != "c" {
		t.Fatalf("after moving b, NextJob = %s (its old due position must go)", first.ID)
	}
	if err := s.MarkDone(ctx, moved, t0); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetJob(ctx, "b"); ok {
		t.Fatal("done job still pending")
	}
	if ranAt, ok, err := s.DoneJob(ctx, "b"); err != nil || !ok || !ranAt.Equal(t0) {
		t.Fatalf("DoneJob = %v, %v, %v", ranAt, ok, err)
	}
	if err := s.DeleteJob(ctx, "missing"); err != nil {
		t.Fatalf("DeleteJob(missing) = %v", err)
	}
}

// PutNewJob schedules a job like PutJob; in a test binary it refuses an id
// that a pending job has, unless the same operation removed that job first.
func TestStore_PutNewJob(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	put := func(fn func(*Tx) error) error {
		return s.Update(ctx, func(tx storage.Tx) error { return fn(tx.(*Tx)) })
	}
	if err := put(func(tx *Tx) error { return tx.PutNewJob(agenda.Job{ID: "n", Kind: "k", Due: t0}) }); err != nil {
		t.Fatal(err)
	}
	if j, ok, err := s.GetJob(ctx, "n"); err != nil || !ok || !j.Due.Equal(t0) {
		t.Fatalf("GetJob = %+v, %v, %v", j, ok, err)
	}
	err := put(func(tx *Tx) error { return tx.PutNewJob(agenda.Job{ID: "n", Kind: "k", Due: t0.Add(time.Second)}) })
	if err == nil || !strings.Contains(err.Error(), "job n is pending") {
		t.Fatalf("PutNewJob of a pending id = %v, want refused", err)
	}
	if err := put(func(tx *Tx) error {
		if err := tx.DeleteJob("n"); err != nil {
			return err
		}
		return tx.PutNewJob(agenda.Job{ID: "n", Kind: "k", Due: t0.Add(2 * time.Second)})
	}); err != nil {
		t.Fatalf("PutNewJob after DeleteJob in the same operation: %v", err)
	}
	jobs, err := s.ListJobs(ctx, 0)
	if err != nil || len(jobs) != 1 || !jobs[0].Due.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("jobs = %+v, %v; want n once, at its last due time", jobs, err)
	}
}

func TestStore_Durable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.PutAccount(pix.Account{ID: 7, Name: "x"}); err != nil {
			return err
		}
		if _, err := tx.Move(ledger.Entry{From: ledger.WorldPocket, To: ledger.AvailableOf(7), Amount: 4242}); err != nil {
			return err
		}
		return tx.PutJob(agenda.Job{ID: "j", Kind: "k", Due: time.Unix(100, 0).UTC()})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	err = s.View(ctx, func(tx storage.Tx) error {
		b, err := tx.Balance(7)
		if err != nil || b.Available != 4242 {
			t.Errorf("after reopen balance = %+v, %v", b, err)
		}
		if _, err := tx.Account(8); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("missing account err = %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetJob(ctx, "j"); !ok {
		t.Fatal("job lost across reopen")
	}
}

// DeliveriesAfterAttempt follows attempt ids: a retry of an old delivery comes
// after a newer delivery's first attempt, each delivery once, by account.
func TestStore_DeliveriesAfterAttempt(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	put := func(d webhook.Delivery) {
		t.Helper()
		if err := s.Update(ctx, func(tx storage.Tx) error { return tx.PutDelivery(d) }); err != nil {
			t.Fatal(err)
		}
	}
	after := func(a pix.AccountID, id int64, limit int) (ids []string) {
		t.Helper()
		if err := s.View(ctx, func(tx storage.Tx) error {
			ds, err := tx.DeliveriesAfterAttempt(a, id, limit)
			for _, d := range ds {
				ids = append(ids, d.ID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	old := webhook.Delivery{ID: "dlv_old", AccountID: 1, CreatedAt: at, Attempts: []webhook.Attempt{{ID: 1, Number: 1}}}
	put(old)
	put(webhook.Delivery{ID: "dlv_new", AccountID: 2, CreatedAt: at.Add(time.Minute), Attempts: []webhook.Attempt{{ID: 2, Number: 1}}})
	old.Attempts = append(old.Attempts, webhook.Attempt{ID: 3, Number: 2}) // a retry of the old one
	put(old)
	for _, c := range []struct {
		acct  pix.AccountID
		after int64
		limit int
		want  string
	}{
		{0, 0, 0, "dlv_old dlv_new"}, // dlv_old's first attempt (1) comes first
		{0, 1, 0, "dlv_new dlv_old"}, // after 1: attempt 2 (new), then the retry 3 (old)
		{0, 2, 0, "dlv_old"},
		{0, 3, 0, ""},
		{1, 1, 0, "dlv_old"},
		{0, 1, 1, "dlv_new"},
	} {
		if got := strings.Join(after(c.acct, c.after, c.limit), " "); got != c.want {
			t.Errorf("after attempt %d (account %d, limit %d) = %q, want %q", c.after, c.acct, c.limit, got, c.want)
		}
	}
}

// Writes are synced with each batch unless NoSync (--sync=false) or
// SyncEvery (--sync=100ms) says otherwise; in every mode, a store closed
// cleanly keeps everything it acknowledged.
func TestOpen_SyncOption(t *testing.T) {
	for _, c := range []struct {
		name       string
		o          Options
		syncWrites bool
	}{
		{"each batch", Options{}, true},
		{"never", Options{NoSync: true}, false},
		{"every 50ms", Options{SyncEvery: 50 * time.Millisecond}, false},
		{"never wins over an interval", Options{NoSync: true, SyncEvery: time.Second}, false},
	} {
		c.o.Dir = t.TempDir()
		s, err := Open(c.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.db.Opts().SyncWrites; got != c.syncWrites {
			t.Fatalf("%s: Badger SyncWrites %v, want %v", c.name, got, c.syncWrites)
		}
		if got, want := s.syncer != nil, c.o.SyncEvery > 0 && !c.o.NoSync; got != want {
			t.Fatalf("%s: a syncer runs: %v, want %v", c.name, got, want)
		}
		if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("kept", 1) }); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = mustOpen(t, c.o.Dir)
		if v, ok := meta(t, s, "kept"); !ok || v != 1 {
			t.Fatalf("%s: after reopening, kept = %d, %v", c.name, v, ok)
		}
		s.Close()
	}
}

// The syncer syncs the logs once a commit happened since its last sync, and
// not while nothing is committed; its ticker drives it without a request.
func TestSyncer_SyncsOnlyAfterCommits(t *testing.T) {
	s, err := Open(Options{Dir: t.TempDir(), SyncEvery: time.Hour}) // the test drives it
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	y := s.syncer
	synced := s.snaps.commits.Load()
	if got := y.syncSince(synced); got != synced || y.syncs.Load() != 0 {
		t.Fatalf("with no commit: synced %d (want %d), %d syncs (want 0)", got, synced, y.syncs.Load())
	}
	if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("kept", 1) }); err != nil {
		t.Fatal(err)
	}
	now := s.snaps.commits.Load()
	if got := y.syncSince(synced); got != now || y.syncs.Load() != 1 {
		t.Fatalf("after a commit: synced %d (want %d), %d syncs (want 1)", got, now, y.syncs.Load())
	}
	if got := y.syncSince(now); got != now || y.syncs.Load() != 1 {
		t.Fatalf("nothing committed since: synced %d, %d syncs (want 1)", got, y.syncs.Load())
	}

	// The ticker: a short interval syncs a commit on its own.
	fast, err := Open(Options{Dir: t.TempDir(), SyncEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	if err := fast.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("kept", 1) }); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // wall time: a bound on the wait, not a timing check
	for fast.syncer.syncs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no sync within 10 s of a commit at a 1 ms interval")
		}
		time.Sleep(time.Millisecond)
	}
}

// parseNum reads back what num writes, and nothing of another width or with a
// character that is not a digit.
// num writes what fmt's %020d wrote before it, so keys of existing data dirs
// keep their order and their lookups.
func TestNum(t *testing.T) {
	for _, n := range []int64{0, 1, 9, 10, 99, 1e9, 1772452802000000000, math.MaxInt64 - 1, math.MaxInt64} {
		if got, want := num(n), fmt.Sprintf("%020d", n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
	if got := num(-5); got != num(0) {
		t.Errorf("num(-5) = %q, want it clamped to %q", got, num(0))
	}
}

func TestParseNum(t *testing.T) {
	for _, n := range []int64{0, 1, 1772452802000000000, math.MaxInt64} {
		if got, ok := parseNum([]byte(num(n))); !ok || got != n {
			t.Errorf("parseNum(num(%d)) = %d, %v", n, got, ok)
		}
	}
	for _, bad := range []string{"", "123", num(7) + "0", "0000000000000000000x", "-0000000000000000001", "+0000000000000000001", "99999999999999999999"} {
		if n, ok := parseNum([]byte(bad)); ok {
			t.Errorf("parseNum(%q) = %d, want a refusal", bad, n)
		}
	}
	if got := parseTrailingNum([]byte("tx/" + num(42))); got != 42 {
		t.Errorf("parseTrailingNum = %d, want 42", got)
	}
}
