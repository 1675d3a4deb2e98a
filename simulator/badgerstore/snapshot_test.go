package badgerstore

import (
	"context"
	"errors"
	"sync"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

func seedAccount(t *testing.T, s *Store, id pix.AccountID, cents pix.Cents) {
	t.Helper()
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.PutAccount(pix.Account{ID: id}); err != nil {
			return err
		}
		_, err := tx.Move(ledger.Entry{From: ledger.WorldPocket, To: ledger.AvailableOf(id), Amount: cents, Ref: "seed"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func available(t *testing.T, s *Store, id pix.AccountID) pix.Cents {
	t.Helper()
	var b pix.Balance
	if err := s.View(context.Background(), func(tx storage.Tx) (err error) {
		b, err = tx.Balance(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return b.Available
}

func TestSnapshots_SharedUntilACommit(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	seedAccount(t, s, 1, 100)

	a := s.snaps.acquire(s.db)
	b := s.snaps.acquire(s.db)
	if a != b {
		t.Fatal("two reads with no commit between them opened two snapshots")
	}
	s.snaps.release(b)

	if got := available(t, s, 1); got != 100 {
		t.Fatalf("available = %d, want 100", got)
	}
	err := s.Update(context.Background(), func(tx storage.Tx) error {
		_, err := tx.Move(ledger.Entry{From: ledger.AvailableOf(1), To: ledger.WorldPocket, Amount: 30})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// A read after an acknowledged write sees it, while an older reader still
	// holds the snapshot from before it.
	if got := available(t, s, 1); got != 70 {
		t.Fatalf("available after the write = %d, want 70", got)
	}
	c := s.snaps.acquire(s.db)
	if c == a {
		t.Fatal("a read after a commit reused the snapshot from before it")
	}
	if _, err := a.txn.Get(balanceKey(1)); err != nil {
		t.Fatalf("the superseded snapshot was discarded while still read: %v", err)
	}
	s.snaps.release(a)
	if _, err := a.txn.Get(balanceKey(1)); !errors.Is(err, badger.ErrDiscardedTxn) {
		t.Fatalf("the superseded snapshot's last reader left it open: %v", err)
	}
	s.snaps.release(c)
}

// Readers racing writers never see a balance older than one they were told
// was written, and every read is internally consistent (balance = journal).
func TestSnapshots_ReadYourWritesUnderConcurrency(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	const start, writers, each = 100000, 4, 50
	seedAccount(t, s, 1, start)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				var after pix.Cents
				if err := s.Update(ctx, func(tx storage.Tx) error {
					_, err := tx.Move(ledger.Entry{From: ledger.AvailableOf(1), To: ledger.WorldPocket, Amount: 1})
					if err != nil {
						return err
					}
					b, err := tx.Balance(1)
					after = b.Available
					return err
				}); err != nil {
					t.Error(err)
					return
				}
				if got := available(t, s, 1); got > after {
					t.Errorf("read %d after a write left %d: the write is missing", got, after)
					return
				}
			}
		}()
	}
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if err := s.View(ctx, func(tx storage.Tx) error {
					b, err := tx.Balance(1)
					if err != nil {
						return err
					}
					var moved pix.Cents
					if err := tx.Journal(1, func(e ledger.Entry) error {
						if e.To.Account == 1 {
							moved += e.Amount
						} else {
							moved -= e.Amount
						}
						return nil
					}); err != nil {
						return err
					}
					if moved != b.Available {
						t.Errorf("one snapshot read balance %d and journal total %d", b.Available, moved)
					}
					return nil
				}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := available(t, s, 1); got != start-writers*each {
		t.Fatalf("available = %d, want %d", got, start-writers*each)
	}
}
