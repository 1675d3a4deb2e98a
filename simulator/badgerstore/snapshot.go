package badgerstore

import (
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
)

// snapshots lets concurrent read-only transactions share one Badger read
// transaction while nothing has been committed since it was opened.
//
// Opening a Badger transaction registers its read timestamp with the read
// watermark: a channel send made under the oracle's lock, answered by one
// goroutine. Under a read-heavy load on one core the senders queue behind
// that goroutine, which is where balance reads spent their tail latency.
// A snapshot opened after the last commit sees exactly what a new transaction
// would, so readers reuse it until the next commit; then the next reader opens
// a fresh one and the old one is discarded when its last reader is done.
//
// Read-your-writes holds: Store.update bumps the commit count before it
// returns, so a read that starts after a write was acknowledged opens (or
// shares) a snapshot that contains it. A read-only Badger transaction is safe
// for concurrent Get and NewIterator: neither writes the transaction's state
// except the atomic iterator count.
type snapshots struct {
	commits atomic.Uint64 // successful commits so far

	mu  sync.Mutex
	cur *snapshot
}

type snapshot struct {
	txn     *badger.Txn
	commits uint64 // the commit count when it was opened
	readers int    // guarded by snapshots.mu
}

// acquire returns a snapshot at least as new as the last commit counted.
func (s *snapshots) acquire(db *badger.DB) *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.commits.Load()
	if c := s.cur; c != nil && c.commits == n {
		c.readers++
		return c
	}
	if c := s.cur; c != nil && c.readers == 0 {
		c.txn.Discard()
	}
	// Counted before the transaction opens: a commit in between makes the
	// snapshot newer than its count says, never older.
	s.cur = &snapshot{txn: db.NewTransaction(false), commits: n, readers: 1}
	return s.cur
}

// release ends one reader's use; the last reader of a superseded snapshot
// discards it.
func (s *snapshots) release(sn *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn.readers--
	if sn.readers == 0 && s.cur != sn {
		sn.txn.Discard()
	}
}

// committed records a commit; called before the writer returns.
func (s *snapshots) committed() { s.commits.Add(1) }

// refresh opens the snapshot of the commit just counted, so that readers
// find it ready. The writer calls it after each commit and before answering:
// no commit of its own is then under way, so opening the Badger transaction
// does not wait (a Badger read transaction opened while a commit is being
// written waits for that commit's sync), and readers never open one
// themselves while the next batch syncs: reads do not wait behind writes.
func (s *snapshots) refresh(db *badger.DB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cur; c != nil && c.readers == 0 {
		c.txn.Discard()
	}
	s.cur = &snapshot{txn: db.NewTransaction(false), commits: s.commits.Load()}
}

// close discards the current snapshot, if idle; called before the database
// closes.
func (s *snapshots) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.cur; c != nil && c.readers == 0 {
		c.txn.Discard()
		s.cur = nil
	}
}
