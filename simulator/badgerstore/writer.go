package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
)

// Batch bounds. A batch takes every operation waiting when it starts, up to
// maxBatchOps, and is cut short once its writes pass maxBatchBytes (the rest
// wait for the next batch). Badger refuses a transaction above 15% of the
// memtable (ErrTxnTooBig): 1.26 MB with the 8 MiB memtables of the default
// budget, 2.5 MB with 16 MiB ones. An operation that does not fit beside
// the others of its batch commits after them, alone if need be (round).
const (
	maxBatchOps   = 512
	maxBatchBytes = 1 << 20
)

// ErrClosed is returned for an operation submitted after Close.
var ErrClosed = errors.New("store: closed")

// writer is the store's single writer. Every read-write transaction is an
// operation submitted to it; one goroutine takes whatever operations are
// waiting, runs them one after another in one Badger transaction (each sees
// the writes of those before it) and commits them together: one sync for the
// whole batch, then every caller of the batch is answered. Since nothing else
// writes records, operations never conflict, and nothing needs to lock. The
// writes of the agenda's jobs wait in a line of their own, and a batch that
// takes client writes takes a bounded share of them (collect).
//
// An operation that fails contributes no writes and does not affect the others
// of its batch. Most failures (business refusals) happen before an operation
// writes anything, and cost nothing more. An operation that fails after
// writing leaves writes in the shared Badger transaction that cannot be taken
// out one by one, so the transaction is discarded and the operations that had
// succeeded before it run again in a fresh one: operations are free of side
// effects outside their Tx (the contract of storage.Store.Update), so running
// one again is safe.
type writer struct {
	ops  chan *op // client writes
	jobs chan *op // writes of the agenda's jobs (agenda.IsJob)
	quit chan struct{}
	done chan struct{}

	// The writer's counts (WriterStats), moved together under statsMu so that
	// a reader sees every batch counted in all of them or in none.
	statsMu            sync.Mutex
	commits, committed int64     // batch commits, and the operations they carried
	apply, commit      durations // per commit: running its operations, and Badger's write and sync

	mu     sync.RWMutex // guards closed against submissions racing Close
	closed bool
}

// op is one operation and where its answer goes.
type op struct {
	ctx context.Context
	// store is the workspace the operation acts on (Tx.store while it runs).
	store *Store
	// putJobs and minJobDue are the jobs fn's last run scheduled (Tx), for
	// the workspace's jobFloor and notifier once the batch commits.
	putJobs   bool
	minJobDue int64
	fn        func(*Tx) error
	// exclusive, when set, runs alone between batches instead of fn (Reset).
	exclusive func() error
	ran       bool       // fn succeeded once: a replay runs it regardless of ctx
	jobWrites []jobWrite // of fn's last run (Tx.jobWrites)
	tallies   []tally    // of fn's last run (Tx.tallies), for the workspace's activity
	job       bool       // submitted by a job's handler (agenda.IsJob)
	err       error
	answered  chan struct{}
}

func (o *op) answer(err error) {
	o.err = err
	close(o.answered)
}

func newWriter() *writer {
	return &writer{ops: make(chan *op, maxBatchOps), jobs: make(chan *op, maxBatchOps), quit: make(chan struct{}), done: make(chan struct{})}
}

// submit hands o to the writer, in turn when o is the first write of a job
// of a group (agenda.InTurn), and waits for its answer. Once the writer has
// taken an operation, the caller waits for the outcome even if its context
// ends meanwhile: an operation that committed is never reported as failed.
func (w *writer) submit(o *op) error {
	o.answered = make(chan struct{})
	o.job = o.exclusive == nil && agenda.IsJob(o.ctx)
	var err error
	agenda.InTurn(o.ctx, func() { err = w.enqueue(o) })
	if err != nil {
		return err
	}
	<-o.answered
	return o.err
}

func (w *writer) enqueue(o *op) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return ErrClosed
	}
	ch := w.ops
	if o.job {
		ch = w.jobs
	}
	select {
	case ch <- o:
		return nil
	case <-o.ctx.Done():
		return o.ctx.Err()
	}
}

// stop lets the writer finish the operations already submitted, refuses new
// ones and waits for the writer to exit.
func (w *writer) stop() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return
	}
	w.closed = true
	close(w.quit)
	w.mu.Unlock()
	<-w.done
}

// run is the writer goroutine.
func (s *engine) runWriter() {
	w := s.writer
	defer close(w.done)
	batch := make([]*op, 0, maxBatchOps)
	for {
		var first *op
		select {
		case first = <-w.ops:
		case first = <-w.jobs:
		case <-w.quit:
			// Submissions stopped before quit closed: drain what was sent.
			for _, ch := range []chan *op{w.jobs, w.ops} {
				for len(ch) > 0 {
					s.applyBatch(append(batch[:0], <-ch))
				}
			}
			return
		}
		// Let the callers answered by the last batch submit before
		// collecting. On one processor the first of them to submit again
		// hands its operation straight to this goroutine, which the
		// scheduler then runs next: collecting at once would commit that
		// operation nearly alone while the others queue behind its sync, and
		// batches would alternate between full and almost empty
		// (TestBatching_CashOutsShareCommitsOnOneProcessor).
		runtime.Gosched()
		batch = w.collect(append(batch[:0], first))
		s.applyBatch(batch)
		clear(batch)
	}
}

// Job writes per batch. A batch takes the client writes waiting (leaving room
// for minJobWrites) and, when there are any, at most jobsPerClientWrite job
// writes for each of them (at least minJobWrites); with no client write
// waiting, jobs fill the batch. However many clients wait, jobs keep their
// minJobWrites places in every batch, so they are never starved. A
// burst of due jobs (a settlement backlog: hundreds due at once) then
// stretches each batch by a bounded share instead of holding the clients of
// that batch behind all of its jobs, and still drains faster than clients
// add to it.
const (
	jobsPerClientWrite = 2
	minJobWrites       = 64
)

// collect fills batch, which holds the operation that woke the writer, with
// the operations waiting: client writes first in line, then job writes in
// the order they were submitted, within the job share. A batch holding an
// exclusive operation (Reset) takes as many job writes as fit, so that those
// submitted before it commit before it (past a full batch, they run after).
func (w *writer) collect(batch []*op) []*op {
	clients, exclusive := 0, false
	count := func(o *op) {
		if !o.job {
			clients++
		}
		exclusive = exclusive || o.exclusive != nil
	}
	count(batch[0])
	jobs := batch[:0:0]
	if batch[0].job {
		jobs, batch = append(jobs, batch[0]), batch[:0]
	}
clients:
	for len(batch)+len(jobs) < maxBatchOps-minJobWrites { // room for jobs, however many clients wait
		select {
		case o := <-w.ops:
			count(o)
			batch = append(batch, o)
		default:
			break clients
		}
	}
	quota := maxBatchOps
	if clients > 0 && !exclusive {
		quota = max(minJobWrites, jobsPerClientWrite*clients)
	}
jobs:
	for len(jobs) < quota && len(batch)+len(jobs) < maxBatchOps {
		select {
		case o := <-w.jobs:
			jobs = append(jobs, o)
		default:
			break jobs
		}
	}
	// Jobs first: they were due before the clients of this batch wrote.
	return append(jobs, batch...)
}

// applyBatch runs the operations of a batch in order, exclusive ones alone.
func (s *engine) applyBatch(batch []*op) {
	for len(batch) > 0 {
		if batch[0].exclusive != nil {
			batch[0].answer(batch[0].exclusive())
			batch = batch[1:]
			continue
		}
		n := 1
		for n < len(batch) && batch[n].exclusive == nil {
			n++
		}
		pending := batch[:n]
		for len(pending) > 0 {
			pending = s.round(pending)
		}
		batch = batch[n:]
	}
}

// round runs ops in order in one Badger transaction, commits the ones that
// succeeded and answers them, and returns the operations left for another
// round: those after a cut (the batch grew past maxBatchBytes, or an
// operation did not fit), or, after an operation failed with writes, the
// ones that had succeeded before it (to run again without its writes) and
// those after it.
func (s *engine) round(ops []*op) []*op {
	elapsed := stopwatch()
	txn := s.db.NewTransaction(true)
	// The snapshot of the last commit is the store as this batch finds it:
	// no other writer commits records (sequence leases touch none that
	// operations iterate).
	sn := s.snaps.acquire(s.db)
	// t.store is each operation's own while it runs (below); until the first
	// runs, and when every operation is skipped, the default workspace's.
	t := &Tx{txn: txn, store: s.root, base: sn.txn, snap: sn, at: sn.commits}
	defer t.releaseBase()
	ok := make([]*op, 0, len(ops))
	for i, o := range ops {
		if !o.ran && o.ctx.Err() != nil {
			o.answer(o.ctx.Err())
			continue
		}
		writes := t.writes
		t.jobWrites, t.store, t.putJobs, t.minJobDue, t.tallies = nil, o.store, false, 0, t.tallies[:0]
		err := call(o.fn, t)
		switch {
		case err == nil:
			o.ran, o.jobWrites, o.tallies = true, t.jobWrites, slices.Clone(t.tallies)
			o.putJobs, o.minJobDue = t.putJobs, t.minJobDue
			ok = append(ok, o)
			if t.bytes >= maxBatchBytes && i+1 < len(ops) {
				s.commit(t, ok, elapsed())
				return ops[i+1:]
			}
			continue
		case t.writes == writes:
			o.answer(err) // failed before writing: nothing to take back
			continue
		}
		// o failed after writing: its writes are mixed into the transaction.
		txn.Discard()
		if errors.Is(err, badger.ErrTxnTooBig) && len(ok) > 0 {
			// Too big to join this batch: the others commit first (again,
			// in a fresh transaction), then o heads the next round, alone
			// if need be.
			for again := ok; len(again) > 0; {
				again = s.round(again)
			}
			return ops[i:]
		}
		if errors.Is(err, badger.ErrTxnTooBig) {
			err = fmt.Errorf("store: transaction too big: %w", err)
		}
		o.answer(err)
		return append(ok, ops[i+1:]...)
	}
	if len(ok) == 0 {
		txn.Discard() // every operation failed before writing: nothing to commit
		return nil
	}
	s.commit(t, ok, elapsed())
	return nil
}

// releaseBase ends the batch's use of its snapshot; later calls do nothing.
func (t *Tx) releaseBase() {
	if t.snap != nil {
		t.store.snaps.release(t.snap)
		t.snap, t.base = nil, nil
	}
}

// commit commits t and answers the operations that wrote into it. The commit
// count moves before any answer, so a read that starts after an answer sees
// the batch (snapshots); the job floor is lowered after the commit
// (jobFloor); the operations' tallies join their workspaces' activity only
// when the commit succeeded, before any answer (activity.go). applied is how
// long the round ran its operations.
func (s *engine) commit(t *Tx, ok []*op, applied time.Duration) {
	elapsed := stopwatch()
	err := t.txn.Commit()
	s.writer.count(len(ok), applied, elapsed())
	if err == nil {
		s.recent.Commit(t.recentWrites, t.at+1)
	}
	// The batch's snapshot is released before the new one opens and before
	// any answer, so it is discarded now if no reader holds it, not after a
	// caller has already moved on.
	t.releaseBase()
	s.snaps.committed()
	s.snaps.refresh(s.db)
	if err == nil {
		for _, o := range ok {
			if len(o.tallies) > 0 {
				o.store.activity.add(o.tallies)
			}
			if o.putJobs {
				o.store.scheduled(o.minJobDue)
			}
		}
	}
	if err != nil {
		err = fmt.Errorf("store: commit: %w", err)
	}
	for _, o := range ok {
		if err == nil {
			for _, w := range o.jobWrites {
				agenda.Committed(o.ctx, w.id, w.completed)
			}
		}
		o.answer(err)
	}
}

// WriterStats counts the writer's batch commits and the operations they
// carried since the store opened (their ratio is the mean batch), and how long
// each commit's round ran its operations (Apply) and waited for Badger to
// write and sync it (Commit). A commit far above its usual time is a stall
// every waiting request shares: a memtable switch, a sync behind a
// compaction's writes.
type WriterStats struct {
	Commits, Operations int64
	Apply, Commit       Durations
}

// WriterStats returns the writer's counts so far.
func (s *Store) WriterStats() WriterStats {
	w := s.writer
	w.statsMu.Lock()
	defer w.statsMu.Unlock()
	return WriterStats{Commits: w.commits, Operations: w.committed, Apply: w.apply.read(), Commit: w.commit.read()}
}

// count records a commit of n operations.
func (w *writer) count(n int, applied, committed time.Duration) {
	w.statsMu.Lock()
	defer w.statsMu.Unlock()
	w.commits++
	w.committed += int64(n)
	w.apply.observe(applied)
	w.commit.observe(committed)
}

// NotifyScheduled implements agenda.Notifier: fn is called after each commit
// that scheduled jobs, with the earliest due time among them.
// A nil fn stops the calls (a workspace's simulator unloaded).
func (s *Store) NotifyScheduled(fn func(due time.Time)) {
	if fn == nil {
		s.onJobs.Store(nil)
		return
	}
	s.onJobs.Store(&fn)
}

// scheduled lowers the workspace's job floor to a job due at due (Unix
// nanoseconds) just committed and tells its agenda.
func (s *Store) scheduled(due int64) {
	s.floor.lower(due)
	if fn := s.onJobs.Load(); fn != nil {
		(*fn)(time.Unix(0, due).UTC())
	}
}

// call runs fn on t, turning a panic into an error: the writer serves every
// caller and must survive any one of them.
func call(fn func(*Tx) error, t *Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("store: operation panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return fn(t)
}
