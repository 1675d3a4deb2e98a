package simulator

import (
	"context"
	"sync"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// accountStripes is how many locks the accounts share.
const accountStripes = 64

// accountLocks serialise the client-request writes of one account (cash-outs,
// transfers, charges). Concurrent requests of one account all write its
// balance and its listing counters, so in Badger they conflict and redo their
// work; queued behind a lock they commit one after another, while requests of
// other accounts still share Badger's group commits. Correctness never depends
// on the lock: Badger's conflict detection still guards every transaction
// (jobs and control-plane writes do not take it).
type accountLocks [accountStripes]sync.Mutex

// updateAccount runs fn in a store transaction holding account id's lock.
func (s *Simulator) updateAccount(ctx context.Context, id pix.AccountID, fn func(storage.Tx) error) error {
	m := &s.accountLocks[uint64(id)%accountStripes]
	m.Lock()
	defer m.Unlock()
	return s.store.Update(ctx, fn)
}
