package badgerstore

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
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
	key := jobKey(j.Due, j.ID)
	if due := j.Due.UnixNano(); !t.putJobs || due < t.minJobDue {
		t.putJobs, t.minJobDue = true, due
	}
	if err := t.put(key, j); err != nil {
		return err
	}
	return t.txn.Set(jobIDKey(j.ID), key)
}

// DeleteJob removes the pending job with the given ID, if any.
func (t *Tx) DeleteJob(id string) error {
	item, err := t.txn.Get(jobIDKey(id))
	if err != nil {
		return ignoreNotFound(err)
	}
	key, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	if err := t.del(key); err != nil {
		return err
	}
	return t.del(jobIDKey(id))
}

func (t *Tx) getJob(id string) (agenda.Job, bool, error) {
	item, err := t.txn.Get(jobIDKey(id))
	if err != nil {
		return agenda.Job{}, false, ignoreNotFound(err)
	}
	key, err := item.ValueCopy(nil)
	if err != nil {
		return agenda.Job{}, false, err
	}
	var j agenda.Job
	ok, err := t.get(key, &j)
	return j, ok, err
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
// NextJob seeks straight to them instead of walking the deleted keys of every
// job already run (Badger keeps those until compaction: after thousands of
// jobs the walk dominated each write). Every pending job is due at or after
// due. A commit that scheduled jobs lowers it after the commit; NextJob raises
// it to the job it found only if no job was scheduled since it read it (gen),
// so a job committed after NextJob's snapshot is never left below the floor.
type jobFloor struct {
	mu  sync.Mutex
	due int64 // UnixNano; 0 is "scan from the start"
	gen uint64
}

func (f *jobFloor) lower(due int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.due = min(f.due, max(due, 0))
	f.gen++
}

func (f *jobFloor) read() (int64, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.due, f.gen
}

func (f *jobFloor) raise(due int64, gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gen == gen && due > f.due {
		f.due = due
	}
}

// NextJob implements agenda.Store.
func (s *Store) NextJob(ctx context.Context) (j agenda.Job, ok bool, err error) {
	floor, gen := s.floor.read()
	err = s.view(ctx, func(t *Tx) error {
		prefix := []byte(prefixJob)
		it := t.txn.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: prefix})
		defer it.Close()
		it.Seek([]byte(prefixJob + num(floor)))
		if !it.ValidForPrefix(prefix) {
			return nil
		}
		ok = true
		return it.Item().Value(func(b []byte) error { return json.Unmarshal(b, &j) })
	})
	if err != nil || !ok {
		return agenda.Job{}, false, err
	}
	s.floor.raise(j.Due.UnixNano(), gen)
	return j, true, nil
}

// ListJobs implements agenda.Store.
func (s *Store) ListJobs(ctx context.Context, limit int) ([]agenda.Job, error) {
	var out []agenda.Job
	err := s.view(ctx, func(t *Tx) error {
		return t.scan([]byte(prefixJob), func(_, val []byte) (bool, error) {
			var j agenda.Job
			if err := json.Unmarshal(val, &j); err != nil {
				return true, err
			}
			out = append(out, j)
			return limit > 0 && len(out) >= limit, nil
		})
	})
	return out, err
}

// MarkDone implements agenda.Store: the pending job is deleted only when it is
// still the version that ran, in the transaction that records the run. When
// the job is no longer pending and its run is already recorded (the handler
// called CompleteJob), it writes nothing, so the commit costs no sync.
func (s *Store) MarkDone(ctx context.Context, j agenda.Job, ranAt time.Time) error {
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
	cur, ok, err := t.getJob(j.ID)
	if err != nil {
		return err
	}
	if ok && agenda.SameJob(cur, j) {
		if err := t.DeleteJob(j.ID); err != nil {
			return err
		}
	}
	return t.put(jobDoneKey(j.ID), doneRecord{Job: j, RanAt: ranAt})
}

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
	return fn(&Tx{txn: sn.txn, store: s})
}
