package badgerstore

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// A workspace's activity: what its committed writes did, counted as the
// writer commits them, so that reading it (a /metrics scrape) costs the same
// whatever the store holds. The writes that show it are the few that carry it
// (PutTransaction, PutDelivery, the job writes), and each records a tally in
// its operation; the writer adds an operation's tallies to its workspace's
// activity once the batch has committed (writer.commit). The tallies of an
// operation that failed, of a run the writer discarded to run again (its
// next run records them afresh), and of a batch whose commit failed are never
// added.

// Activity is what a workspace's committed writes did since the store was
// opened: transactions created, transactions that reached a final status,
// the money of those CONFIRMED, webhook attempts recorded. Its counts only
// grow; a Reset leaves them.
type Activity struct {
	Created  map[pix.TxKind]int64
	Finished map[TxFinish]int64
	// Moved is the amount of the transactions that became CONFIRMED.
	Moved map[pix.TxKind]pix.Cents
	// Attempts and AttemptDurations count webhook attempts by event type
	// and answer, and their durations by event type (bounds AttemptBounds).
	Attempts         map[AttemptAnswer]int64
	AttemptDurations map[string]Durations
}

// TxFinish is a transaction's kind and the final status it reached.
type TxFinish struct {
	Kind   pix.TxKind
	Status pix.TxStatus
}

// AttemptAnswer is a webhook attempt's event type and the class of its
// answer: the HTTP status code divided by 100, 0 when no answer came.
type AttemptAnswer struct {
	Event string
	Class int
}

// AttemptBounds are the upper bounds of the buckets of Activity's attempt
// durations.
var AttemptBounds = [...]time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second}

// Activity returns the workspace's activity so far.
func (s *Store) Activity() Activity { return s.activity.snapshot() }

// snapshot returns a copy of a's counts.
func (a *activity) snapshot() Activity {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := Activity{Created: cloneMap(a.created), Finished: cloneMap(a.finished), Moved: cloneMap(a.moved),
		Attempts: cloneMap(a.attempts), AttemptDurations: make(map[string]Durations, len(a.durations))}
	for ev, d := range a.durations {
		out.AttemptDurations[ev] = Durations{Counts: slices.Clone(d.counts[:]), Sum: d.sum}
	}
	return out
}

// merge adds the counts of b to a.
func (a *activity) merge(b Activity) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, n := range b.Created {
		a.created = inc(a.created, k, n)
	}
	for k, n := range b.Finished {
		a.finished = inc(a.finished, k, n)
	}
	for k, n := range b.Moved {
		a.moved = inc(a.moved, k, n)
	}
	for k, n := range b.Attempts {
		a.attempts = inc(a.attempts, k, n)
	}
	for ev, d := range b.AttemptDurations {
		if a.durations == nil {
			a.durations = map[string]*attemptDurations{}
		}
		h := a.durations[ev]
		if h == nil {
			h = &attemptDurations{}
			a.durations[ev] = h
		}
		for i, n := range d.Counts {
			h.counts[i] += n
		}
		h.sum += d.Sum
	}
}

// ServerActivity is the activity of every workspace of the database
// together: the default workspace's, that of each workspace's Store handed
// out (Space), and that of the workspaces dropped since the store opened,
// whose counts stay so that the sums only grow (they feed counters). Its cost
// grows with the number of workspaces, not with what they hold.
func (s *Store) ServerActivity() Activity {
	var sum activity
	sum.merge(s.root().Activity())
	// Held throughout: a workspace being dropped (forget) moves its counts
	// to retired under the same lock, so they are counted once, never twice
	// and never not at all.
	s.spacesMu.Lock()
	defer s.spacesMu.Unlock()
	for _, v := range s.spaces {
		sum.merge(v.Activity())
	}
	sum.merge(s.retired.snapshot())
	return sum.snapshot()
}

// PendingJobsByKind returns the workspace's pending jobs by kind; a kind
// that had pending jobs since the first call stays, at zero. The first call
// counts the pending jobs (a scan of them, alone on the writer between two
// batches); from then on each commit moves the counts by the jobs it put and
// removed (a DeleteJob then reads the kind of the job it removes), and a
// Reset sets them to zero, so later calls read them in memory.
func (s *Store) PendingJobsByKind(ctx context.Context) (map[string]int64, error) {
	a := &s.activity
	if !a.tracking.Load() {
		if err := s.writer.submit(&op{ctx: ctx, store: s, exclusive: s.countJobs}); err != nil {
			return nil, err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return cloneMap(a.jobs), nil
}

// countJobs counts the pending jobs by kind and starts following them. It
// runs on the writer between two batches (PendingJobsByKind), so the counts
// are those of the last commit and every commit after it moves them.
func (s *Store) countJobs() error {
	a := &s.activity
	if a.tracking.Load() {
		return nil
	}
	jobs := map[string]int64{}
	err := s.eachDue(context.Background(), time.Unix(0, math.MaxInt64), 0, true, func(_ int64, item *badger.Item) error {
		var j jobKind
		if err := item.Value(func(b []byte) error { return storecodec.Decode(b, &j) }); err != nil {
			return err
		}
		jobs[j.Kind]++
		return nil
	})
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.jobs = jobs
	a.mu.Unlock()
	a.tracking.Store(true)
	return nil
}

// jobKind is the part of a stored agenda.Job the job counts read.
type jobKind struct{ Kind string }

// activity is a workspace's live Activity and pending-job counts. The writer
// goroutine moves it; readers copy it under mu.
type activity struct {
	// tracking is set once the pending jobs were counted (countJobs): from
	// then on the job writes record tallies. It changes only on the writer
	// goroutine, between batches.
	tracking atomic.Bool

	mu        sync.Mutex
	created   map[pix.TxKind]int64
	finished  map[TxFinish]int64
	moved     map[pix.TxKind]pix.Cents
	attempts  map[AttemptAnswer]int64
	durations map[string]*attemptDurations
	jobs      map[string]int64 // pending, by kind
}

// attemptDurations is a live histogram over AttemptBounds.
type attemptDurations struct {
	counts [len(AttemptBounds) + 1]int64
	sum    time.Duration
}

// tallyWhat is what a tally counts.
type tallyWhat uint8

const (
	tallyCreated  tallyWhat = iota + 1 // a transaction of kind written for the first time
	tallyFinished                      // a transaction of kind reaching status (with amount)
	tallyAttempt                       // a webhook attempt of event type kind
	tallyJobPut                        // a pending job of kind written
	tallyJobGone                       // a pending job of kind removed
)

// tally is one effect of an operation on its workspace's activity.
type tally struct {
	what   tallyWhat
	kind   string // the transaction kind, the attempt's event type or the job kind
	status pix.TxStatus
	amount pix.Cents
	class  int           // an attempt's answer class (AttemptAnswer)
	dur    time.Duration // an attempt's duration
}

// tally records an effect of the running operation, for its workspace's
// activity once the operation commits.
func (t *Tx) tally(y tally) { t.tallies = append(t.tallies, y) }

// tallyTransaction records what writing next over prev (existed false: a
// new transaction) adds to the activity: a creation, and the first time it
// is final, a finish.
func (t *Tx) tallyTransaction(prev, next pix.Transaction, existed bool) {
	if !existed {
		t.tally(tally{what: tallyCreated, kind: string(next.Kind)})
	}
	if next.Final() && (!existed || !prev.Final()) {
		t.tally(tally{what: tallyFinished, kind: string(next.Kind), status: next.Status, amount: next.Amount})
	}
}

// tallyJob records a pending job of kind put (gone false) or removed, once
// the workspace's pending jobs are counted.
func (t *Tx) tallyJob(kind string, gone bool) {
	if !t.store.activity.tracking.Load() {
		return
	}
	what := tallyJobPut
	if gone {
		what = tallyJobGone
	}
	t.tally(tally{what: what, kind: kind})
}

// add adds the tallies of an operation that committed. Only the writer
// goroutine calls it.
func (a *activity) add(tallies []tally) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, y := range tallies {
		switch y.what {
		case tallyCreated:
			a.created = inc(a.created, pix.TxKind(y.kind), 1)
		case tallyFinished:
			a.finished = inc(a.finished, TxFinish{pix.TxKind(y.kind), y.status}, 1)
			if y.status == pix.TxStatusConfirmed {
				a.moved = inc(a.moved, pix.TxKind(y.kind), y.amount)
			}
		case tallyAttempt:
			a.attempts = inc(a.attempts, AttemptAnswer{y.kind, y.class}, 1)
			a.observe(y.kind, y.dur)
		case tallyJobPut, tallyJobGone:
			if !a.tracking.Load() {
				continue
			}
			n := int64(1)
			if y.what == tallyJobGone {
				n = -1
			}
			a.jobs = inc(a.jobs, y.kind, n)
		}
	}
}

// observe adds an attempt of event type ev that took d. The caller must hold
// a.mu.
func (a *activity) observe(ev string, d time.Duration) {
	h := a.durations[ev]
	if h == nil {
		if a.durations == nil {
			a.durations = map[string]*attemptDurations{}
		}
		h = &attemptDurations{}
		a.durations[ev] = h
	}
	i, _ := slices.BinarySearch(AttemptBounds[:], d)
	h.counts[i]++
	h.sum += d
}

// reset sets the pending-job counts to zero: a Reset dropped every job. The
// counts of what committed stay.
func (a *activity) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range a.jobs {
		a.jobs[k] = 0
	}
}

// inc adds n to m[k], making m when nil.
func inc[K comparable, V int64 | pix.Cents](m map[K]V, k K, n V) map[K]V {
	if m == nil {
		m = map[K]V{}
	}
	m[k] += n
	return m
}

// cloneMap copies m; a nil m gives an empty map.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
