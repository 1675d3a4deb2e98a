package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// NextJob seeks from the floor of pending due times; a job scheduled below the
// floor (directly or inside a store transaction, as the outbox does) lowers it,
// so it is never skipped.
func TestNextJob_Floor(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	next := func(want string) {
		t.Helper()
		j, ok, err := s.NextJob(ctx)
		if err != nil || (want == "") == ok || (ok && j.ID != want) {
			t.Fatalf("NextJob = %q %v %v, want %q", j.ID, ok, err, want)
		}
	}
	put := func(id string, due time.Duration) {
		t.Helper()
		if err := s.PutJob(ctx, agenda.Job{ID: id, Kind: "k", Due: t0.Add(due)}); err != nil {
			t.Fatal(err)
		}
	}
	next("")
	put("a", 10*time.Second)
	put("b", 20*time.Second)
	next("a") // the floor is now a's due time
	a, _, _ := s.GetJob(ctx, "a")
	if err := s.MarkDone(ctx, a, t0); err != nil {
		t.Fatal(err)
	}
	next("b")
	put("early", 5*time.Second) // below the floor
	next("early")
	e, _, _ := s.GetJob(ctx, "early")
	if err := s.MarkDone(ctx, e, t0); err != nil {
		t.Fatal(err)
	}
	next("b")
	if err := s.Update(ctx, func(tx storage.Tx) error {
		return tx.PutJob(agenda.Job{ID: "outbox", Kind: "k", Due: t0.Add(time.Second)})
	}); err != nil {
		t.Fatal(err)
	}
	next("outbox")
	o, _, _ := s.GetJob(ctx, "outbox")
	if err := s.MarkDone(ctx, o, t0); err != nil {
		t.Fatal(err)
	}
	// A read whose snapshot found b first, while c (earlier than b) was
	// scheduled: the raise stops at c.
	_, token := s.floor.begin()
	put("c", 15*time.Second)
	s.floor.raise(t0.Add(20*time.Second).UnixNano(), token)
	next("c")
	// A read overtaken by another read leaves the floor alone.
	_, stale := s.floor.begin()
	_, _ = s.floor.begin()
	s.floor.raise(t0.Add(time.Hour).UnixNano(), stale)
	next("c")
}

// Under a steady flow of scheduled jobs — one committed during every read —
// the floor still rises to the earliest pending job: a read is bounded only
// by what was scheduled while it ran.
func TestNextJob_FloorRisesUnderLoad(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for i := range 20 {
		_, token := s.floor.begin()
		s.floor.lower(t0.Add(time.Hour + time.Duration(i)).UnixNano()) // a later job, committed meanwhile
		s.floor.raise(t0.Add(time.Duration(i)*time.Second).UnixNano(), token)
	}
	if want := t0.Add(19 * time.Second).UnixNano(); s.floor.due != want {
		t.Fatalf("floor %d, want the earliest pending job's due %d", s.floor.due, want)
	}
}

// BenchmarkNextJob_AfterManyRun measures NextJob with 20,000 jobs already run
// (their deleted keys still in the LSM) and one pending.
func BenchmarkNextJob_AfterManyRun(b *testing.B) {
	ctx := context.Background()
	s, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for i := range 20_000 {
		j := agenda.Job{ID: fmt.Sprintf("j%05d", i), Kind: "k", Due: t0.Add(time.Duration(i) * time.Millisecond)}
		if err := s.PutJob(ctx, j); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.NextJob(ctx); err != nil {
			b.Fatal(err)
		}
		if err := s.MarkDone(ctx, j, t0); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.PutJob(ctx, agenda.Job{ID: "pending", Kind: "k", Due: t0.Add(time.Hour)}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok, err := s.NextJob(ctx); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// A handler that completes its job inside its own transaction leaves MarkDone
// nothing to write: the recorded run is the handler's.
func TestCompleteJob_ThenMarkDone(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	j := agenda.Job{ID: "settle/1", Kind: "k", Due: t0}
	if err := s.PutJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx storage.Tx) error { return tx.CompleteJob(j, t0) }); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetJob(ctx, j.ID); ok {
		t.Fatal("completed job still pending")
	}
	if err := s.MarkDone(ctx, j, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ranAt, ok, _ := s.DoneJob(ctx, j.ID); !ok || !ranAt.Equal(t0) {
		t.Fatalf("DoneJob = %v %v, want the handler's %v", ranAt, ok, t0)
	}
	// A later run under the same id (another version) is recorded again.
	j2 := j
	j2.Due = t0.Add(time.Hour)
	if err := s.MarkDone(ctx, j2, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ranAt, _, _ := s.DoneJob(ctx, j.ID); !ranAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("DoneJob after another version = %v", ranAt)
	}
}

// CountDue counts what DueJobs lists, from the keys alone, and gives the same
// earliest due time: before and after jobs run, with and without a limit.
func TestCountDue_AgreesWithDueJobs(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	check := func(until time.Time, limit int) {
		t.Helper()
		jobs, err := s.DueJobs(ctx, until, limit)
		if err != nil {
			t.Fatal(err)
		}
		n, oldest, err := s.CountDue(ctx, until, limit)
		if err != nil || n != len(jobs) {
			t.Fatalf("CountDue(%v, %d) = %d, %v; DueJobs lists %d", until.Sub(t0), limit, n, err, len(jobs))
		}
		if n > 0 && !oldest.Equal(jobs[0].Due) || n == 0 && !oldest.IsZero() {
			t.Fatalf("CountDue(%v, %d): oldest %v, DueJobs' first %v", until.Sub(t0), limit, oldest, jobs)
		}
	}
	for i := range 30 {
		j := agenda.Job{ID: fmt.Sprint("j", i), Kind: "k", Due: t0.Add(time.Duration(i%10) * time.Second).Add(time.Duration(i) * time.Nanosecond)}
		if err := s.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	for _, until := range []time.Duration{-time.Second, 0, 3 * time.Second, 9 * time.Second, time.Hour} {
		for _, limit := range []int{0, 1, 7, 100} {
			check(t0.Add(until), limit)
		}
	}
	// The first ten due run (their keys deleted, the floor raised).
	jobs, err := s.DueJobs(ctx, t0.Add(time.Second), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := s.MarkDone(ctx, j, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.NextJob(ctx); err != nil {
		t.Fatal(err)
	}
	for _, until := range []time.Duration{time.Second, 5 * time.Second, time.Hour} {
		check(t0.Add(until), 0)
	}
}

// A handler that completes its job in its own transaction tells the agenda so
// through the commit (agenda.Committed): the agenda reads nothing back. One
// that puts the job again after completing it, or only touches another job,
// gets the agenda's bookkeeping as before; so does an operation of the
// handler that failed after completing the job (its writes, and its word on
// the job, are dropped).
func TestCompleteJob_TellsTheAgenda(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	errRefused := errors.New("refused")
	cases := []struct {
		name                string
		work                func(tx storage.Tx, j agenda.Job) error
		wantGets, wantDones int // per job
		pending             bool
	}{
		{"completed", func(tx storage.Tx, j agenda.Job) error { return tx.CompleteJob(j, t0) }, 0, 0, false},
		{"completed, then put again", func(tx storage.Tx, j agenda.Job) error {
			if err := tx.CompleteJob(j, t0); err != nil {
				return err
			}
			j.Due = t0.Add(time.Hour)
			return tx.PutJob(j)
		}, 1, 0, true},
		// A settlement completes its job, then deletes any pending job of
		// that id (forced settlements have one): nothing is left to delete.
		{"completed, then deleted with nothing to delete", func(tx storage.Tx, j agenda.Job) error {
			if err := tx.CompleteJob(j, t0); err != nil {
				return err
			}
			return tx.DeleteJob(j.ID)
		}, 0, 0, false},
		{"deleted", func(tx storage.Tx, j agenda.Job) error { return tx.DeleteJob(j.ID) }, 1, 1, false},
		{"another job completed", func(tx storage.Tx, j agenda.Job) error {
			return tx.CompleteJob(agenda.Job{ID: j.ID + "-other", Kind: "k", Due: t0}, t0)
		}, 1, 1, false},
	}
	for _, tc := range cases {
		for _, jobs := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d jobs", tc.name, jobs), func(t *testing.T) {
				store := mustOpen(t, "")
				defer store.Close()
				s := &agenda.CountingStore{Store: store}
				a := agenda.New(s, clock.NewVirtual(t0), nil)
				a.Handle("k", func(ctx context.Context, now time.Time, j agenda.Job) error {
					// A failed operation that completed the job first must
					// not count.
					err := store.Update(ctx, func(tx storage.Tx) error {
						if err := tx.CompleteJob(j, now); err != nil {
							return err
						}
						return errRefused
					})
					if !errors.Is(err, errRefused) {
						return fmt.Errorf("refused operation: %v", err)
					}
					return store.Update(ctx, func(tx storage.Tx) error { return tc.work(tx, j) })
				})
				for i := range jobs {
					if _, err := a.Schedule(ctx, agenda.Job{ID: fmt.Sprint("j", i), Kind: "k", Due: t0}); err != nil {
						t.Fatal(err)
					}
				}
				if ran, err := a.Advance(ctx, 0); err != nil || ran != jobs {
					t.Fatalf("Advance: %d jobs, %v; want %d", ran, err, jobs)
				}
				if gets, dones := s.Counts(); gets != tc.wantGets*jobs || dones != tc.wantDones*jobs {
					t.Fatalf("GetJob %d times, MarkDone %d; want %d and %d", gets, dones, tc.wantGets*jobs, tc.wantDones*jobs)
				}
				for i := range jobs {
					id := fmt.Sprint("j", i)
					if _, ok, _ := store.GetJob(ctx, id); ok != tc.pending {
						t.Fatalf("%s pending: %v, want %v", id, ok, tc.pending)
					}
					if _, ok, _ := store.DoneJob(ctx, id); !ok {
						t.Fatalf("%s has no done record", id)
					}
				}
			})
		}
	}
}

// DeleteJob after the same operation completed or put the job deletes what is
// pending then: nothing after a completion of the pending version, the newer
// version after a completion of an older one, and the job put again.
func TestDeleteJob_AfterCompleteJob(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	j := agenda.Job{ID: "settle-1", Kind: "k", Due: t0}
	newer := agenda.Job{ID: j.ID, Kind: "k", Due: t0.Add(time.Minute)}
	cases := []struct {
		name    string
		pending agenda.Job // before the operation
		work    func(tx storage.Tx) error
	}{
		{"completed", j, func(tx storage.Tx) error { return tx.CompleteJob(j, t0) }},
		{"an older version completed", newer, func(tx storage.Tx) error { return tx.CompleteJob(j, t0) }},
		{"completed, then put again", j, func(tx storage.Tx) error {
			if err := tx.CompleteJob(j, t0); err != nil {
				return err
			}
			return tx.PutJob(newer)
		}},
		{"deleted, then put again", j, func(tx storage.Tx) error {
			if err := tx.DeleteJob(j.ID); err != nil {
				return err
			}
			return tx.PutJob(newer)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, "")
			defer s.Close()
			if err := s.PutJob(ctx, tc.pending); err != nil {
				t.Fatal(err)
			}
			err := s.Update(ctx, func(tx storage.Tx) error {
				if err := tc.work(tx); err != nil {
					return err
				}
				return tx.DeleteJob(j.ID)
			})
			if err != nil {
				t.Fatal(err)
			}
			if got, ok, err := s.GetJob(ctx, j.ID); err != nil || ok {
				t.Fatalf("pending after DeleteJob: %+v, %v, %v", got, ok, err)
			}
			if jobs, err := s.ListJobs(ctx, 0); err != nil || len(jobs) != 0 {
				t.Fatalf("jobs left: %+v, %v", jobs, err)
			}
		})
	}
}
