package webhook

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// Defaults of a Scheduler's zero fields.
const (
	DefaultWorkers   = 64
	DefaultPerTarget = 4
	DefaultPerOwner  = 8
)

// Scheduler runs the delivery attempts of every workspace of a server off
// their job runners and shares its workers fairly between the owners of the
// attempts. An owner is one account of one workspace; a target is one URL of
// one workspace. Each workspace submits through a Space of its own. The rule,
// Gap G-62 (docs/spec-gaps.md):
//
//   - at most Workers attempts run at once in the shared slots, across every
//     Space of the scheduler;
//   - at most PerTarget attempts run at once for one target and at most
//     PerOwner for one owner, whatever slots they hold;
//   - an owner with no attempt running may always start one: when the shared
//     slots are all taken it runs in a slot of its own. No owner therefore
//     waits for slots that other owners hold, and at most Workers plus the
//     number of owners with attempts running are under way at once;
//   - a shared slot that frees goes to the owners waiting, in turn (round
//     robin: the owner served goes to the back of the turn), not to the
//     attempt submitted first; an owner starts its earliest submitted attempt
//     among its targets with a free slot.
//
// So one owner's attempts to one target start in the order submitted, and a
// receiver that hangs holds at most PerTarget slots, an account whose
// receivers all hang at most PerOwner: another account's attempts start at
// once in the slot of its own and take their turn at the shared ones. Two
// accounts of one workspace with the same URL share its PerTarget slots and
// take turns at them.
//
// Its zero value is ready to use; set the fields before the first Space.
// Attempts run on goroutines of their own.
type Scheduler struct {
	Workers   int
	PerTarget int
	PerOwner  int

	mu      sync.Mutex
	shared  int      // attempts running in shared slots
	waiting []*owner // owners with attempts queued, in turn order
	seq     uint64   // submissions so far: orders an owner's queues
}

// Space is one workspace's share of a Scheduler: it submits the workspace's
// attempts, counts them, waits for them and stops them, never another
// workspace's. Make one with Scheduler.Space.
type Space struct {
	s *Scheduler

	// Guarded by s.mu.
	owners   map[int64]*owner     // by account: those with attempts running or queued
	targets  map[string]*endpoint // by URL: those with attempts running or queued
	pending  int                  // submitted and not returned
	stopping int                  // Stop calls under way
	ctx      context.Context      // given to the attempts submitted; Stop cancels it
	cancel   context.CancelFunc
	idle     sync.Cond // broadcast when pending falls
}

// owner is one account of a Space.
type owner struct {
	space   *Space
	account int64
	running int
	queued  int
	lanes   map[string][]*task // by URL: the attempts queued, in submission order
	inTurn  bool               // in Scheduler.waiting (exactly when queued > 0)
}

// endpoint is one target (URL) of a Space.
type endpoint struct {
	running int
	lanes   int // owners with attempts queued for it
}

// task is one submitted attempt.
type task struct {
	seq     uint64
	url     string
	attempt func(context.Context)
	ctx     context.Context
}

// Space returns a new share of s for one workspace. A workspace's simulator
// holds one for its life: two Spaces are two workspaces to the rule.
func (s *Scheduler) Space() *Space {
	sp := &Space{s: s, owners: map[int64]*owner{}, targets: map[string]*endpoint{}}
	sp.idle.L = &s.mu
	sp.ctx, sp.cancel = context.WithCancel(context.Background())
	return sp
}

func (s *Scheduler) limits() (workers, perTarget, perOwner int) {
	orDefault := func(n, def int) int {
		if n <= 0 {
			return def
		}
		return n
	}
	return orDefault(s.Workers, DefaultWorkers), orDefault(s.PerTarget, DefaultPerTarget), orDefault(s.PerOwner, DefaultPerOwner)
}

// Submit queues attempt of account for target (its URL). attempt gets a
// context that Stop cancels; it must return soon after. Every submitted
// attempt is called exactly once: those Stop cuts before they start, with a
// cancelled context. Submit never blocks.
func (sp *Space) Submit(account int64, target string, attempt func(context.Context)) {
	s := sp.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sp.pending++
	o := sp.owner(account)
	t := sp.endpoint(target)
	s.seq++
	tk := &task{seq: s.seq, url: target, attempt: attempt, ctx: sp.ctx}
	workers, perTarget, perOwner := s.limits()
	// A shared slot is free only when no waiting owner could take it, so
	// starting at once takes nobody's turn.
	if len(o.lanes[target]) == 0 && t.running < perTarget && o.running < perOwner {
		switch {
		case s.shared < workers:
			s.start(o, tk, true)
			return
		case o.running == 0:
			s.start(o, tk, false)
			return
		}
	}
	if len(o.lanes[target]) == 0 {
		t.lanes++
	}
	o.lanes[target] = append(o.lanes[target], tk)
	o.queued++
	if !o.inTurn {
		o.inTurn = true
		s.waiting = append(s.waiting, o)
	}
}

func (sp *Space) owner(account int64) *owner {
	o := sp.owners[account]
	if o == nil {
		o = &owner{space: sp, account: account, lanes: map[string][]*task{}}
		sp.owners[account] = o
	}
	return o
}

func (sp *Space) endpoint(url string) *endpoint {
	t := sp.targets[url]
	if t == nil {
		t = &endpoint{}
		sp.targets[url] = t
	}
	return t
}

// start runs tk of o on a goroutine of its own, in a shared slot or in o's
// own. The caller must hold s.mu and have taken tk off its lane.
func (s *Scheduler) start(o *owner, tk *task, shared bool) {
	o.running++
	o.space.targets[tk.url].running++
	if shared {
		s.shared++
	}
	go func() {
		tk.attempt(tk.ctx)
		s.finished(o, tk.url, shared)
	}()
}

// next returns o's earliest submitted attempt whose target has a free slot,
// or nil. The caller must hold s.mu.
func (o *owner) next(perTarget int) *task {
	var best *task
	for url, lane := range o.lanes {
		if o.space.targets[url].running < perTarget && (best == nil || lane[0].seq < best.seq) {
			best = lane[0]
		}
	}
	return best
}

// take removes tk, the head of its lane, from o's queues. The caller must
// hold s.mu and put o back in turn or out of it.
func (o *owner) take(tk *task) {
	lane := o.lanes[tk.url]
	lane[0] = nil
	if lane = lane[1:]; len(lane) == 0 {
		delete(o.lanes, tk.url)
		o.space.targets[tk.url].lanes--
	} else {
		o.lanes[tk.url] = lane
	}
	o.queued--
}

// finished frees the slots of an attempt of o to url and hands them on: the
// shared slots to the waiting owners in turn, then, when the shared slots
// are all taken, own slots to the owners with nothing running that can
// start (o, and the owners of its workspace waiting for url's slot).
func (s *Scheduler) finished(o *owner, url string, shared bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := o.space
	t := sp.targets[url]
	t.running--
	o.running--
	if shared {
		s.shared--
	}
	sp.pending--
	sp.idle.Broadcast()

	workers, perTarget, perOwner := s.limits()
	for s.shared < workers && s.startInTurn(perTarget, perOwner) {
	}
	if s.shared >= workers {
		s.startOwn(o, perTarget)
		others := t.lanes
		if len(o.lanes[url]) > 0 {
			others--
		}
		for account, w := range sp.owners {
			if others == 0 || t.running >= perTarget {
				break
			}
			if account != o.account && len(w.lanes[url]) > 0 {
				others--
				s.startOwn(w, perTarget)
			}
		}
	}
	if o.running == 0 && o.queued == 0 {
		delete(sp.owners, o.account)
	}
	if t.running == 0 && t.lanes == 0 {
		delete(sp.targets, url)
	}
}

// startInTurn starts, in a shared slot, the next attempt of the first
// waiting owner that can start one, and moves that owner to the back of the
// turn. It reports whether it started one. The caller must hold s.mu.
func (s *Scheduler) startInTurn(perTarget, perOwner int) bool {
	for i, o := range s.waiting {
		if o.running >= perOwner {
			continue
		}
		tk := o.next(perTarget)
		if tk == nil {
			continue
		}
		o.take(tk)
		s.waiting = slices.Delete(s.waiting, i, i+1)
		if o.queued > 0 {
			s.waiting = append(s.waiting, o)
		} else {
			o.inTurn = false
		}
		s.start(o, tk, true)
		return true
	}
	return false
}

// startOwn starts o's next attempt in o's own slot when o has nothing
// running. The caller must hold s.mu.
func (s *Scheduler) startOwn(o *owner, perTarget int) {
	if o.running > 0 || o.queued == 0 {
		return
	}
	tk := o.next(perTarget)
	if tk == nil {
		return
	}
	o.take(tk)
	if o.queued == 0 {
		o.inTurn = false
		s.waiting = slices.DeleteFunc(s.waiting, func(w *owner) bool { return w == o })
	}
	s.start(o, tk, false)
}

// Pending returns how many of the Space's attempts are running or queued.
func (sp *Space) Pending() int {
	sp.s.mu.Lock()
	defer sp.s.mu.Unlock()
	return sp.pending
}

// Wait returns when none of the Space's attempts is running or queued, or
// when ctx ends.
func (sp *Space) Wait(ctx context.Context) error {
	s := sp.s
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		sp.idle.Broadcast()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for sp.pending > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		sp.idle.Wait()
	}
	return nil
}

// Stop cancels the Space's attempts running and queued (those queued are
// called with the cancelled context, without a slot), waits for them to
// return, and makes the Space ready for new attempts. Other Spaces'
// attempts go on. Attempts cut this way are expected to be made again (the
// simulator keeps them in flight in its store and schedules them again on
// its next start).
func (sp *Space) Stop() {
	s := sp.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sp.stopping++
	sp.cancel()
	for sp.pending > 0 {
		cut := sp.cutQueued()
		if len(cut) == 0 {
			sp.idle.Wait()
			continue
		}
		s.mu.Unlock()
		for _, tk := range cut {
			tk.attempt(tk.ctx)
		}
		s.mu.Lock()
		sp.pending -= len(cut)
		sp.idle.Broadcast()
	}
	if sp.stopping--; sp.stopping == 0 {
		sp.ctx, sp.cancel = context.WithCancel(context.Background())
	}
}

// cutQueued takes every queued attempt of the Space off its queues and out
// of turn, and returns them in submission order. The caller must hold s.mu.
func (sp *Space) cutQueued() []*task {
	var cut []*task
	for account, o := range sp.owners {
		for url, lane := range o.lanes {
			cut = append(cut, lane...)
			delete(o.lanes, url)
			t := sp.targets[url]
			if t.lanes--; t.running == 0 && t.lanes == 0 {
				delete(sp.targets, url)
			}
		}
		o.queued = 0
		o.inTurn = false
		if o.running == 0 {
			delete(sp.owners, account)
		}
	}
	if len(cut) > 0 {
		s := sp.s
		s.waiting = slices.DeleteFunc(s.waiting, func(o *owner) bool { return o.space == sp })
	}
	slices.SortFunc(cut, func(a, b *task) int { return cmp.Compare(a.seq, b.seq) })
	return cut
}
