package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecache"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Options configure Open.
type Options struct {
	// Dir is the data directory; empty means in memory (nothing survives Close).
	Dir string
	// Logger receives Badger's warnings and errors; nil discards them.
	Logger *slog.Logger
	// NoSync commits without syncing to disk (--sync=false): a killed
	// process loses nothing (the writes are in the page cache), a power loss
	// may lose the last acknowledged writes. For throwaway runs only.
	NoSync bool
	// SyncEvery, when positive (and NoSync is not set), replaces the sync of
	// each batch by a sync of the store's logs at that interval of wall time
	// (serve --sync=100ms; syncer.go): a batch is answered once written to
	// the page cache, so a killed process still loses nothing, and a power
	// loss may lose what was acknowledged since the last sync.
	SyncEvery time.Duration
	// Memory is the server's memory budget (serve --memory-limit); it sizes
	// the memtables kept and the caches (memoryOptions). 0 takes
	// DefaultMemory.
	Memory int64
}

// DefaultMemory is the memory budget a Store is sized for by default.
const DefaultMemory = 1 << 30

// memoryOptions sizes what Badger keeps in memory from the budget. From
// 512 MiB (the default budget is 1 GiB): 16 MiB memtables, at most 5 at once
// (the one written and those waiting for their flush; each an arena on Go's
// heap plus a log file mapped into the process), 12 MiB tables compressed
// with Snappy, writes stalled at 15 level-0 tables. Under 512 MiB, a lean
// profile: 8 MiB memtables, at most 3, Badger's 2 MiB tables, a stall at 10,
// and tables not compressed: a compaction builds each table in buffers of
// two to eight times its size, several at once, and compressing made every
// block built or read a buffer of its own (half of the heap in use at the
// peaks of a profile under pixload's write routes). The lean profile keeps
// the heap in use under Go's soft limit at 256 MiB, but sustained writes
// then stall for up to a second every 25 to 30 s of 1,000 writes a second
// (open-loop, docs/performance.md, "Memory budget"). The block cache is a
// sixty-fourth of the budget, the index cache a 128th, at least 8 and 4 MiB.
func memoryOptions(opts badger.Options, budget int64) badger.Options {
	if budget <= 0 {
		budget = DefaultMemory
	}
	memtables, memtable, table, stall, compression := 3, int64(8<<20), int64(2<<20), 10, options.None
	if budget >= 512<<20 {
		memtables, memtable, table, stall, compression = 5, 16<<20, 12<<20, 15, options.Snappy
	}
	return opts.WithMemTableSize(memtable).WithNumMemtables(memtables).WithBaseTableSize(table).WithNumLevelZeroTablesStall(stall).
		WithCompression(compression).
		WithBlockCacheSize(max(budget/64, 8<<20)).WithIndexCacheSize(max(budget/128, 4<<20))
}

// Store is a storage.Store over Badger: one workspace's keys (space.go).
// Open returns the default workspace's, whose keys carry no prefix; Space
// returns another workspace's, over the same database, caches and writer.
type Store struct {
	*engine
	// pre is the workspace's key prefix: empty for the default workspace,
	// "w/<id>/" for another (spacePrefix).
	pre    []byte
	id     string
	floor  jobFloor
	onJobs atomic.Pointer[func(due time.Time)] // agenda.Notifier
	// activity is what the workspace's committed writes did (activity.go).
	activity activity
}

// engine is what every workspace's Store shares: the database, its
// sequences, snapshots, caches and the single writer.
type engine struct {
	db     *badger.DB
	seqs   *sequences
	snaps  snapshots
	cache  storecache.Records // accounts, settings, DICT entries, target lists (cache.go)
	recent storecache.Recent  // transactions and jobs just written (recent.go)
	writer *writer
	// syncer syncs the logs at an interval (Options.SyncEvery); nil when
	// each batch is synced, or never.
	syncer *syncer

	spacesMu sync.Mutex
	spaces   map[string]*Store // the workspaces' Stores handed out (Space)
	// retired is the activity of the workspaces dropped since the store
	// opened (DropSpace), kept so ServerActivity only grows.
	retired activity
	// root is the default workspace's Store (the one Open returns).
	root *Store
}

var _ storage.Store = (*Store)(nil)

// Open opens (creating when needed) the database and starts its writer. With a
// directory, writes are synced to disk before a batch commits (SyncWrites), so
// whatever the simulator acknowledged survives a crash. The writer is the only
// writer of records, so Badger's conflict detection is off.
func Open(o Options) (*Store, error) {
	var opts badger.Options
	if o.Dir == "" {
		opts = badger.DefaultOptions("").WithInMemory(true)
	} else {
		opts = badger.DefaultOptions(o.Dir).WithSyncWrites(!o.NoSync && o.SyncEvery <= 0)
	}
	opts = opts.WithDetectConflicts(false)
	// Badger's warnings and errors go to the server's log (badgerLogger);
	// WithLoggingLevel is not called after it, as it replaces the logger
	// with Badger's own, which writes to stderr.
	opts = opts.WithLogger(badgerLogger{o.Logger})
	// Small tables and caches: a sandbox holds little data and should start
	// fast, and stays within its memory budget.
	opts = memoryOptions(opts, o.Memory).WithValueLogFileSize(64 << 20).WithNumCompactors(2)
	// A base level of 64 MiB, against Badger's 10 MiB: under sustained
	// writes (a load run writes hundreds of megabytes) the levels below the
	// level-0 tables fill more slowly, so fewer compactions rewrite them and
	// take the core from requests (docs/performance-log.md, "A larger base level"). Its
	// tables' size is set by the memory budget (memoryOptions).
	opts = opts.WithBaseLevelSize(64 << 20)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open badger at %q: %w", o.Dir, err)
	}
	e := &engine{db: db, seqs: &sequences{db: db, seqs: map[string]*badger.Sequence{}}, writer: newWriter(), spaces: map[string]*Store{}}
	s := &Store{engine: e}
	e.root = s
	go e.runWriter()
	if o.Dir != "" && !o.NoSync && o.SyncEvery > 0 {
		e.syncer = startSyncer(e, o.SyncEvery, o.Logger)
	}
	if err := s.upgrade(context.Background()); err != nil {
		s.writer.stop()
		e.syncer.stop()
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close lets the writer finish the operations submitted, returns unused
// sequence numbers, flushes and closes the database. On a workspace's Store
// (Space) it does nothing: the default workspace's Store owns the database.
func (s *Store) Close() error {
	if len(s.pre) > 0 {
		return nil
	}
	s.writer.stop()
	s.syncer.stop()
	err := s.seqs.release()
	s.snaps.close()
	if cerr := s.db.Close(); cerr != nil {
		return cerr
	}
	return err
}

// Reset drops every key of the workspace, as in a new data directory (the
// schema version is written again); other workspaces keep theirs. It runs on
// the writer between two batches: operations submitted before it commit
// first, those after it see the empty workspace.
func (s *Store) Reset(ctx context.Context) error {
	return s.writer.submit(&op{ctx: ctx, store: s, exclusive: s.reset})
}

func (s *Store) reset() error {
	if err := s.seqs.releasePrefix(s.pre); err != nil {
		return fmt.Errorf("store: release sequences: %w", err)
	}
	prefixes, err := s.ownPrefixes()
	if err != nil {
		return err
	}
	if len(prefixes) > 0 {
		if err := s.db.DropPrefix(prefixes...); err != nil {
			return fmt.Errorf("store: drop workspace keys: %w", err)
		}
	}
	s.floor.lower(0)
	s.activity.reset()
	s.cache.Reset(s.snaps.commits.Load() + 1)
	s.recent.Reset(s.snaps.commits.Load() + 1)
	if len(s.pre) == 0 {
		err = s.writeSchemaVersion()
	}
	s.snaps.committed()
	s.snaps.refresh(s.db)
	return err
}

// Update runs fn as one operation of the writer's next batch (see writer) and
// returns once the batch is durable. fn may run more than once; only the
// writes of its last run commit.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.update(ctx, func(t *Tx) error { return fn(t) })
}

// View runs fn in a read-only transaction.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.view(ctx, func(t *Tx) error { return fn(t) })
}

func (s *Store) update(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.writer.submit(&op{ctx: ctx, store: s, fn: fn})
}

// Tx is one Badger transaction; it implements storage.Tx.
type Tx struct {
	txn *badger.Txn
	// store is the workspace of the operation running: a batch's Tx serves
	// operations of several workspaces, one after another (writer.round).
	store *Store
	at    uint64 // the commit count of the store this Tx reads (snapshots)
	// putJobs and minJobDue record the jobs this transaction scheduled, for
	// the store's jobFloor once it commits.
	putJobs   bool
	minJobDue int64
	// writes counts the writes attempted and bytes their size, for the
	// writer (an operation that failed after writing; the batch bound).
	writes int
	bytes  int
	// base, in a batch of the writer, is a read-only snapshot of the store
	// as the batch found it, and written the keys the batch wrote so far:
	// an iteration under a prefix the batch has not written reads base (see
	// newIterator). nil in a read-only Tx. snap is the shared snapshot base
	// belongs to, released by releaseBase.
	base    *badger.Txn
	snap    *snapshot
	written [][]byte
	// txs holds the transactions this Tx read or wrote, decoded (remember),
	// and newTxs the transaction numbers it drew (NextID).
	txs    map[txRef]pix.Transaction
	newTxs map[txRef]bool
	// recentWrites lists this batch's writes of the kinds the recent cache
	// keeps, in order.
	recentWrites []storecache.Write
	// jobWrites lists, in order, what the running operation did to jobs:
	// completed one (CompleteJob) or put or deleted one, for agenda.Committed
	// once it commits, and removed one (removedJob).
	jobWrites []jobWrite
	// tallies lists what the running operation adds to its workspace's
	// activity once it commits (activity.go).
	tallies []tally
}

type jobWrite struct {
	id        string
	completed bool // its last word on the job was a completion (for agenda.Committed)
	removed   bool // no job of that id is pending after it
}

// newIterator opens an iterator for opt. In a batch, a Badger read-write
// transaction sorts all its pending writes for every iterator it opens, which
// made iterations in a large batch cost more the larger the batch; where the
// batch wrote nothing under opt.Prefix the snapshot it started from has the
// same keys, so the iterator reads that instead.
func (t *Tx) newIterator(opt badger.IteratorOptions) *iterator {
	opt.Prefix = t.full(opt.Prefix)
	it := &iterator{pre: t.store.pre}
	if t.base != nil && len(opt.Prefix) > 0 && !t.wroteUnder(opt.Prefix) {
		it.Iterator = t.base.NewIterator(opt)
	} else {
		it.Iterator = t.txn.NewIterator(opt)
	}
	return it
}

// wroteUnder reports whether the batch wrote a key under prefix (a full key,
// its workspace's prefix included).
func (t *Tx) wroteUnder(prefix []byte) bool {
	for _, k := range t.written {
		if bytes.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

var _ storage.Tx = (*Tx)(nil)

func (t *Tx) get(key []byte, v any) (bool, error) {
	if recentKind(key) {
		val, found, err := t.getRecent(key)
		if err != nil || !found {
			return false, err
		}
		return true, storecodec.Decode(val, v)
	}
	item, err := t.txn.Get(t.full(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, item.Value(func(b []byte) error { return storecodec.Decode(b, v) })
}

func (t *Tx) mustGet(key []byte, v any) error {
	ok, err := t.get(key, v)
	if err != nil {
		return err
	}
	if !ok {
		return storage.ErrNotFound
	}
	return nil
}

func (t *Tx) put(key []byte, v any) error {
	b, err := storecodec.Encode(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return t.set(key, b)
}

// set and del are the only writes of a Tx. key is the workspace's key (no
// prefix); the caches and Badger see it with the prefix.
func (t *Tx) set(key, val []byte) error {
	full := t.full(key)
	t.writes++
	if t.base != nil {
		t.written = append(t.written, full)
	}
	t.bytes += len(full) + len(val)
	t.mark(key)
	t.markRecent(key, storecache.Write{Key: full, Val: val})
	return t.txn.Set(full, val)
}

func (t *Tx) del(key []byte) error {
	full := t.full(key)
	t.writes++
	if t.base != nil {
		t.written = append(t.written, full)
	}
	t.bytes += len(full)
	t.mark(key)
	t.markRecent(key, storecache.Write{Key: full, Deleted: true})
	return t.txn.Delete(full)
}

// mark tells the record cache that this batch's commit writes key.
func (t *Tx) mark(key []byte) {
	if k := cacheKeyOf(key); k != nil {
		t.store.cache.Wrote(t.full(k), t.at+1)
	}
}

// scan calls fn for each key under prefix, in key order, until fn returns stop.
func (t *Tx) scan(prefix []byte, fn func(key, val []byte) (stop bool, err error)) error {
	it := t.newIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		val, err := it.Item().ValueCopy(nil)
		if err != nil {
			return err
		}
		stop, err := fn(bytes.Clone(it.Key()), val)
		if err != nil || stop {
			return err
		}
	}
	return nil
}

// Meta reads a metadata value.
func (t *Tx) Meta(key string, v any) (bool, error) { return t.get(metaKey(key), v) }

// PutMeta writes a metadata value.
func (t *Tx) PutMeta(key string, v any) error { return t.put(metaKey(key), v) }

// badgerLogger passes Badger's warnings and errors to the server's log,
// marked component=badger, and drops its info and debug lines (one per
// compaction and memtable flush).
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, a ...any) {
	if b.l != nil {
		b.l.Error(fmt.Sprintf(f, a...), "component", "badger")
	}
}
func (b badgerLogger) Warningf(f string, a ...any) {
	if b.l != nil {
		b.l.Warn(fmt.Sprintf(f, a...), "component", "badger")
	}
}
func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}
