package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// fillSpace writes one account with a balance, one transaction (with its
// indexes), a sequence number and a job into s, all with the same ids in
// every workspace.
func fillSpace(t *testing.T, s *Store, amount pix.Cents, due time.Time) {
	t.Helper()
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.PutAccount(pix.Account{ID: 1, Name: s.Workspace()}); err != nil {
			return err
		}
		if _, err := tx.Move(ledger.Entry{From: ledger.WorldPocket, To: ledger.AvailableOf(1), Amount: amount, Ref: "seed"}); err != nil {
			return err
		}
		id, err := tx.NextID("tx")
		if err != nil {
			return err
		}
		if err := tx.PutTransaction(pix.Transaction{ID: id, UUID: "u-" + s.Workspace(), AccountID: 1, Amount: amount,
			ExternalID: "ext", CreatedAt: due.Add(-time.Hour), Status: pix.TxStatusPending, Kind: pix.TxCashOut}); err != nil {
			return err
		}
		return tx.PutJob(agenda.Job{ID: "job-1", Kind: "k", Due: due})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSpaces_Isolated(t *testing.T) {
	ctx := context.Background()
	def := mustOpen(t, "")
	defer def.Close()
	a, b := def.Space("a"), def.Space("b")
	if def.Space("a") != a {
		t.Fatal("Space(a) twice gave two Stores")
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fillSpace(t, def, 100, t0)
	fillSpace(t, a, 200, t0.Add(time.Hour))
	fillSpace(t, b, 300, t0.Add(2*time.Hour))

	for _, c := range []struct {
		s    *Store
		want pix.Cents
		due  time.Time
	}{{def, 100, t0}, {a, 200, t0.Add(time.Hour)}, {b, 300, t0.Add(2 * time.Hour)}} {
		err := c.s.View(ctx, func(tx storage.Tx) error {
			bal, err := tx.Balance(1)
			if err != nil {
				return err
			}
			if bal.Available != c.want {
				t.Errorf("%q: balance %d, want %d", c.s.Workspace(), bal.Available, c.want)
			}
			accts, err := tx.Accounts()
			if err != nil {
				return err
			}
			if len(accts) != 1 || accts[0].Name != c.s.Workspace() {
				t.Errorf("%q: accounts %+v, want its own one", c.s.Workspace(), accts)
			}
			if _, err := tx.TransactionByUUID("u-" + c.s.Workspace()); err != nil {
				t.Errorf("%q: its own transaction: %v", c.s.Workspace(), err)
			}
			for _, other := range []string{"", "a", "b"} {
				if other == c.s.Workspace() {
					continue
				}
				if _, err := tx.TransactionByUUID("u-" + other); !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("%q sees %q's transaction: %v", c.s.Workspace(), other, err)
				}
			}
			txs, total, err := tx.ListTransactions(1, pix.TransactionFilter{From: t0.Add(-48 * time.Hour), To: t0.Add(48 * time.Hour), Page: 1, Size: 10})
			if err != nil {
				return err
			}
			if total != 1 || len(txs) != 1 || txs[0].Amount != c.want {
				t.Errorf("%q: listing %d %+v, want its one transaction", c.s.Workspace(), total, txs)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := c.s.ListJobs(ctx, 10)
		if err != nil || len(jobs) != 1 || !jobs[0].Due.Equal(c.due) {
			t.Errorf("%q: jobs %+v (%v), want one due %v", c.s.Workspace(), jobs, err, c.due)
		}
		if j, ok, err := c.s.NextJob(ctx); err != nil || !ok || !j.Due.Equal(c.due) {
			t.Errorf("%q: next job %+v %v %v", c.s.Workspace(), j, ok, err)
		}
	}

	spaces, err := def.Spaces()
	if err != nil || !slices.Equal(spaces, []string{"a", "b"}) {
		t.Fatalf("Spaces() = %v, %v; want [a b]", spaces, err)
	}

	// Resetting a leaves the default and b as they were; resetting the
	// default leaves a and b.
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	assertAccounts(t, a, 0)
	assertAccounts(t, b, 1)
	assertAccounts(t, def, 1)
	if err := def.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	assertAccounts(t, def, 0)
	assertAccounts(t, b, 1)
	if jobs, _ := b.ListJobs(ctx, 10); len(jobs) != 1 {
		t.Errorf("b's jobs after the default's reset: %+v", jobs)
	}

	if err := def.DropSpace(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if spaces, _ := def.Spaces(); len(spaces) != 0 {
		t.Errorf("after DropSpace(b): spaces %v", spaces)
	}
	assertAccounts(t, def.Space("b"), 0)
}

func assertAccounts(t *testing.T, s *Store, want int) {
	t.Helper()
	err := s.View(context.Background(), func(tx storage.Tx) error {
		accts, err := tx.Accounts()
		if len(accts) != want {
			t.Errorf("workspace %q has %d accounts, want %d", s.Workspace(), len(accts), want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A batch carries operations of several workspaces: each writes under its
// own prefix, and each workspace's agenda hears of its own jobs only.
func TestSpaces_SharedBatches(t *testing.T) {
	ctx := context.Background()
	def := mustOpen(t, "")
	defer def.Close()
	heard := map[string][]time.Time{}
	var mu sync.Mutex
	ids := []string{"a", "b", "c", "d"}
	for _, id := range ids {
		s := def.Space(id)
		s.NotifyScheduled(func(due time.Time) {
			mu.Lock()
			defer mu.Unlock()
			heard[id] = append(heard[id], due)
		})
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for i, id := range ids {
		for n := range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				due := t0.Add(time.Duration(i)*time.Hour + time.Duration(n)*time.Second)
				err := def.Space(id).Update(ctx, func(tx storage.Tx) error {
					return tx.PutJob(agenda.Job{ID: "j" + time.Duration(n).String(), Kind: "k", Due: due})
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	for i, id := range ids {
		jobs, err := def.Space(id).ListJobs(ctx, 0)
		if err != nil || len(jobs) != 50 {
			t.Fatalf("%s: %d jobs (%v), want 50", id, len(jobs), err)
		}
		for _, d := range heard[id] {
			if d.Before(t0.Add(time.Duration(i)*time.Hour)) || !d.Before(t0.Add(time.Duration(i+1)*time.Hour)) {
				t.Errorf("%s heard of a job due %v: another workspace's", id, d)
			}
		}
	}
	if jobs, _ := def.ListJobs(ctx, 0); len(jobs) != 0 {
		t.Errorf("the default workspace lists %d jobs of others", len(jobs))
	}
}

// A data directory reopened finds its workspaces, and their sequences
// continue where they were.
func TestSpaces_Durable(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	var first int64
	_ = s.Space("x").Update(context.Background(), func(tx storage.Tx) (err error) {
		first, err = tx.NextID("tx")
		return err
	})
	fillSpace(t, s.Space("x"), 5, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	if spaces, _ := s.Spaces(); !slices.Equal(spaces, []string{"x"}) {
		t.Fatalf("spaces after reopen: %v", spaces)
	}
	assertAccounts(t, s.Space("x"), 1)
	assertAccounts(t, s, 0)
	var next int64
	_ = s.Space("x").Update(context.Background(), func(tx storage.Tx) (err error) {
		next, err = tx.NextID("tx")
		return err
	})
	if next <= first+1 {
		t.Errorf("sequence after reopen gave %d, not above %d", next, first+1)
	}
}

// A data directory of schema version 4 (the release before workspaces) opens
// with its records as they were and is marked version 5.
func TestSpaces_UpgradeFrom4(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	fillSpace(t, s, 42, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte("4")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	err := s.View(context.Background(), func(tx storage.Tx) error {
		bal, err := tx.Balance(1)
		if err == nil && bal.Available != 42 {
			t.Errorf("balance after the upgrade: %d, want 42", bal.Available)
		}
		txs, total, lerr := tx.ListTransactions(1, pix.TransactionFilter{From: time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Page: 1, Size: 10})
		if lerr != nil || total != 1 || len(txs) != 1 {
			t.Errorf("listing after the upgrade: %d %v %v", total, txs, lerr)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := item.ValueCopy(nil)
		if string(v) != "5" {
			t.Errorf("schema version after the upgrade: %s, want 5", v)
		}
		return nil
	})
}

// Operations of two workspaces in one batch read and write transactions of
// the same numbers: each sees its own, never the other's (the batch's memory
// of decoded transactions is per workspace).
func TestSpaces_SameNumbersInOneBatch(t *testing.T) {
	ctx := context.Background()
	def := mustOpen(t, "")
	defer def.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	amountOf := func(id string, num int64) pix.Cents {
		if id == "b" {
			return pix.Cents(1000 + num)
		}
		return pix.Cents(num)
	}
	for _, id := range []string{"a", "b"} {
		err := def.Space(id).Update(ctx, func(tx storage.Tx) error {
			if err := tx.PutAccount(pix.Account{ID: 1}); err != nil {
				return err
			}
			for num := int64(1); num <= 20; num++ {
				if err := tx.PutTransaction(pix.Transaction{ID: num, AccountID: 1, Amount: amountOf(id, num), CreatedAt: t0,
					UUID: fmt.Sprint(id, num), Status: pix.TxStatusPending, Kind: pix.TxCashOut}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for round := range 10 {
		for _, id := range []string{"a", "b"} {
			for num := int64(1); num <= 20; num++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := def.Space(id).Update(ctx, func(tx storage.Tx) error {
						got, err := tx.Transaction(num)
						if err != nil {
							return err
						}
						if got.Amount != amountOf(id, num) {
							t.Errorf("round %d: workspace %s read transaction %d with amount %d, the other workspace's", round, id, num, got.Amount)
						}
						got.Description = fmt.Sprint(round)
						return tx.PutTransaction(got)
					})
					if err != nil {
						t.Error(err)
					}
				}()
			}
		}
	}
	wg.Wait()
}

// A batch whose every operation was cancelled while it waited runs none of
// them and answers each with its context's error (the batch's Tx then
// belongs to no operation's workspace).
func TestSpaces_BatchOfCancelledOperations(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	release := holdWriter(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 3)
	for _, id := range []string{"a", "b", "c"} {
		go func() {
			errs <- s.Space(id).Update(ctx, func(tx storage.Tx) error { return tx.PutMeta("x", 1) })
		}()
	}
	time.Sleep(50 * time.Millisecond) // the three wait behind the held batch
	cancel()
	release()
	for range 3 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled operation answered %v", err)
		}
	}
	if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("after", 1) }); err != nil {
		t.Fatalf("the writer after a batch of cancelled operations: %v", err)
	}
}

// ImportSpace cuts its writes by bytes as well as by count: records whose
// values together are many times what Badger takes in one transaction all
// arrive, and read back as they were written.
func TestImportSpace_CutsByBytes(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	val := []byte(`"` + strings.Repeat("v", 32<<10) + `"`)
	n := int(s.db.MaxBatchSize()*3) / len(val)
	recs := make([]storage.Record, n)
	for i := range recs {
		recs[i] = storage.Record{Key: "meta/imported/" + itoa(i), Val: val}
	}
	if err := s.ImportSpace(context.Background(), "imp", recs); err != nil {
		t.Fatalf("importing %d records of %d bytes: %v", n, len(val), err)
	}
	got, err := s.Records(context.Background(), "imp")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range got {
		if strings.HasPrefix(r.Key, "meta/imported/") && string(r.Val) == string(val) {
			found++
		}
	}
	if found != n {
		t.Fatalf("%d of %d imported records read back", found, n)
	}
}
