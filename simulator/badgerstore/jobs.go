package badgerstore

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
)

// doneRecord is what remains of a finished job.
type doneRecord struct {
	Job   agenda.Job `json:"job"`
	RanAt time.Time  `json:"ranAt"`
}

// PutJob schedules j inside this transaction, replacing a pending job with the
// same ID.
func (t *Tx) PutJob(j agenda.Job) error {
	if err := t.DeleteJob(j.ID); err != nil {
		return err
	}
	return t.putJob(j)
}

// PutNewJob implements storage.Tx: PutJob without the lookup of a pending job
// to replace. Test binaries make the lookup and refuse a job that is pending.
func (t *Tx) PutNewJob(j agenda.Job) error {
	if checkInTests() {
		if _, found, err := t.getRecent(jobIDKey(j.ID)); err != nil || found {
			return cmp.Or(err, fmt.Errorf("store: PutNewJob: job %s is pending", j.ID))
		}
	}
	return t.putJob(j)
}

func (t *Tx) putJob(j agenda.Job) error {
	t.wroteJob(jobWrite{id: j.ID})
	key := jobKey(j.Due, j.ID)
	if due := j.Due.UnixNano(); !t.putJobs || due < t.minJobDue {
		t.putJobs, t.minJobDue = true, due
	}
	if err := t.put(key, j); err != nil {
		return err
	}
	t.tallyJob(j.Kind, false)
	return t.set(jobIDKey(j.ID), key)
}

// DeleteJob removes the pending job with the given ID, if any.
func (t *Tx) DeleteJob(id string) error {
	if t.removedJob(id) {
		return nil // a settlement that completed its job deletes it again
	}
	key, found, err := t.getRecent(jobIDKey(id))
	if err != nil || !found {
		return err
	}
	if t.store.activity.tracking.Load() {
		// The job counts need the kind of the job removed.
		var j jobKind
		if _, err := t.get(key, &j); err != nil {
			return err
		}
		t.tallyJob(j.Kind, true)
	}
	t.wroteJob(jobWrite{id: id, removed: true})
	return t.deleteJobAt(id, key)
}

// deleteJobAt removes job id, whose job/ key is key.
func (t *Tx) deleteJobAt(id string, key []byte) error {
	if err := t.del(key); err != nil {
		return err
	}
	return t.del(jobIDKey(id))
}

// removedJob reports whether the running operation removed job id and has not
// put it again since: no job of that id is pending.
func (t *Tx) removedJob(id string) bool {
	for _, w := range slices.Backward(t.jobWrites) {
		if w.id == id {
			return w.removed
		}
	}
	return false
}

// Job returns the pending job with the given id; ok is false when there is none.
func (t *Tx) Job(id string) (agenda.Job, bool, error) { return t.getJob(id) }

func (t *Tx) getJob(id string) (agenda.Job, bool, error) {
	j, _, ok, err := t.jobAndKey(id)
	return j, ok, err
}

// jobAndKey returns the pending job id and its job/ key.
func (t *Tx) jobAndKey(id string) (j agenda.Job, key []byte, ok bool, err error) {
	key, found, err := t.getRecent(jobIDKey(id))
	if err != nil || !found {
		return agenda.Job{}, nil, false, err
	}
	ok, err = t.get(key, &j)
	return j, key, ok, err
}

// PutJob implements agenda.Store.
func (s *Store) PutJob(ctx context.Context, j agenda.Job) error {
	return s.update(ctx, func(t *Tx) error { return t.PutJob(j) })
}

// DeleteJob implements agenda.Store.
func (s *Store) DeleteJob(ctx context.Context, id string) error {
	return s.update(ctx, func(t *Tx) error { return t.DeleteJob(id) })
}

// GetJob implements agenda.Store.
func (s *Store) GetJob(ctx context.Context, id string) (j agenda.Job, ok bool, err error) {
	err = s.view(ctx, func(t *Tx) error {
		j, ok, err = t.getJob(id)
		return err
	})
	return j, ok, err
}

// jobFloor is a lower bound of the due times of the pending jobs, so that
// NextJob and DueJobs seek straight to them instead of walking the deleted
// keys of every job already run (Badger keeps those until compaction: after
// thousands of jobs the walk dominated each write). Every pending job is due
// at or after due. A commit that scheduled jobs lowers it after the commit.
// A read raises it to the earliest job its snapshot holds, or to the earliest
// due lowered since the read began if that is earlier: a job committed after
// the snapshot was opened is lowered after the read began (lower runs after
// the commit, the snapshot is opened after the read), so it is never left
// below the floor. The floor keeps moving up while jobs are scheduled all
// the time, as under load.
type jobFloor struct {
	mu   sync.Mutex
	due  int64 // UnixNano; 0 is "scan from the start"
	gen  uint64
	read uint64 // gen of the read under way
	low  int64  // the earliest due lowered since that read began
}

func (f *jobFloor) lower(due int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	due = max(due, 0)
	f.due = min(f.due, due)
	f.low = min(f.low, due)
	f.gen++
}

// begin starts a read: it returns the floor to seek from and the read's token.
func (f *jobFloor) begin() (int64, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	f.read, f.low = f.gen, math.MaxInt64
	return f.due, f.gen
}

// raise ends the read token: the earliest pending job its snapshot found is
// due at due. A read overtaken by another read leaves the floor alone.
func (f *jobFloor) raise(due int64, token uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.read == token {
		f.due = max(f.due, min(due, f.low))
	}
}

// NextJob implements agenda.Store.
func (s *Store) NextJob(ctx context.Context) (j agenda.Job, ok bool, err error) {
	floor, gen := s.floor.begin()
	err = s.view(ctx, func(t *Tx) error {
		prefix := []byte(prefixJob)
		it := t.newIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
		defer it.Close()
		it.Seek([]byte(prefixJob + num(floor)))
		if !it.ValidForPrefix(prefix) {
			return nil
		}
		ok = true
		return it.Item().Value(func(b []byte) error { return storecodec.Decode(b, &j) })
	})
	if err != nil || !ok {
		return agenda.Job{}, false, err
	}
	s.floor.raise(j.Due.UnixNano(), gen)
	return j, true, nil
}

// DueJobs implements agenda.Store, from the floor like NextJob.
func (s *Store) DueJobs(ctx context.Context, until time.Time, limit int) ([]agenda.Job, error) {
	var out []agenda.Job
	err := s.eachDue(ctx, until, limit, true, func(_ int64, item *badger.Item) error {
		var j agenda.Job
		if err := item.Value(func(b []byte) error { return storecodec.Decode(b, &j) }); err != nil {
			return err
		}
		out = append(out, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CountDue implements storage.Store from the job keys alone, which hold each
// job's due time: counting a backlog of a million jobs decodes none of them.
func (s *Store) CountDue(ctx context.Context, until time.Time, limit int) (n int, oldest time.Time, err error) {
	err = s.eachDue(ctx, until, limit, false, func(due int64, _ *badger.Item) error {
		if n == 0 {
			oldest = time.Unix(0, due).UTC()
		}
		n++
		return nil
	})
	return n, oldest, err
}

// eachDue calls fn for the pending jobs due at or before until, at most limit
// of them (no bound when limit <= 0), in due order, from the floor like
// NextJob, with each job's due time read from its key; values says whether
// fn reads the items' values (prefetched). The earliest of them raises the
// floor.
func (s *Store) eachDue(ctx context.Context, until time.Time, limit int, values bool, fn func(due int64, item *badger.Item) error) error {
	floor, gen := s.floor.begin()
	first, n := int64(0), 0
	err := s.view(ctx, func(t *Tx) error {
		prefix := []byte(prefixJob)
		end := until.UnixNano()
		opts := badger.IteratorOptions{Prefix: prefix, PrefetchValues: values}
		if values {
			opts.PrefetchSize = 64
		}
		it := t.newIterator(opts)
		defer it.Close()
		for it.Seek([]byte(prefixJob + num(floor))); it.ValidForPrefix(prefix) && (limit <= 0 || n < limit); it.Next() {
			due, ok := jobKeyDue(it.Key())
			if !ok {
				return fmt.Errorf("store: job key %q holds no due time", it.Key())
			}
			if due > end {
				break
			}
			if n == 0 {
				first = due
			}
			n++
			if err := fn(due, it.Item()); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && n > 0 {
		s.floor.raise(first, gen)
	}
	return err
}

// ListJobs implements agenda.Store, from the floor like DueJobs (a scan from
// the first job key would walk the deleted keys of every job already run).
func (s *Store) ListJobs(ctx context.Context, limit int) ([]agenda.Job, error) {
	return s.DueJobs(ctx, time.Unix(0, math.MaxInt64), limit)
}

// MarkDone implements agenda.Store: the pending job is deleted only when it is
// still the version that ran, in the transaction that records the run. When
// the job is no longer pending and its run is already recorded (the handler
// called CompleteJob), it writes nothing, so the commit costs no sync.
func (s *Store) MarkDone(ctx context.Context, j agenda.Job, ranAt time.Time) error {
	// Read first: a job whose handler completed it needs nothing written,
	// and a read does not wait for the writer's next batch.
	var recorded bool
	err := s.view(ctx, func(t *Tx) error {
		if _, ok, err := t.getJob(j.ID); err != nil || ok {
			return err
		}
		var rec doneRecord
		found, err := t.get(jobDoneKey(j.ID), &rec)
		recorded = found && agenda.SameJob(rec.Job, j)
		return err
	})
	if err != nil || recorded {
		return err
	}
	return s.update(ctx, func(t *Tx) error {
		if _, ok, err := t.getJob(j.ID); err != nil || ok {
			if err != nil {
				return err
			}
			return t.CompleteJob(j, ranAt)
		}
		var rec doneRecord
		found, err := t.get(jobDoneKey(j.ID), &rec)
		if err != nil || (found && agenda.SameJob(rec.Job, j)) {
			return err
		}
		return t.put(jobDoneKey(j.ID), doneRecord{Job: j, RanAt: ranAt})
	})
}

// CompleteJob implements storage.Tx.
func (t *Tx) CompleteJob(j agenda.Job, ranAt time.Time) error {
	cur, key, ok, err := t.jobAndKey(j.ID)
	if err != nil {
		return err
	}
	if ok && agenda.SameJob(cur, j) {
		if err := t.deleteJobAt(j.ID, key); err != nil {
			return err
		}
		t.tallyJob(cur.Kind, true)
	}
	// A newer version, if any, stays pending.
	t.wroteJob(jobWrite{id: j.ID, completed: true, removed: !ok || agenda.SameJob(cur, j)})
	return t.put(jobDoneKey(j.ID), doneRecord{Job: j, RanAt: ranAt})
}

// wroteJob notes what the running operation did to a job (jobWrites).
func (t *Tx) wroteJob(w jobWrite) { t.jobWrites = append(t.jobWrites, w) }

// ReplaceJob implements agenda.Store.
func (s *Store) ReplaceJob(ctx context.Context, prev, next agenda.Job) (replaced bool, err error) {
	err = s.update(ctx, func(t *Tx) error {
		cur, ok, err := t.getJob(prev.ID)
		if err != nil || !ok || !agenda.SameJob(cur, prev) {
			replaced = false
			return err
		}
		if next.ID != prev.ID {
			if err := t.DeleteJob(prev.ID); err != nil {
				return err
			}
		}
		replaced = true
		return t.PutJob(next)
	})
	return replaced, err
}

// DoneJob implements agenda.Store.
func (s *Store) DoneJob(ctx context.Context, id string) (ranAt time.Time, ok bool, err error) {
	var rec doneRecord
	err = s.view(ctx, func(t *Tx) error {
		ok, err = t.get(jobDoneKey(id), &rec)
		return err
	})
	return rec.RanAt, ok, err
}

func (s *Store) view(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.db.IsClosed() {
		return badger.ErrDBClosed
	}
	sn := s.snaps.acquire(s.db)
	defer s.snaps.release(sn)
	return fn(&Tx{txn: sn.txn, store: s, at: sn.commits})
}
