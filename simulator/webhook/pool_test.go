package webhook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// gate hands out attempts that record their start and, for hold, run until
// released or cancelled: tests see what runs at once without timing.
type gate struct {
	t         *testing.T
	mu        sync.Mutex
	order     []string
	release   map[string]chan struct{}
	cancelled map[string]bool
	started   chan string
}

func newGate(t *testing.T) *gate {
	return &gate{t: t, release: map[string]chan struct{}{}, cancelled: map[string]bool{}, started: make(chan string, 10000)}
}

// hold returns an attempt named name that runs until open(name) or until
// its context ends.
func (g *gate) hold(name string) func(context.Context) {
	ch := make(chan struct{})
	g.mu.Lock()
	g.release[name] = ch
	g.mu.Unlock()
	return func(ctx context.Context) {
		g.record(name)
		select {
		case <-ch:
		case <-ctx.Done():
			g.mu.Lock()
			g.cancelled[name] = true
			g.mu.Unlock()
		}
	}
}

// quick returns an attempt named name that returns at once.
func (g *gate) quick(name string) func(context.Context) {
	return func(context.Context) { g.record(name) }
}

func (g *gate) record(name string) {
	g.mu.Lock()
	g.order = append(g.order, name)
	g.mu.Unlock()
	g.started <- name
}

func (g *gate) open(names ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, n := range names {
		close(g.release[n])
	}
}

// openAll releases every attempt not released yet (a test's cleanup).
func (g *gate) openAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for n, ch := range g.release {
		select {
		case <-ch:
		default:
			close(ch)
		}
		delete(g.release, n)
	}
}

// waitStarted waits for n more attempts to start and returns their names, sorted.
func (g *gate) waitStarted(n int) []string {
	g.t.Helper()
	var got []string
	for range n {
		select {
		case name := <-g.started:
			got = append(got, name)
		case <-time.After(10 * time.Second): // only a hang reaches this
			g.t.Fatalf("%d attempts started (%v), want %d", len(got), got, n)
		}
	}
	slices.Sort(got)
	return got
}

// noneStarted checks that no further attempt has started.
func (g *gate) noneStarted() {
	g.t.Helper()
	select {
	case name := <-g.started:
		g.t.Fatalf("%s started, want none", name)
	default:
	}
}

func (g *gate) startOrder() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.order)
}

// slots returns how many attempts run in shared slots and in all, and how
// many of owner account's run and are queued.
func slots(sp *Space, account int64) (shared, running, queued int) {
	s := sp.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := sp.owners[account]; o != nil {
		running, queued = o.running, o.queued
	}
	return s.shared, running, queued
}

func mustWait(t *testing.T, sps ...*Space) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, sp := range sps {
		if err := sp.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// The shared slots bound the attempts across every Space; an owner with
// nothing running starts one beyond them, in a slot of its own.
func TestScheduler_WorkersBoundAllSpaces(t *testing.T) {
	s := &Scheduler{Workers: 3, PerTarget: 8, PerOwner: 8}
	g := newGate(t)
	t.Cleanup(g.openAll)
	a, b := s.Space(), s.Space()
	for i := range 6 {
		a.Submit(1, fmt.Sprintf("u%d", i), g.hold(fmt.Sprintf("a1-%d", i)))
	}
	g.waitStarted(3)
	if shared, running, queued := slots(a, 1); shared != 3 || running != 3 || queued != 3 {
		t.Fatalf("owner a/1: %d shared slots taken, %d running, %d queued; want 3, 3, 3", shared, running, queued)
	}
	b.Submit(1, "u0", g.hold("b1-0")) // another workspace's account 1: another owner
	b.Submit(1, "u1", g.hold("b1-1"))
	if got := g.waitStarted(1); !slices.Equal(got, []string{"b1-0"}) {
		t.Fatalf("started %v, want b1-0 in its own slot", got)
	}
	g.noneStarted()
	if shared, running, queued := slots(b, 1); shared != 3 || running != 1 || queued != 1 {
		t.Fatalf("owner b/1: %d shared slots taken, %d running, %d queued; want 3, 1, 1", shared, running, queued)
	}
	if a.Pending() != 6 || b.Pending() != 2 {
		t.Fatalf("pending %d and %d, want 6 and 2", a.Pending(), b.Pending())
	}
	// A freed shared slot goes to the owners waiting in turn: a/1 first.
	g.open("a1-0")
	if got := g.waitStarted(1); !slices.Equal(got, []string{"a1-3"}) {
		t.Fatalf("started %v, want a1-3", got)
	}
	g.openAll()
	mustWait(t, a, b)
	if n := len(g.startOrder()); n != 8 {
		t.Fatalf("%d attempts started, want 8", n)
	}
}

// A target's attempts never run more than PerTarget at once; the others wait
// in its queue, while other targets' run.
// Two accounts of one workspace with one URL share its slots; the same URL
// in another workspace is another target.
func TestScheduler_PerTargetBound(t *testing.T) {
	s := &Scheduler{Workers: 8, PerTarget: 2}
	g := newGate(t)
	t.Cleanup(g.openAll)
	a, b := s.Space(), s.Space()
	for i := range 5 {
		a.Submit(1, "slow", g.hold(fmt.Sprintf("slow-%d", i)))
	}
	for i := range 3 {
		a.Submit(1, "fast", g.quick(fmt.Sprintf("fast-%d", i)))
	}
	if got, want := g.waitStarted(5), []string{"fast-0", "fast-1", "fast-2", "slow-0", "slow-1"}; !slices.Equal(got, want) {
		t.Fatalf("started %v, want %v", got, want)
	}
	a.Submit(2, "slow", g.hold("other-account")) // nothing running, yet the URL's slots are taken
	b.Submit(1, "slow", g.hold("other-space"))
	if got := g.waitStarted(1); !slices.Equal(got, []string{"other-space"}) {
		t.Fatalf("started %v, want other-space", got)
	}
	g.noneStarted()
	if _, running, queued := slots(a, 2); running != 0 || queued != 1 {
		t.Fatalf("account 2: %d running, %d queued; want 0 and 1", running, queued)
	}
	g.open("slow-0")
	// The freed slot goes to the owners in turn: account 1 queued first.
	if got := g.waitStarted(1); !slices.Equal(got, []string{"slow-2"}) {
		t.Fatalf("started %v, want slow-2", got)
	}
	g.open("slow-1")
	if got := g.waitStarted(1); !slices.Equal(got, []string{"other-account"}) {
		t.Fatalf("started %v, want other-account", got)
	}
	g.openAll()
	mustWait(t, a, b)
}

// With one slot per target, a target's attempts run one at a time in the
// order submitted.
func TestScheduler_OneSlotKeepsOrder(t *testing.T) {
	s := &Scheduler{Workers: 4, PerTarget: 1}
	sp := s.Space()
	var mu sync.Mutex
	var order []int
	for i := range 20 {
		sp.Submit(1, "t", func(context.Context) {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		})
	}
	mustWait(t, sp)
	mu.Lock()
	defer mu.Unlock()
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
}

// An owner never runs more than PerOwner attempts at once, over all its
// targets; other owners' run beside them.
func TestScheduler_PerOwnerBound(t *testing.T) {
	s := &Scheduler{Workers: 64, PerTarget: 4, PerOwner: 3}
	g := newGate(t)
	t.Cleanup(g.openAll)
	sp := s.Space()
	for i := range 5 {
		sp.Submit(1, fmt.Sprintf("u%d", i), g.hold(fmt.Sprintf("one-%d", i)))
	}
	sp.Submit(2, "u0", g.hold("two-0"))
	if got, want := g.waitStarted(4), []string{"one-0", "one-1", "one-2", "two-0"}; !slices.Equal(got, want) {
		t.Fatalf("started %v, want %v", got, want)
	}
	g.noneStarted()
	if _, running, queued := slots(sp, 1); running != 3 || queued != 2 {
		t.Fatalf("owner 1: %d running, %d queued; want 3 and 2", running, queued)
	}
	g.open("one-1")
	if got := g.waitStarted(1); !slices.Equal(got, []string{"one-3"}) {
		t.Fatalf("started %v, want one-3", got)
	}
	g.openAll()
	mustWait(t, sp)
}

// An owner with nothing running starts an attempt at once even when every
// shared slot is taken, and again each time its running attempt returns.
func TestScheduler_OwnSlot(t *testing.T) {
	s := &Scheduler{Workers: 2, PerTarget: 4, PerOwner: 8}
	g := newGate(t)
	t.Cleanup(g.openAll)
	a, b := s.Space(), s.Space()
	for i := range 4 {
		a.Submit(1, fmt.Sprintf("hang-%d", i), g.hold(fmt.Sprintf("hang-%d", i)))
	}
	g.waitStarted(2)
	a.Submit(2, "ok", g.hold("ok-0"))
	a.Submit(2, "ok", g.quick("ok-1"))
	a.Submit(2, "ok", g.quick("ok-2"))
	b.Submit(1, "ok", g.quick("b-ok"))
	if got, want := g.waitStarted(2), []string{"b-ok", "ok-0"}; !slices.Equal(got, want) {
		t.Fatalf("started %v, want %v", got, want)
	}
	if shared, running, queued := slots(a, 2); shared != 2 || running != 1 || queued != 2 {
		t.Fatalf("owner 2: %d shared slots taken, %d running, %d queued; want 2, 1, 2", shared, running, queued)
	}
	g.noneStarted() // owner 2 has one running: its others wait for a shared slot
	g.open("ok-0")
	if got, want := g.waitStarted(2), []string{"ok-1", "ok-2"}; !slices.Equal(got, want) {
		t.Fatalf("started %v, want %v", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for deadline := time.Now().Add(10 * time.Second); a.Pending() != 4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pending %d, want owner 1's 4", a.Pending())
		}
	}
	if err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	g.openAll()
	mustWait(t, a)
}

// Freed shared slots go to the waiting owners in turn, not to the attempts
// submitted first.
func TestScheduler_RoundRobin(t *testing.T) {
	s := &Scheduler{Workers: 1, PerTarget: 8, PerOwner: 8}
	g := newGate(t)
	t.Cleanup(g.openAll)
	sp := s.Space()
	sp.Submit(9, "filler", g.hold("filler")) // takes the one shared slot
	for _, o := range []int64{1, 2, 3} {     // each keeps one running, in its own slot
		sp.Submit(o, "anchor", g.hold(fmt.Sprintf("anchor-%d", o)))
	}
	g.waitStarted(4)
	for _, o := range []int64{1, 2, 3} {
		for i := range 3 {
			sp.Submit(o, fmt.Sprintf("t%d", o), g.quick(fmt.Sprintf("%d.%d", o, i)))
		}
	}
	g.noneStarted()
	g.open("filler")
	g.waitStarted(9)
	got := g.startOrder()[4:]
	if want := []string{"1.0", "2.0", "3.0", "1.1", "2.1", "3.1", "1.2", "2.2", "3.2"}; !slices.Equal(got, want) {
		t.Fatalf("started in the order %v, want %v", got, want)
	}
	g.openAll()
	mustWait(t, sp)
}

// An owner starts its earliest submitted attempt among the targets with a
// free slot: a target whose slots are taken does not hold up the others.
func TestScheduler_OwnerTargetsInSubmissionOrder(t *testing.T) {
	s := &Scheduler{Workers: 1, PerTarget: 1, PerOwner: 8}
	g := newGate(t)
	t.Cleanup(g.openAll)
	sp := s.Space()
	sp.Submit(9, "filler", g.hold("filler"))
	sp.Submit(1, "u1", g.hold("anchor")) // own slot; u1's one slot taken
	g.waitStarted(2)
	for _, n := range []string{"u1#1", "u2#1", "u1#2", "u3#1", "u2#2"} {
		sp.Submit(1, n[:2], g.quick(n))
	}
	g.open("filler")
	g.waitStarted(3)
	g.open("anchor")
	g.waitStarted(2)
	if got, want := g.startOrder()[2:], []string{"u2#1", "u3#1", "u2#2", "u1#1", "u1#2"}; !slices.Equal(got, want) {
		t.Fatalf("started in the order %v, want %v", got, want)
	}
	mustWait(t, sp)
}

// Pending, Wait and Stop see one Space's attempts only: Stop cancels the
// Space's running and queued attempts, waits for them and leaves it usable;
// another Space's attempts go on.
func TestSpace_StopWaitPendingPerSpace(t *testing.T) {
	s := &Scheduler{Workers: 2, PerTarget: 1}
	g := newGate(t)
	t.Cleanup(g.openAll)
	a, b := s.Space(), s.Space()
	for i := range 3 {
		a.Submit(1, "t", g.hold(fmt.Sprintf("a-%d", i)))
	}
	for i := range 2 {
		b.Submit(1, "t", g.hold(fmt.Sprintf("b-%d", i)))
	}
	g.waitStarted(2)
	if a.Pending() != 3 || b.Pending() != 2 {
		t.Fatalf("pending %d and %d, want 3 and 2", a.Pending(), b.Pending())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := a.Wait(ctx); err == nil {
		t.Fatal("Wait returned nil while attempts hang")
	}
	a.Stop()
	g.waitStarted(2) // the queued ones, called with the cancelled context
	g.mu.Lock()
	cancelled := len(g.cancelled)
	bCut := g.cancelled["b-0"] || g.cancelled["b-1"]
	g.mu.Unlock()
	if cancelled != 3 || bCut || a.Pending() != 0 || b.Pending() != 2 {
		t.Fatalf("after a's Stop: %d cancelled (b's among them: %v), pending %d and %d; want a's 3, none of b's, 0 and 2",
			cancelled, bCut, a.Pending(), b.Pending())
	}
	if err := a.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	a.Submit(1, "t", func(ctx context.Context) {
		if ctx.Err() == nil {
			close(ran)
		}
	})
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the Space took no attempt after Stop")
	}
	mustWait(t, a) // b's attempts still hang
	if b.Pending() != 2 {
		t.Fatalf("b pending %d, want 2", b.Pending())
	}
	g.open("b-0", "b-1")
	mustWait(t, b)
}

// Under load from many owners, targets and workspaces, the bounds hold at
// every instant and every attempt runs once.
func TestScheduler_BoundsUnderLoad(t *testing.T) {
	const workers, perTarget, perOwner = 5, 2, 3
	s := &Scheduler{Workers: workers, PerTarget: perTarget, PerOwner: perOwner}
	var mu sync.Mutex
	total, ran := 0, 0
	byTarget, byOwner := map[string]int{}, map[string]int{}
	var errs []string
	check := func() {
		owners := 0
		for _, n := range byOwner {
			if n > 0 {
				owners++
			}
		}
		for k, n := range byTarget {
			if n > perTarget {
				errs = append(errs, fmt.Sprintf("target %s: %d at once", k, n))
			}
		}
		for k, n := range byOwner {
			if n > perOwner {
				errs = append(errs, fmt.Sprintf("owner %s: %d at once", k, n))
			}
		}
		if total > workers+owners {
			errs = append(errs, fmt.Sprintf("%d at once with %d owners running", total, owners))
		}
	}
	var spaces []*Space
	var wg sync.WaitGroup
	for w := range 3 {
		sp := s.Space()
		spaces = append(spaces, sp)
		for acct := range int64(4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					url := fmt.Sprintf("u%d", i%3)
					targetKey, ownerKey := fmt.Sprintf("%d/%s", w, url), fmt.Sprintf("%d/%d", w, acct)
					sp.Submit(acct, url, func(context.Context) {
						mu.Lock()
						total++
						byTarget[targetKey]++
						byOwner[ownerKey]++
						check()
						mu.Unlock()
						time.Sleep(50 * time.Microsecond) // some work, so attempts overlap
						mu.Lock()
						total--
						byTarget[targetKey]--
						byOwner[ownerKey]--
						ran++
						mu.Unlock()
					})
				}
			}()
		}
	}
	wg.Wait()
	mustWait(t, spaces...)
	mu.Lock()
	defer mu.Unlock()
	if len(errs) > 0 {
		t.Fatalf("bounds broken: %v", errs[:min(len(errs), 5)])
	}
	if ran != 3*4*30 {
		t.Fatalf("%d attempts ran, want %d", ran, 3*4*30)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared != 0 || len(s.waiting) != 0 {
		t.Fatalf("idle scheduler: %d shared slots taken, %d owners waiting", s.shared, len(s.waiting))
	}
	for _, sp := range spaces {
		if len(sp.owners) != 0 || len(sp.targets) != 0 {
			t.Fatalf("idle space keeps %d owners and %d targets", len(sp.owners), len(sp.targets))
		}
	}
}
