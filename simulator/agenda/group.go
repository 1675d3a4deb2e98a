package agenda

import (
	"context"
	"errors"
	"sync"
)

// maxGroup bounds how many due jobs run together.
const maxGroup = 256

// A group is a set of due jobs that run together, so that a store that
// batches its writes (badgerstore's single writer) commits their work in a few
// commits instead of one each. Their handlers run concurrently, but each
// job's first write reaches the store in due order: a job hands its first
// write over only after every job due before it in the group has handed over
// its own, or ended without one (InTurn). A job therefore never takes effect
// before one due earlier.
type group struct {
	mu     sync.Mutex
	cond   sync.Cond
	passed []bool // the job handed over its first write, or ended
	next   int    // every job before next has passed
}

func newGroup(n int) *group {
	g := &group{passed: make([]bool, n)}
	g.cond.L = &g.mu
	return g
}

// pass marks job i as passed and lets the jobs after it go. Call with g.mu held.
func (g *group) pass(i int) {
	g.passed[i] = true
	for g.next < len(g.passed) && g.passed[g.next] {
		g.next++
	}
	g.cond.Broadcast()
}

// done marks job i as ended: it writes nothing more in turn.
func (g *group) done(i int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pass(i)
}

// member is a job's place in its group, carried by its handler's context.
type member struct {
	g *group
	i int
}

type memberKey struct{}

// jobKey marks the context of a job's handler run alone (a group of one).
type jobKey struct{}

// IsJob reports whether ctx is the context of a job's handler, as the agenda
// gives it (alone or in a group), or one derived from it; WithJob marks one
// for a store's tests. A store that batches writes uses it to keep a burst
// of due jobs from crowding out the writes of clients (badgerstore's writer).
func IsJob(ctx context.Context) bool {
	return ctx.Value(jobKey{}) != nil || ctx.Value(memberKey{}) != nil
}

// WithJob returns ctx marked as a job handler's context (IsJob).
func WithJob(ctx context.Context) context.Context { return context.WithValue(ctx, jobKey{}, true) }

// InTurn runs submit, the hand-over of a write to a store's writer, in the due
// order of the jobs of a group: the first write of a job of a group is handed
// over after the first writes of the jobs due before it in the group. Any
// other call (a later write of the same job, a write outside a job) runs
// submit at once. Stores that batch writes call it around the hand-over.
func InTurn(ctx context.Context, submit func()) {
	m, ok := ctx.Value(memberKey{}).(member)
	if !ok {
		submit()
		return
	}
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.passed[m.i] {
		submit()
		return
	}
	for g.next < m.i {
		g.cond.Wait()
	}
	submit()
	g.pass(m.i)
}

// runGroup runs jobs, in due order, as one group, and returns the store
// errors of their bookkeeping. The caller must hold a.runMu.
func (a *Agenda) runGroup(ctx context.Context, jobs []Job) error {
	if len(jobs) == 1 {
		return a.run(ctx, jobs[0], func() {})
	}
	g := newGroup(len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx := context.WithValue(ctx, memberKey{}, member{g: g, i: i})
			errs[i] = a.runIn(ctx, hctx, j, func() { g.done(i) })
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
