package workspace_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/workspace"
)

// engine is the store's side of workspaces, as cmd/pixsandbox wires it.
type engine struct{ *badgerstore.Store }

func (e engine) Space(id string) storage.Store          { return e.Store.Space(id) }
func (engine) CheckRecord(key string, val []byte) error { return badgerstore.CheckRecord(key, val) }

// wall is a wall clock a test moves.
type wall struct {
	mu  sync.Mutex
	now time.Time
}

func (w *wall) Now() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now }
func (w *wall) add(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.now = w.now.Add(d)
}

type env struct {
	store *badgerstore.Store
	base  simulator.Config
	wall  *wall
	// onDelete is the managers' Config.OnDelete.
	onDelete func(id string)
}

func newEnv(tb testing.TB, dir string) *env {
	tb.Helper()
	st, err := badgerstore.Open(badgerstore.Options{Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	base := simulator.Config{Store: st, Logger: simulatortest.Logger(), ClockMode: clock.ModeVirtual, ClockStart: fixtures.Epoch,
		Seed: fixtures.Seed, Fixtures: simulatortest.MustFixtures(tb)}
	return &env{store: st, base: base, wall: &wall{now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}}
}

func (e *env) open(tb testing.TB) *workspace.Manager {
	tb.Helper()
	ctx := context.Background()
	def, err := simulator.New(ctx, e.base)
	if err != nil {
		tb.Fatal(err)
	}
	base := e.base
	base.ClockStart = time.Time{}
	m, err := workspace.Open(ctx, workspace.Config{Engine: engine{e.store}, Default: def, Base: base, Fixtures: e.base.Fixtures, Wall: e.wall.Now, OnDelete: e.onDelete})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Stop(); def.Stop() })
	return m
}

// Idle workspaces expire after their TTL of wall time without a use; a use
// restarts the count; a TTL of 0 keeps a workspace. OnDelete is told of the
// expired one (the transport then drops its network fault rules).
func TestManager_ExpireIdle(t *testing.T) {
	e := newEnv(t, "")
	var deleted []string
	e.onDelete = func(id string) { deleted = append(deleted, id) }
	m := e.open(t)
	ctx := context.Background()
	mk := func(ttl time.Duration) string {
		w, err := m.Create(ctx, pix.NewWorkspace{Accounts: "none", TTL: ttl, HasTTL: true})
		if err != nil {
			t.Fatal(err)
		}
		return w.Info.ID
	}
	short, used, forever := mk(time.Hour), mk(time.Hour), mk(0)
	e.wall.add(50 * time.Minute)
	if _, ok := m.Simulator(used); !ok {
		t.Fatal("a live workspace is unknown")
	}
	e.wall.add(20 * time.Minute)
	if n := m.ExpireIdle(ctx); n != 1 {
		t.Errorf("after 70 minutes, %d expired, want 1", n)
	}
	if _, ok := m.Simulator(short); ok {
		t.Error("the idle workspace is still there")
	}
	if len(deleted) != 1 || deleted[0] != short {
		t.Errorf("OnDelete was told %v, want [%s]", deleted, short)
	}
	for _, id := range []string{used, forever} {
		if _, ok := m.Simulator(id); !ok {
			t.Errorf("workspace %s expired", id)
		}
	}
	e.wall.add(1000 * time.Hour)
	m.ExpireIdle(ctx)
	if _, ok := m.Simulator(forever); !ok || m.Len() != 1 {
		t.Errorf("after 1000 hours: %d workspaces, the one with ttl 0 there: %v", m.Len(), ok)
	}
}

// Open drops the keys of a workspace that has no registry record (a creation
// or deletion a crash cut short) and opens those that have one.
func TestManager_OpenDropsUnregistered(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, dir)
	m := e.open(t)
	ctx := context.Background()
	w, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	orphan := e.store.Space("00000000-0000-4000-8000-000000000001")
	if err := orphan.Update(ctx, func(tx storage.Tx) error { return tx.PutAccount(pix.Account{ID: 1}) }); err != nil {
		t.Fatal(err)
	}
	m.Stop()
	m2 := e.open(t)
	if err := m2.WaitDropped(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := e.store.Spaces()
	if err != nil || len(ids) != 1 || ids[0] != w.Info.ID {
		t.Fatalf("spaces after reopening: %v %v, want only %s", ids, err, w.Info.ID)
	}
	info, err := m2.Info(ctx, w.Info.ID)
	if err != nil || info.Accounts != 2 {
		t.Errorf("the registered workspace after reopening: %+v %v", info, err)
	}
}

// The same seed gives the same world; the limit of workspaces holds.
func TestManager_SeedAndLimit(t *testing.T) {
	e := newEnv(t, "")
	ctx := context.Background()
	def, err := simulator.New(ctx, e.base)
	if err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Open(ctx, workspace.Config{Engine: engine{e.store}, Default: def, Base: e.base, Fixtures: e.base.Fixtures,
		Limits: workspace.Limits{Workspaces: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	one, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 3, Seed: 42, HasSeed: true})
	if err != nil {
		t.Fatal(err)
	}
	two, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 3, Seed: 42, HasSeed: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one.Accounts {
		a, b := one.Accounts[i], two.Accounts[i]
		if a.Account.Name != b.Account.Name || a.Account.Document != b.Account.Document || a.Balance != b.Balance ||
			a.Account.PixKeys[0] != b.Account.PixKeys[0] {
			t.Errorf("account %d differs under one seed: %+v %+v", i, a, b)
		}
		if a.ClientID == b.ClientID {
			t.Errorf("account %d: two workspaces share a client id", i)
		}
	}
	if _, err := m.Create(ctx, pix.NewWorkspace{}); pix.ErrorKind(err) != pix.KindConflict {
		t.Errorf("a third workspace over a limit of 2: %v", err)
	}
}

// BenchmarkManager_IdleWorkspace reports the heap an idle workspace (three
// fixture accounts) keeps, and the time to create one in memory.
func BenchmarkManager_IdleWorkspace(b *testing.B) {
	e := newEnv(b, "")
	m := e.open(b)
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		if _, err := m.Create(ctx, pix.NewWorkspace{TTL: 0, HasTTL: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/workspace")
}

// An idle workspace is unloaded (its simulator leaves memory) and loaded
// again on its next use, with its state and clock as they were; a workspace
// in use, or on a real clock with a job pending, stays loaded.
func TestManager_UnloadIdle(t *testing.T) {
	e := newEnv(t, "")
	m := e.open(t)
	ctx := context.Background()
	virt, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	held, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	real, err := m.Create(ctx, pix.NewWorkspace{AccountCount: 1, Clock: "real"})
	if err != nil {
		t.Fatal(err)
	}
	sim, _ := m.Simulator(virt.Info.ID)
	if _, err := sim.AdvanceClock(ctx, time.Hour, ""); err != nil {
		t.Fatal(err)
	}
	before := sim.ClockNow().Now
	realSim, _ := m.Simulator(real.Info.ID)
	if _, err := realSim.ScheduleMarker(ctx, time.Hour, "keeps it loaded"); err != nil {
		t.Fatal(err)
	}
	_, release, _ := m.Acquire(held.Info.ID)
	e.wall.add(workspace.DefaultUnloadAfter + time.Second)
	if n := m.UnloadIdle(ctx); n != 1 {
		t.Errorf("unloaded %d workspaces, want 1 (the idle virtual one)", n)
	}
	if m.Loaded() != 2 {
		t.Errorf("%d workspaces loaded, want 2 (the held one, the real clock with a job)", m.Loaded())
	}
	info, err := m.Info(ctx, virt.Info.ID)
	if err != nil || info.Accounts != 2 || !info.Now.Equal(before) || m.Loaded() != 2 {
		t.Errorf("an unloaded workspace's info: %+v %v (loaded %d)", info, err, m.Loaded())
	}
	sim2, ok := m.Simulator(virt.Info.ID)
	if !ok || sim2 == sim {
		t.Fatalf("the unloaded workspace on its next use: %v, the same simulator %v", ok, sim2 == sim)
	}
	if got := sim2.ClockNow().Now; !got.Equal(before) {
		t.Errorf("clock after a reload: %v, want %v", got, before)
	}
	accts, err := sim2.Accounts(ctx)
	if err != nil || len(accts) != 2 {
		t.Errorf("accounts after a reload: %d %v", len(accts), err)
	}
	if ids := m.ClientWorkspaces(ctx, virt.Accounts[0].ClientID); len(ids) != 1 || ids[0] != virt.Info.ID {
		t.Errorf("its client id after a reload names %v", ids)
	}
	release()
}
