package badgerstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// The activity counts what committed, once: an operation that failed after
// writing, beside others in its batch, adds nothing (and the others, run
// again without it, add theirs once); a transaction counts as created on its
// first write and as finished the first time it is final.
func TestActivity_CountsCommittedWrites(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	mustPendingJobs(t, s) // follow the jobs from the start
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	txn := func(id int64, kind pix.TxKind, st pix.TxStatus, amount pix.Cents) pix.Transaction {
		return pix.Transaction{ID: id, AccountID: 1, Kind: kind, Status: st, Amount: amount, CreatedAt: at}
	}
	settle := agenda.Job{ID: "settle-1", Kind: "pixout.settle", Due: at.Add(2 * time.Second)}
	errRefused := errors.New("refused")

	release := holdWriter(t, s)
	ops := []func(storage.Tx) error{
		func(tx storage.Tx) error {
			if err := tx.PutTransaction(txn(1, pix.TxCashOut, pix.TxStatusPending, 1000)); err != nil {
				return err
			}
			return tx.PutNewJob(settle)
		},
		func(tx storage.Tx) error { // writes, then fails: the batch runs again without it
			if err := tx.PutTransaction(txn(2, pix.TxCashOut, pix.TxStatusConfirmed, 500)); err != nil {
				return err
			}
			if err := tx.PutNewJob(agenda.Job{ID: "settle-2", Kind: "pixout.settle", Due: at}); err != nil {
				return err
			}
			return errRefused
		},
		func(tx storage.Tx) error { // created final
			return tx.PutTransaction(txn(3, pix.TxPixIn, pix.TxStatusConfirmed, 250))
		},
	}
	errs := make(chan error, len(ops))
	for i, fn := range ops {
		go func() { errs <- s.Update(ctx, fn) }()
		waitQueued(s, i+1)
	}
	release()
	failed := 0
	for range ops {
		if err := <-errs; errors.Is(err, errRefused) {
			failed++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if failed != 1 {
		t.Fatalf("%d operations refused, want 1", failed)
	}
	want := Activity{
		Created:  map[pix.TxKind]int64{pix.TxCashOut: 1, pix.TxPixIn: 1},
		Finished: map[TxFinish]int64{{pix.TxPixIn, pix.TxStatusConfirmed}: 1},
		Moved:    map[pix.TxKind]pix.Cents{pix.TxPixIn: 250},
		Attempts: map[AttemptAnswer]int64{}, AttemptDurations: map[string]Durations{},
	}
	checkActivity(t, s, "after the batch", want, map[string]int64{"pixout.settle": 1})

	// The settlement finishes transaction 1 and completes its job; writing
	// it again, already final, counts nothing more.
	update(t, s, func(tx *Tx) error {
		t1, err := tx.Transaction(1)
		if err != nil {
			return err
		}
		t1.Status = pix.TxStatusConfirmed
		if err := tx.PutTransaction(t1); err != nil {
			return err
		}
		return tx.CompleteJob(settle, settle.Due)
	})
	update(t, s, func(tx *Tx) error {
		t1, err := tx.Transaction(1)
		if err != nil {
			return err
		}
		t1.EndToEndID = "E1"
		if err := tx.PutTransaction(t1); err != nil {
			return err
		}
		return tx.PutTransaction(txn(4, pix.TxCashOut, pix.TxStatusError, 700))
	})
	want.Created[pix.TxCashOut] = 2
	want.Finished[TxFinish{pix.TxCashOut, pix.TxStatusConfirmed}] = 1
	want.Finished[TxFinish{pix.TxCashOut, pix.TxStatusError}] = 1
	want.Moved[pix.TxCashOut] = 1000
	checkActivity(t, s, "after the settlement", want, map[string]int64{"pixout.settle": 0})
}

// Webhook attempts count once each, as the delivery that records them is
// written: a retry written with the earlier attempts adds only itself.
func TestActivity_Attempts(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	d := webhook.Delivery{ID: "dlv_1", AccountID: 1, EventType: "cash_out", CreatedAt: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	for _, a := range []webhook.Attempt{
		{ID: 1, StatusCode: 503, Duration: 3 * time.Millisecond},
		{ID: 2, Duration: 12 * time.Second},
		{ID: 3, StatusCode: 200, Duration: 40 * time.Millisecond},
	} {
		d.Attempts = append(d.Attempts, a)
		update(t, s, func(tx *Tx) error { return tx.PutDelivery(d) })
	}
	update(t, s, func(tx *Tx) error { return tx.PutDelivery(d) }) // no new attempt
	got := s.Activity()
	if diff := cmp.Diff(map[AttemptAnswer]int64{{"cash_out", 5}: 1, {"cash_out", 0}: 1, {"cash_out", 2}: 1}, got.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	// Buckets up to 5ms, 10ms, 25ms, 50ms, …, 10s, and above.
	wantCounts := []int64{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}
	want := Durations{Counts: wantCounts, Sum: 12*time.Second + 43*time.Millisecond}
	if diff := cmp.Diff(map[string]Durations{"cash_out": want}, got.AttemptDurations); diff != "" {
		t.Errorf("durations (-want +got):\n%s", diff)
	}
}

// The pending jobs by kind: counted once, on the first call, then moved by
// every job put, replaced, deleted and completed; a reset sets them to zero
// and leaves the counts of committed work.
func TestActivity_PendingJobs(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	job := func(id, kind string, after time.Duration) agenda.Job {
		return agenda.Job{ID: id, Kind: kind, Due: at.Add(after)}
	}
	for _, j := range []agenda.Job{job("a", "marker", time.Second), job("b", "marker", time.Hour), job("c", "cob.expire", time.Minute)} {
		if err := s.PutJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteJob(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want map[string]int64) {
		t.Helper()
		if diff := cmp.Diff(want, mustPendingJobs(t, s)); diff != "" {
			t.Errorf("%s: pending jobs (-want +got):\n%s", when, diff)
		}
	}
	check("counted", map[string]int64{"marker": 1, "cob.expire": 1})

	if err := s.PutJob(ctx, job("a", "marker", 2*time.Second)); err != nil { // replaces a
		t.Fatal(err)
	}
	if err := s.PutJob(ctx, job("d", "webhook.deliver", 0)); err != nil {
		t.Fatal(err)
	}
	check("a replaced, d put", map[string]int64{"marker": 1, "cob.expire": 1, "webhook.deliver": 1})

	if _, err := s.ReplaceJob(ctx, job("d", "webhook.deliver", 0), job("e", "webhook.deliver", time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteJob(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteJob(ctx, "c"); err != nil { // no longer pending: nothing
		t.Fatal(err)
	}
	if err := s.MarkDone(ctx, job("a", "marker", 2*time.Second), at); err != nil {
		t.Fatal(err)
	}
	check("d replaced by e, c deleted, a done", map[string]int64{"marker": 0, "cob.expire": 0, "webhook.deliver": 1})

	update(t, s, func(tx *Tx) error {
		return tx.PutTransaction(pix.Transaction{ID: 1, AccountID: 1, Kind: pix.TxCashOut, Status: pix.TxStatusPending, CreatedAt: at})
	})
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a reset", map[string]int64{"marker": 0, "cob.expire": 0, "webhook.deliver": 0})
	if got := s.Activity().Created[pix.TxCashOut]; got != 1 {
		t.Errorf("after a reset, %d cash-outs created, want the 1 counted before it", got)
	}
	if err := s.PutJob(ctx, job("f", "marker", 0)); err != nil {
		t.Fatal(err)
	}
	check("a job after the reset", map[string]int64{"marker": 1, "cob.expire": 0, "webhook.deliver": 0})
}

func mustPendingJobs(t *testing.T, s *Store) map[string]int64 {
	t.Helper()
	jobs, err := s.PendingJobsByKind(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func checkActivity(t *testing.T, s *Store, when string, want Activity, jobs map[string]int64) {
	t.Helper()
	if diff := cmp.Diff(want, s.Activity()); diff != "" {
		t.Errorf("%s: activity (-want +got):\n%s", when, diff)
	}
	if diff := cmp.Diff(jobs, mustPendingJobs(t, s)); diff != "" {
		t.Errorf("%s: pending jobs (-want +got):\n%s", when, diff)
	}
}

// TestServerActivity_SumsWorkspaces: the server's activity is the default
// workspace's plus every workspace's, and a dropped workspace's counts stay
// in it, so the sums only grow.
func TestServerActivity_SumsWorkspaces(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, "")
	defer s.Close()
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	put := func(st *Store, id int64, amount pix.Cents) {
		t.Helper()
		err := st.Update(ctx, func(tx storage.Tx) error {
			return tx.PutTransaction(pix.Transaction{ID: id, AccountID: 1, Kind: pix.TxCashOut, Status: pix.TxStatusConfirmed, Amount: amount, CreatedAt: at})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := s.Space("a"), s.Space("b")
	put(s, 1, 100)
	put(a, 1, 20)
	put(a, 2, 30)
	put(b, 1, 5)
	want := func(created int64, moved pix.Cents, when string) {
		t.Helper()
		got := s.ServerActivity()
		if got.Created[pix.TxCashOut] != created || got.Moved[pix.TxCashOut] != moved ||
			got.Finished[TxFinish{pix.TxCashOut, pix.TxStatusConfirmed}] != created {
			t.Fatalf("%s: created %d, finished %d, moved %d; want %d, %d, %d", when, got.Created[pix.TxCashOut],
				got.Finished[TxFinish{pix.TxCashOut, pix.TxStatusConfirmed}], got.Moved[pix.TxCashOut], created, created, moved)
		}
	}
	want(4, 155, "three workspaces")
	if got := a.ServerActivity(); got.Moved[pix.TxCashOut] != 155 {
		t.Fatalf("read from a workspace's Store: moved %d, want the server's 155", got.Moved[pix.TxCashOut])
	}
	if got := s.Activity(); got.Moved[pix.TxCashOut] != 100 {
		t.Fatalf("the default workspace's own activity: moved %d, want 100", got.Moved[pix.TxCashOut])
	}
	if err := s.DropSpace(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	want(4, 155, "after workspace a was dropped")
	put(s.Space("c"), 1, 1)
	want(5, 156, "a new workspace")
}
