package agenda_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// run records one handler call.
type run struct {
	id  string
	now time.Time
}

// recorder is a Handler that records its calls and returns the error given by
// fail for each call number (starting at 1).
type recorder struct {
	mu   sync.Mutex
	runs []run
	fail func(call int) error
}

// Its record is a write: it goes in turn (agenda.InTurn), as a store's would,
// so the jobs of a group record in due order.
func (r *recorder) handle(ctx context.Context, now time.Time, j agenda.Job) (err error) {
	agenda.InTurn(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.runs = append(r.runs, run{id: j.ID, now: now})
		if r.fail != nil {
			err = r.fail(len(r.runs))
		}
	})
	return err
}

func (r *recorder) calls() []run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]run(nil), r.runs...)
}

// newVirtual returns an agenda on a virtual clock at epoch, backed by a
// MemStore, with a recorder registered for kind "test".
func newVirtual(t *testing.T) (*agenda.Agenda, *clock.Virtual, *agenda.MemStore, *recorder) {
	t.Helper()
	clk := clock.NewVirtual(epoch)
	store := agenda.NewMemStore()
	a := agenda.New(store, clk, nil)
	rec := &recorder{}
	a.Handle("test", rec.handle)
	return a, clk, store, rec
}

func mustSchedule(t *testing.T, a *agenda.Agenda, j agenda.Job) agenda.Job {
	t.Helper()
	got, err := a.Schedule(context.Background(), j)
	if err != nil {
		t.Fatalf("Schedule(%+v): %v", j, err)
	}
	return got
}

func mustAdvance(t *testing.T, a *agenda.Agenda, d time.Duration, wantRan int) {
	t.Helper()
	ran, err := a.Advance(context.Background(), d)
	if err != nil {
		t.Fatalf("Advance(%v): %v", d, err)
	}
	if ran != wantRan {
		t.Fatalf("Advance(%v) ran %d jobs, want %d", d, ran, wantRan)
	}
}

func mustGet(t *testing.T, s agenda.Store, id string) (agenda.Job, bool) {
	t.Helper()
	j, ok, err := s.GetJob(context.Background(), id)
	if err != nil {
		t.Fatalf("GetJob(%q): %v", id, err)
	}
	return j, ok
}

func mustDone(t *testing.T, s agenda.Store, id string) time.Time {
	t.Helper()
	ranAt, ok, err := s.DoneJob(context.Background(), id)
	if err != nil {
		t.Fatalf("DoneJob(%q): %v", id, err)
	}
	if !ok {
		t.Fatalf("DoneJob(%q): no done record", id)
	}
	return ranAt
}

// waitFor polls cond until it holds or a wall-time deadline passes, one long
// enough that only a hang reaches it on a loaded machine. Only the tests of
// the background runner use it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAgenda_Advance(t *testing.T) {
	t.Run("OK in due order with now == Due", func(t *testing.T) {
		a, clk, store, rec := newVirtual(t)
		for _, s := range []int{3, 1, 2} {
			mustSchedule(t, a, agenda.Job{ID: fmt.Sprintf("job-%d", s), Kind: "test", Due: epoch.Add(time.Duration(s) * time.Second)})
		}
		mustAdvance(t, a, 5*time.Second, 3)

		got := rec.calls()
		if len(got) != 3 {
			t.Fatalf("handler ran %d times, want 3", len(got))
		}
		for i, r := range got {
			wantID, wantNow := fmt.Sprintf("job-%d", i+1), epoch.Add(time.Duration(i+1)*time.Second)
			if r.id != wantID || !r.now.Equal(wantNow) {
				t.Errorf("run %d = %s at %v, want %s at %v", i, r.id, r.now, wantID, wantNow)
			}
			if ranAt := mustDone(t, store, wantID); !ranAt.Equal(wantNow) {
				t.Errorf("DoneJob(%s)=%v, want %v", wantID, ranAt, wantNow)
			}
		}
		if got, want := clk.Now(), epoch.Add(5*time.Second); !got.Equal(want) {
			t.Fatalf("clock at %v, want %v", got, want)
		}
	})

	t.Run("OK due exactly at the target", func(t *testing.T) {
		a, _, store, rec := newVirtual(t)
		mustSchedule(t, a, agenda.Job{ID: "ten", Kind: "test", Due: epoch.Add(10 * time.Second)})
		mustAdvance(t, a, 9*time.Second, 0)
		if _, ok := mustGet(t, store, "ten"); !ok {
			t.Fatal("job ran early")
		}
		mustAdvance(t, a, time.Second, 1)
		if got := rec.calls(); len(got) != 1 || !got[0].now.Equal(epoch.Add(10*time.Second)) {
			t.Fatalf("runs=%v, want one at +10s", got)
		}
	})

	t.Run("OK jobs scheduled by handlers inside the window", func(t *testing.T) {
		a, clk, store, rec := newVirtual(t)
		a.Handle("chain", func(ctx context.Context, now time.Time, j agenda.Job) error {
			if _, err := a.Schedule(ctx, agenda.Job{ID: "inside", Kind: "test", Due: now.Add(2 * time.Second)}); err != nil {
				return err
			}
			_, err := a.Schedule(ctx, agenda.Job{ID: "outside", Kind: "test", Due: now.Add(time.Hour)})
			return err
		})
		mustSchedule(t, a, agenda.Job{ID: "first", Kind: "chain", Due: epoch.Add(time.Second)})
		mustAdvance(t, a, 5*time.Second, 2)

		got := rec.calls()
		if len(got) != 1 || got[0].id != "inside" || !got[0].now.Equal(epoch.Add(3*time.Second)) {
			t.Fatalf("runs=%v, want inside at +3s", got)
		}
		if _, ok := mustGet(t, store, "outside"); !ok {
			t.Fatal("job outside the window ran or vanished")
		}
		if got, want := clk.Now(), epoch.Add(5*time.Second); !got.Equal(want) {
			t.Fatalf("clock at %v, want %v", got, want)
		}
	})

	t.Run("OK overdue job sees the current time", func(t *testing.T) {
		a, clk, _, rec := newVirtual(t)
		if err := clk.Set(epoch.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		mustSchedule(t, a, agenda.Job{ID: "late", Kind: "test", Due: epoch})
		mustAdvance(t, a, 0, 1)
		if got := rec.calls(); len(got) != 1 || !got[0].now.Equal(epoch.Add(time.Minute)) {
			t.Fatalf("runs=%v, want one at +1m", got)
		}
	})

	t.Run("ErrBackwards", func(t *testing.T) {
		a, clk, _, _ := newVirtual(t)
		if _, err := a.Advance(context.Background(), -time.Second); !errors.Is(err, clock.ErrBackwards) {
			t.Fatalf("Advance(-1s)=%v, want ErrBackwards", err)
		}
		if got := clk.Now(); !got.Equal(epoch) {
			t.Fatalf("clock moved to %v", got)
		}
	})
}

func TestAgenda_AdvanceTo(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		a, clk, _, rec := newVirtual(t)
		mustSchedule(t, a, agenda.Job{ID: "j", Kind: "test", Due: epoch.Add(time.Hour)})
		ran, err := a.AdvanceTo(context.Background(), epoch.Add(2*time.Hour))
		if err != nil || ran != 1 {
			t.Fatalf("AdvanceTo=%d, %v; want 1, nil", ran, err)
		}
		if got := rec.calls(); len(got) != 1 || !got[0].now.Equal(epoch.Add(time.Hour)) {
			t.Fatalf("runs=%v, want one at +1h", got)
		}
		if got, want := clk.Now(), epoch.Add(2*time.Hour); !got.Equal(want) {
			t.Fatalf("clock at %v, want %v", got, want)
		}
		// Moving to the current time is allowed.
		if _, err := a.AdvanceTo(context.Background(), clk.Now()); err != nil {
			t.Fatalf("AdvanceTo(now)=%v", err)
		}
	})

	t.Run("ErrBackwards", func(t *testing.T) {
		a, clk, store, rec := newVirtual(t)
		mustSchedule(t, a, agenda.Job{ID: "past", Kind: "test", Due: epoch.Add(-2 * time.Hour)})
		ran, err := a.AdvanceTo(context.Background(), epoch.Add(-time.Hour))
		if !errors.Is(err, clock.ErrBackwards) || ran != 0 {
			t.Fatalf("AdvanceTo(-1h)=%d, %v; want 0, ErrBackwards", ran, err)
		}
		if got := clk.Now(); !got.Equal(epoch) {
			t.Fatalf("clock moved to %v", got)
		}
		if len(rec.calls()) != 0 {
			t.Fatal("a job ran")
		}
		if _, ok := mustGet(t, store, "past"); !ok {
			t.Fatal("job vanished")
		}
	})
}

func TestAgenda_RunDue(t *testing.T) {
	a, clk, store, rec := newVirtual(t)
	mustSchedule(t, a, agenda.Job{ID: "b", Kind: "test", Due: epoch})
	mustSchedule(t, a, agenda.Job{ID: "a", Kind: "test", Due: epoch})
	mustSchedule(t, a, agenda.Job{ID: "early", Kind: "test", Due: epoch.Add(-time.Second)})
	mustSchedule(t, a, agenda.Job{ID: "later", Kind: "test", Due: epoch.Add(time.Nanosecond)})

	ran, err := a.RunDue(context.Background())
	if err != nil || ran != 3 {
		t.Fatalf("RunDue=%d, %v; want 3, nil", ran, err)
	}
	var ids []string
	for _, r := range rec.calls() {
		ids = append(ids, r.id)
		if !r.now.Equal(epoch) {
			t.Errorf("%s saw now=%v, want %v", r.id, r.now, epoch)
		}
	}
	if got, want := fmt.Sprint(ids), "[early a b]"; got != want {
		t.Fatalf("order=%s, want %s", got, want)
	}
	if !clk.Now().Equal(epoch) {
		t.Fatalf("RunDue moved the clock to %v", clk.Now())
	}
	if _, ok := mustGet(t, store, "later"); !ok {
		t.Fatal("job not yet due ran")
	}
}

func TestAgenda_retries(t *testing.T) {
	t.Run("OK backoff then success", func(t *testing.T) {
		a, _, store, rec := newVirtual(t)
		rec.fail = func(call int) error {
			if call <= 2 {
				return errors.New("boom")
			}
			return nil
		}
		mustSchedule(t, a, agenda.Job{ID: "flaky", Kind: "test", Due: epoch})

		mustAdvance(t, a, 0, 1)
		j, ok := mustGet(t, store, "flaky")
		if !ok || j.Attempts != 1 || !j.Due.Equal(epoch.Add(time.Second)) {
			t.Fatalf("after 1 failure: %+v, %v; want Attempts 1 due +1s", j, ok)
		}
		mustAdvance(t, a, time.Second, 1)
		j, ok = mustGet(t, store, "flaky")
		if want := epoch.Add(6 * time.Second); !ok || j.Attempts != 2 || !j.Due.Equal(want) {
			t.Fatalf("after 2 failures: %+v, %v; want Attempts 2 due %v", j, ok, want)
		}
		mustAdvance(t, a, 5*time.Second, 1)
		if _, ok := mustGet(t, store, "flaky"); ok {
			t.Fatal("job still pending after success")
		}
		if ranAt := mustDone(t, store, "flaky"); !ranAt.Equal(epoch.Add(6 * time.Second)) {
			t.Fatalf("ranAt=%v, want +6s", ranAt)
		}
	})

	t.Run("OK gives up after the last retry", func(t *testing.T) {
		a, _, store, rec := newVirtual(t)
		rec.fail = func(int) error { return errors.New("always") }
		mustSchedule(t, a, agenda.Job{ID: "bad", Kind: "test", Due: epoch})

		mustAdvance(t, a, time.Hour, 1+agenda.MaxRetries)
		var gaps []time.Duration
		runs := rec.calls()
		for i := 1; i < len(runs); i++ {
			gaps = append(gaps, runs[i].now.Sub(runs[i-1].now))
		}
		if got, want := fmt.Sprint(gaps), "[1s 5s 30s 2m0s 10m0s]"; got != want {
			t.Fatalf("retry gaps=%s, want %s", got, want)
		}
		if _, ok := mustGet(t, store, "bad"); ok {
			t.Fatal("job still pending after giving up")
		}
		if ranAt := mustDone(t, store, "bad"); !ranAt.Equal(runs[len(runs)-1].now) {
			t.Fatalf("ranAt=%v, want the last run %v", ranAt, runs[len(runs)-1].now)
		}
	})

	t.Run("OK panic is recovered and retried", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		calls := 0
		a.Handle("panicky", func(ctx context.Context, now time.Time, j agenda.Job) error {
			calls++
			if calls == 1 {
				panic("handler bug")
			}
			return nil
		})
		mustSchedule(t, a, agenda.Job{ID: "p", Kind: "panicky", Due: epoch})
		mustAdvance(t, a, 0, 1)
		if j, ok := mustGet(t, store, "p"); !ok || j.Attempts != 1 {
			t.Fatalf("after panic: %+v, %v; want pending with Attempts 1", j, ok)
		}
		mustAdvance(t, a, time.Second, 1)
		mustDone(t, store, "p")
		if calls != 2 {
			t.Fatalf("handler ran %d times, want 2", calls)
		}
	})
}

func TestAgenda_unknownKind(t *testing.T) {
	a, _, store, rec := newVirtual(t)
	mustSchedule(t, a, agenda.Job{ID: "ghost", Kind: "no-such-kind", Due: epoch})
	mustAdvance(t, a, time.Second, 1)
	if _, ok := mustGet(t, store, "ghost"); ok {
		t.Fatal("job with unknown kind still pending")
	}
	if ranAt := mustDone(t, store, "ghost"); !ranAt.Equal(epoch) {
		t.Fatalf("ranAt=%v, want %v", ranAt, epoch)
	}
	if len(rec.calls()) != 0 {
		t.Fatal("another handler ran")
	}
	mustAdvance(t, a, time.Hour, 0)
}

func TestAgenda_handlerOwnsItsJob(t *testing.T) {
	t.Run("OK deleted by its handler", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		a.Handle("self-delete", func(ctx context.Context, now time.Time, j agenda.Job) error {
			return store.DeleteJob(ctx, j.ID)
		})
		mustSchedule(t, a, agenda.Job{ID: "d", Kind: "self-delete", Due: epoch, Cron: "@hourly"})
		mustAdvance(t, a, 3*time.Hour, 1)
		if _, ok := mustGet(t, store, "d"); ok {
			t.Fatal("deleted recurring job was rescheduled")
		}
		mustDone(t, store, "d")
	})

	t.Run("OK replaced by its handler", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		calls := 0
		a.Handle("self-replace", func(ctx context.Context, now time.Time, j agenda.Job) error {
			calls++
			if calls == 1 {
				j.Due = now.Add(time.Minute)
				j.Payload = []byte(`{"again":true}`)
				return store.PutJob(ctx, j)
			}
			return nil
		})
		mustSchedule(t, a, agenda.Job{ID: "r", Kind: "self-replace", Due: epoch})
		mustAdvance(t, a, 0, 1)
		j, ok := mustGet(t, store, "r")
		if !ok || !j.Due.Equal(epoch.Add(time.Minute)) {
			t.Fatalf("replaced job: %+v, %v; want pending at +1m", j, ok)
		}
		mustAdvance(t, a, time.Minute, 1)
		if ranAt := mustDone(t, store, "r"); !ranAt.Equal(epoch.Add(time.Minute)) {
			t.Fatalf("ranAt=%v, want +1m", ranAt)
		}
	})
}

func TestAgenda_Every(t *testing.T) {
	const spec = "CRON_TZ=America/Sao_Paulo 0 20 * * *"
	ctx := context.Background()

	t.Run("OK anchored daily runs", func(t *testing.T) {
		a, _, store, rec := newVirtual(t)
		if err := a.Every(ctx, "daily", spec, "test", []byte(`{}`)); err != nil {
			t.Fatalf("Every: %v", err)
		}
		first := time.Date(2025, 3, 1, 23, 0, 0, 0, time.UTC)
		if j, ok := mustGet(t, store, "daily"); !ok || !j.Due.Equal(first) {
			t.Fatalf("first due: %+v, %v; want %v", j, ok, first)
		}
		ran, err := a.AdvanceTo(ctx, time.Date(2025, 3, 2, 23, 30, 0, 0, time.UTC))
		if err != nil || ran != 2 {
			t.Fatalf("AdvanceTo=%d, %v; want 2, nil", ran, err)
		}
		runs := rec.calls()
		want := []time.Time{first, time.Date(2025, 3, 2, 23, 0, 0, 0, time.UTC)}
		if len(runs) != len(want) {
			t.Fatalf("runs=%v, want %v", runs, want)
		}
		for i := range want {
			if !runs[i].now.Equal(want[i]) {
				t.Errorf("run %d at %v, want %v", i, runs[i].now, want[i])
			}
		}
		j, ok := mustGet(t, store, "daily")
		if next := time.Date(2025, 3, 3, 23, 0, 0, 0, time.UTC); !ok || !j.Due.Equal(next) || j.Attempts != 0 {
			t.Fatalf("next: %+v, %v; want due %v", j, ok, next)
		}
	})

	t.Run("OK keeps the due of an existing job", func(t *testing.T) {
		a, clk, store, _ := newVirtual(t)
		if err := a.Every(ctx, "daily", spec, "test", nil); err != nil {
			t.Fatal(err)
		}
		if err := clk.Set(epoch.Add(48 * time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := a.Every(ctx, "daily", spec, "test", []byte(`{"v":2}`)); err != nil {
			t.Fatal(err)
		}
		j, _ := mustGet(t, store, "daily")
		if want := time.Date(2025, 3, 1, 23, 0, 0, 0, time.UTC); !j.Due.Equal(want) || string(j.Payload) != `{"v":2}` {
			t.Fatalf("job=%+v, want due %v with the new payload", j, want)
		}
	})

	t.Run("OK recurring job that keeps failing moves to its next run", func(t *testing.T) {
		a, _, store, rec := newVirtual(t)
		rec.fail = func(int) error { return errors.New("down") }
		if err := a.Every(ctx, "daily", spec, "test", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := a.AdvanceTo(ctx, time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if got, want := len(rec.calls()), 1+agenda.MaxRetries; got != want {
			t.Fatalf("handler ran %d times, want %d", got, want)
		}
		j, ok := mustGet(t, store, "daily")
		if next := time.Date(2025, 3, 2, 23, 0, 0, 0, time.UTC); !ok || !j.Due.Equal(next) || j.Attempts != 0 {
			t.Fatalf("job=%+v, %v; want due %v with Attempts 0", j, ok, next)
		}
	})

	t.Run("ErrInvalidJob", func(t *testing.T) {
		tests := []struct {
			name, id, spec, kind string
		}{
			{name: "empty id", id: "", spec: "@daily", kind: "test"},
			{name: "empty kind", id: "x", spec: "@daily", kind: ""},
			{name: "bad spec", id: "x", spec: "not a spec", kind: "test"},
			{name: "empty spec", id: "x", spec: "", kind: "test"},
			{name: "zone without fields", id: "x", spec: "CRON_TZ=UTC", kind: "test"},
			{name: "unknown zone", id: "x", spec: "CRON_TZ=Nowhere/Atlantis 0 20 * * *", kind: "test"},
			{name: "never fires", id: "x", spec: "0 0 30 2 *", kind: "test"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				a, _, _, _ := newVirtual(t)
				if err := a.Every(ctx, tt.id, tt.spec, tt.kind, nil); !errors.Is(err, agenda.ErrInvalidJob) {
					t.Fatalf("Every(%q, %q, %q)=%v, want ErrInvalidJob", tt.id, tt.spec, tt.kind, err)
				}
			})
		}
	})
}

func TestAgenda_Schedule(t *testing.T) {
	ctx := context.Background()

	t.Run("OK generates an id", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		brt := time.FixedZone("BRT", -3*60*60)
		j := mustSchedule(t, a, agenda.Job{Kind: "test", Due: epoch.In(brt), Payload: []byte(`{"a":1}`)})
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(j.ID) {
			t.Fatalf("ID=%q, want 32 hex digits", j.ID)
		}
		if j.Due.Location() != time.UTC || !j.Due.Equal(epoch) {
			t.Fatalf("Due=%v, want %v in UTC", j.Due, epoch)
		}
		got, ok := mustGet(t, store, j.ID)
		if !ok || got.Kind != "test" || string(got.Payload) != `{"a":1}` {
			t.Fatalf("stored %+v, %v", got, ok)
		}
		if other := mustSchedule(t, a, agenda.Job{Kind: "test", Due: epoch}); other.ID == j.ID {
			t.Fatal("two generated IDs are equal")
		}
	})

	t.Run("ErrInvalidJob", func(t *testing.T) {
		tests := []struct {
			name string
			job  agenda.Job
		}{
			{name: "empty kind", job: agenda.Job{Due: epoch}},
			{name: "zero due", job: agenda.Job{Kind: "test"}},
			{name: "bad cron", job: agenda.Job{Kind: "test", Due: epoch, Cron: "61 * * * *"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				a, _, _, _ := newVirtual(t)
				if _, err := a.Schedule(ctx, tt.job); !errors.Is(err, agenda.ErrInvalidJob) {
					t.Fatalf("Schedule(%+v)=%v, want ErrInvalidJob", tt.job, err)
				}
			})
		}
	})
}

func TestAgenda_Advance_concurrent(t *testing.T) {
	a, clk, _, rec := newVirtual(t)
	const jobs, callers = 50, 8
	for i := range jobs {
		mustSchedule(t, a, agenda.Job{ID: fmt.Sprintf("job-%02d", i), Kind: "test", Due: epoch.Add(time.Duration(i+1) * time.Second)})
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
	)
	for range callers {
		wg.Go(func() {
			ran, err := a.Advance(context.Background(), 10*time.Second)
			if err != nil {
				t.Errorf("Advance: %v", err)
			}
			mu.Lock()
			total += ran
			mu.Unlock()
		})
	}
	wg.Wait()

	seen := make(map[string]int)
	for _, r := range rec.calls() {
		seen[r.id]++
	}
	if len(seen) != jobs || total != jobs {
		t.Fatalf("ran %d distinct jobs (reported %d), want %d", len(seen), total, jobs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
	if got, want := clk.Now(), epoch.Add(callers*10*time.Second); !got.Equal(want) {
		t.Fatalf("clock at %v, want %v", got, want)
	}
}

func TestAgenda_Start(t *testing.T) {
	ctx := context.Background()

	t.Run("OK job overdue after a restart runs at start", func(t *testing.T) {
		store := agenda.NewMemStore()
		// The job fell due while no agenda was running.
		if err := store.PutJob(ctx, agenda.Job{ID: "missed", Kind: "test", Due: epoch.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		a := agenda.New(store, clock.NewVirtual(epoch), nil)
		rec := &recorder{}
		a.Handle("test", rec.handle)
		a.Start(ctx)
		t.Cleanup(a.Stop)

		waitFor(t, "the missed job", func() bool {
			_, ok, _ := store.DoneJob(ctx, "missed")
			return ok
		})
		if got := rec.calls(); len(got) != 1 || !got[0].now.Equal(epoch) {
			t.Fatalf("runs=%v, want one at %v", got, epoch)
		}
	})

	t.Run("OK virtual runner runs due jobs when woken", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		a.Start(ctx)
		t.Cleanup(a.Stop)
		mustSchedule(t, a, agenda.Job{ID: "future", Kind: "test", Due: epoch.Add(time.Nanosecond)})
		mustSchedule(t, a, agenda.Job{ID: "now", Kind: "test", Due: epoch})
		waitFor(t, "the due job", func() bool {
			_, ok, _ := store.DoneJob(ctx, "now")
			return ok
		})
		// A virtual clock never moves by itself, so the future job waits for Advance.
		if _, ok := mustGet(t, store, "future"); !ok {
			t.Fatal("future job ran without Advance")
		}
		mustAdvance(t, a, time.Nanosecond, 1)
	})

	t.Run("OK real clock timer", func(t *testing.T) {
		clk := clock.NewReal(0)
		store := agenda.NewMemStore()
		a := agenda.New(store, clk, nil)
		rec := &recorder{}
		a.Handle("test", rec.handle)
		a.Start(ctx)
		t.Cleanup(a.Stop)

		due := clk.Now().Add(50 * time.Millisecond)
		mustSchedule(t, a, agenda.Job{ID: "soon", Kind: "test", Due: due})
		waitFor(t, "the timer", func() bool {
			_, ok, _ := store.DoneJob(ctx, "soon")
			return ok
		})
		if got := rec.calls(); len(got) != 1 || got[0].now.Before(due) {
			t.Fatalf("runs=%v, want one at or after %v", got, due)
		}
	})

	t.Run("OK Stop waits and Start again", func(t *testing.T) {
		a, _, store, _ := newVirtual(t)
		a.Stop() // not started: no-op
		a.Start(ctx)
		a.Start(ctx) // already started: no-op
		a.Stop()
		a.Stop()
		a.Start(ctx)
		t.Cleanup(a.Stop)
		mustSchedule(t, a, agenda.Job{ID: "after-restart", Kind: "test", Due: epoch})
		waitFor(t, "the job", func() bool {
			_, ok, _ := store.DoneJob(ctx, "after-restart")
			return ok
		})
	})
}

// A handler whose store reports (agenda.Committed) that its transaction
// completed the job spares the agenda reading the job back and MarkDone; any
// later word on the job, another job's completion or a failure does not.
func TestAgenda_committedCompletion(t *testing.T) {
	// complete is the handler's transaction: MarkDone stands for the store's
	// CompleteJob, then the store reports the commit.
	complete := func(ctx context.Context, store *agenda.CountingStore, j agenda.Job, now time.Time, id string) error {
		if err := store.Store.MarkDone(ctx, j, now); err != nil {
			return err
		}
		agenda.Committed(ctx, id, true)
		return nil
	}
	cases := []struct {
		name      string
		handler   func(ctx context.Context, store *agenda.CountingStore, now time.Time, j agenda.Job) error
		wantGets  int // per job
		wantDones int // the agenda's MarkDone calls, per job
		pending   bool
	}{
		{name: "completed", wantGets: 0, wantDones: 0,
			handler: func(ctx context.Context, store *agenda.CountingStore, now time.Time, j agenda.Job) error {
				return complete(ctx, store, j, now, j.ID)
			}},
		{name: "completed, then put again", wantGets: 1, wantDones: 0, pending: true,
			handler: func(ctx context.Context, store *agenda.CountingStore, now time.Time, j agenda.Job) error {
				if err := complete(ctx, store, j, now, j.ID); err != nil {
					return err
				}
				j.Due = now.Add(time.Hour)
				if err := store.PutJob(ctx, j); err != nil {
					return err
				}
				agenda.Committed(ctx, j.ID, false)
				return nil
			}},
		{name: "another job completed", wantGets: 1, wantDones: 1,
			handler: func(ctx context.Context, store *agenda.CountingStore, now time.Time, j agenda.Job) error {
				agenda.Committed(ctx, j.ID+"-other", true)
				return nil
			}},
		{name: "completed, then failed", wantGets: 1, wantDones: 0, pending: true,
			handler: func(ctx context.Context, store *agenda.CountingStore, now time.Time, j agenda.Job) error {
				agenda.Committed(ctx, j.ID, true)
				return errors.New("boom")
			}},
	}
	for _, tc := range cases {
		for _, jobs := range []int{1, 3} { // alone, and in a group
			t.Run(fmt.Sprintf("%s/%d jobs", tc.name, jobs), func(t *testing.T) {
				mem := agenda.NewMemStore()
				store := &agenda.CountingStore{Store: mem}
				a := agenda.New(store, clock.NewVirtual(epoch), nil)
				a.Handle("k", func(ctx context.Context, now time.Time, j agenda.Job) error {
					return tc.handler(ctx, store, now, j)
				})
				for i := range jobs {
					mustSchedule(t, a, agenda.Job{ID: fmt.Sprint("j", i), Kind: "k", Due: epoch})
				}
				mustAdvance(t, a, 0, jobs)
				gets, dones := store.Counts()
				if gets != tc.wantGets*jobs || dones != tc.wantDones*jobs {
					t.Fatalf("GetJob %d times, MarkDone %d; want %d and %d", gets, dones, tc.wantGets*jobs, tc.wantDones*jobs)
				}
				for i := range jobs {
					if _, ok := mustGet(t, mem, fmt.Sprint("j", i)); ok != tc.pending {
						t.Fatalf("job j%d pending: %v, want %v", i, ok, tc.pending)
					}
				}
			})
		}
	}
}
