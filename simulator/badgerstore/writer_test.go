package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// holdWriter submits an operation that blocks the writer until release is
// called, so the operations submitted meanwhile form the next batch.
func holdWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(context.Background(), func(tx storage.Tx) error {
			close(started)
			<-gate
			return tx.PutMeta("hold", 1)
		})
	}()
	<-started
	return func() {
		close(gate)
		if err := <-done; err != nil {
			t.Errorf("holding operation: %v", err)
		}
	}
}

// waitQueued waits until n operations wait for the writer.
func waitQueued(s *Store, n int) {
	for len(s.writer.ops) < n {
		runtime.Gosched()
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func meta(t *testing.T, s *Store, key string) (int, bool) {
	t.Helper()
	var v int
	var ok bool
	err := s.View(context.Background(), func(tx storage.Tx) (err error) {
		ok, err = tx.Meta(key, &v)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, ok
}

// One batch, one commit: operations submitted while the writer is busy are
// committed together, each answered, each visible once answered.
func TestWriter_GroupCommit(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	release := holdWriter(t, s)
	before := s.snaps.commits.Load()

	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Update(context.Background(), func(tx storage.Tx) error {
				return tx.PutMeta("k"+itoa(i), i)
			})
		}()
	}
	waitQueued(s, n)
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		if v, ok := meta(t, s, "k"+itoa(i)); !ok || v != i {
			t.Fatalf("k%d = %d, %v after its answer", i, v, ok)
		}
	}
	// The holding operation's batch and the batch of the 64.
	if commits := s.snaps.commits.Load() - before; commits != 2 {
		t.Fatalf("%d commits for the held batch and 64 queued operations, want 2", commits)
	}
}

// batchRecorder submits job and client writes and records which batch (Tx)
// ran each of them, in the order they ran.
type batchRecorder struct {
	t     *testing.T
	s     *Store
	mu    sync.Mutex
	order []recorded
	wg    sync.WaitGroup
}

type recorded struct {
	tx  *Tx
	job bool
	i   int
}

func (r *batchRecorder) submit(job bool, i int) {
	ctx := context.Background()
	if job {
		ctx = agenda.WithJob(ctx)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := r.s.update(ctx, func(tx *Tx) error {
			r.mu.Lock()
			r.order = append(r.order, recorded{tx, job, i})
			r.mu.Unlock()
			return tx.PutMeta(fmt.Sprint("w", job, i), i)
		})
		if err != nil {
			r.t.Error(err)
		}
	}()
}

// batches waits for every write and returns them batch by batch, with the
// count of job and client writes of each batch.
func (r *batchRecorder) batches() (out [][]recorded, jobs, clients []int) {
	r.wg.Wait()
	for i, w := range r.order {
		if i == 0 || w.tx != r.order[i-1].tx {
			out, jobs, clients = append(out, nil), append(jobs, 0), append(clients, 0)
		}
		n := len(out) - 1
		out[n] = append(out[n], w)
		if w.job {
			jobs[n]++
		} else {
			clients[n]++
		}
	}
	return out, jobs, clients
}

// A burst of due jobs does not hold the client writes waiting with it behind
// all of its writes: the batch that takes the clients carries at most
// jobsPerClientWrite job writes each (at least minJobWrites), and the jobs
// left over fill the batches after it, in the order they were submitted.
func TestWriter_JobsShareBatchesWithClients(t *testing.T) {
	for _, tc := range []struct{ clients, jobs int }{
		{10, 64},  // two each would be 20: the minimum share
		{50, 100}, // two each
	} {
		clients := tc.clients
		t.Run(fmt.Sprint(clients, " clients"), func(t *testing.T) {
			s := mustOpen(t, t.TempDir())
			defer s.Close()
			release := holdWriter(t, s)
			r := &batchRecorder{t: t, s: s}
			const jobs = 300
			// Jobs one at a time, so the channel holds them in submission order.
			for i := range jobs {
				r.submit(true, i)
				for len(s.writer.jobs) < i+1 {
					runtime.Gosched()
				}
			}
			for i := range clients {
				r.submit(false, i)
			}
			waitQueued(s, clients)
			release()
			batches, j, c := r.batches()
			if c[0] != clients || j[0] != tc.jobs {
				t.Fatalf("first batch: %d job and %d client writes, want %d and %d", j[0], c[0], tc.jobs, clients)
			}
			next := 0
			for _, b := range batches {
				for _, w := range b {
					if w.job {
						if w.i != next {
							t.Fatalf("job write %d ran in place of %d: jobs out of submission order", w.i, next)
						}
						next++
					}
				}
			}
			if len(batches) != 2 {
				t.Fatalf("%d batches after the held one, want 2 (the clients with their share of jobs, then the other jobs)", len(batches))
			}
		})
	}
}

// However many client writes wait, every batch keeps places for jobs: a
// server with more clients than a batch holds does not starve its settlements.
func TestWriter_JobsNotStarvedByClients(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	release := holdWriter(t, s)
	r := &batchRecorder{t: t, s: s}
	for i := range maxBatchOps {
		r.submit(false, i)
	}
	waitQueued(s, maxBatchOps)
	for i := range 100 {
		r.submit(true, i)
	}
	for len(s.writer.jobs) < 100 {
		runtime.Gosched()
	}
	release()
	_, j, c := r.batches()
	// The writer wakes on a job or a client write (whichever select picks):
	// either way the batch is full and holds at least minJobWrites jobs.
	if j[0] < minJobWrites || j[0]+c[0] != maxBatchOps {
		t.Fatalf("first batch: %d job and %d client writes, want at least %d jobs in %d", j[0], c[0], minJobWrites, maxBatchOps)
	}
}

// A failing operation leaves no trace and does not fail its neighbours, both
// when it fails before writing and when it fails after writing (the batch
// runs again without it), and when it panics.
func TestWriter_FailureIsolated(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	release := holdWriter(t, s)

	errRefused := errors.New("refused")
	type result struct {
		name string
		err  error
	}
	ops := []struct {
		name string
		fn   func(storage.Tx) error
	}{
		{"a", func(tx storage.Tx) error { return tx.PutMeta("a", 1) }},
		{"clean", func(tx storage.Tx) error { return errRefused }},
		{"b", func(tx storage.Tx) error { return tx.PutMeta("b", 2) }},
		{"dirty", func(tx storage.Tx) error {
			if err := tx.PutMeta("dirty", 3); err != nil {
				return err
			}
			if err := tx.PutMeta("a", 99); err != nil { // overwrites an earlier op's key
				return err
			}
			return errRefused
		}},
		{"c", func(tx storage.Tx) error {
			// sees the writes of the earlier successful ops, never the failed one's
			var a int
			if _, err := tx.Meta("a", &a); err != nil {
				return err
			}
			return tx.PutMeta("c", a+10)
		}},
		{"panic", func(tx storage.Tx) error {
			_ = tx.PutMeta("panic", 4)
			panic("boom")
		}},
		{"d", func(tx storage.Tx) error { return tx.PutMeta("d", 5) }},
	}
	results := make(chan result, len(ops))
	for i, o := range ops {
		go func() {
			results <- result{o.name, s.Update(context.Background(), o.fn)}
		}()
		waitQueued(s, i+1) // keep the submission order
	}
	release()
	got := map[string]error{}
	for range ops {
		r := <-results
		got[r.name] = r.err
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if got[name] != nil {
			t.Errorf("op %s failed beside failing neighbours: %v", name, got[name])
		}
	}
	if !errors.Is(got["clean"], errRefused) || !errors.Is(got["dirty"], errRefused) {
		t.Errorf("failing ops answered %v and %v, want their own errors", got["clean"], got["dirty"])
	}
	if got["panic"] == nil || !strings.Contains(got["panic"].Error(), "boom") {
		t.Errorf("panicking op answered %v", got["panic"])
	}
	want := map[string]int{"a": 1, "b": 2, "c": 11, "d": 5}
	for k, v := range want {
		if g, ok := meta(t, s, k); !ok || g != v {
			t.Errorf("%s = %d (present %v), want %d", k, g, ok, v)
		}
	}
	for _, k := range []string{"dirty", "panic"} {
		if _, ok := meta(t, s, k); ok {
			t.Errorf("a failed operation's write %q committed", k)
		}
	}
}

// An operation too big to share a batch commits alone; one too big for any
// transaction fails alone.
func TestWriter_TooBig(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	release := holdWriter(t, s)
	// Sizes from what Badger takes in one transaction (15 % of the memtable).
	chunks := int(s.db.MaxBatchSize() / (64 << 10))
	big := func(n int) func(storage.Tx) error {
		return func(tx storage.Tx) error {
			v := strings.Repeat("x", 64<<10)
			for i := range n {
				if err := tx.PutMeta("big/"+itoa(n)+"/"+itoa(i), v); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	fns := []func(storage.Tx) error{
		big(chunks * 6 / 10), // fits a transaction, not beside the next
		big(chunks * 6 / 10),
		big(chunks * 10), // fits no transaction
		func(tx storage.Tx) error { return tx.PutMeta("small", 1) },
	}
	for i, fn := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.Update(context.Background(), fn) }()
		waitQueued(s, i+1)
	}
	release()
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || errs[3] != nil {
		t.Fatalf("operations that fit failed: %v", errs)
	}
	if errs[2] == nil || !strings.Contains(errs[2].Error(), "too big") {
		t.Fatalf("oversized operation answered %v, want too big", errs[2])
	}
	if _, ok := meta(t, s, "small"); !ok {
		t.Fatal("the small operation after an oversized one did not commit")
	}
}

func TestWriter_ClosedAndCancelled(t *testing.T) {
	s := mustOpen(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := s.Update(ctx, func(storage.Tx) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("cancelled before submission: err %v, ran %v", err, ran)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(context.Background(), func(storage.Tx) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

// The writer opens the snapshot of each commit before it answers, so a read
// after an acknowledged write uses it and never opens a Badger transaction of
// its own (one opened while the next batch is being synced would wait for that
// sync): reads do not wait behind writes.
func TestWriter_ReadersFindTheSnapshotReady(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	for i := range 3 {
		if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("k", i) }); err != nil {
			t.Fatal(err)
		}
		s.snaps.mu.Lock()
		ready := s.snaps.cur
		s.snaps.mu.Unlock()
		if v, ok := meta(t, s, "k"); !ok || v != i {
			t.Fatalf("read after write %d: %d %v", i, v, ok)
		}
		s.snaps.mu.Lock()
		used := s.snaps.cur
		s.snaps.mu.Unlock()
		if ready == nil || used != ready {
			t.Fatalf("write %d: the read opened its own snapshot instead of the writer's", i)
		}
	}
}

// Within a batch an iteration sees the writes of the operations before it
// (under a prefix the batch wrote) and what was committed before the batch
// (under one it did not).
func TestWriter_IterationsInABatch(t *testing.T) {
	s := mustOpen(t, "")
	defer s.Close()
	if err := s.Update(context.Background(), func(tx storage.Tx) error {
		return tx.PutWebhookTarget(webhook.Target{ID: 1, AccountID: 8, URL: "http://a", EventType: "cash_out", Active: true})
	}); err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, s)
	var seen7, seen8 []webhook.Target
	fns := []func(storage.Tx) error{
		func(tx storage.Tx) error {
			return tx.PutWebhookTarget(webhook.Target{ID: 2, AccountID: 7, URL: "http://b", EventType: "cash_out", Active: true})
		},
		func(tx storage.Tx) (err error) { seen7, err = tx.WebhookTargets(7); return err },
		func(tx storage.Tx) (err error) { seen8, err = tx.WebhookTargets(8); return err },
	}
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Update(context.Background(), fn); err != nil {
				t.Error(err)
			}
		}()
		waitQueued(s, i+1)
	}
	release()
	wg.Wait()
	if len(seen7) != 1 || seen7[0].ID != 2 || len(seen8) != 1 || seen8[0].ID != 1 {
		t.Fatalf("targets of 7 = %+v, of 8 = %+v", seen7, seen8)
	}
}

// Every commit is timed twice: the round that ran its operations, and
// Badger's write and sync. A batch held 30 ms counts in a bucket above 25 ms.
func TestWriter_Durations(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	before := s.WriterStats()
	release := holdWriter(t, s)
	time.Sleep(30 * time.Millisecond) // the held round runs at least this long
	release()
	for i := range 5 {
		if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.PutMeta("d"+itoa(i), i) }); err != nil {
			t.Fatal(err)
		}
	}
	after := s.WriterStats()
	commits := after.Commits - before.Commits
	if commits < 6 {
		t.Fatalf("%d commits for 6 updates", commits)
	}
	count := func(d, b Durations, from int) (n int64) {
		for i := from; i < len(d.Counts); i++ {
			n += d.Counts[i] - b.Counts[i]
		}
		return n
	}
	if n := count(after.Apply, before.Apply, 0); n != commits {
		t.Errorf("apply durations count %d commits, want %d", n, commits)
	}
	if n := count(after.Commit, before.Commit, 0); n != commits {
		t.Errorf("commit durations count %d commits, want %d", n, commits)
	}
	// The held round is above 25 ms. The five quick ones normally are not,
	// but on a loaded machine any of them can stall past 25 ms. Every round
	// above 25 ms, though, means the rounds are not timed each on its own
	// (the held time counted again in the later ones).
	over25 := slices.Index(DurationBounds[:], 25*time.Millisecond) + 1
	if n := count(after.Apply, before.Apply, over25); n < 1 || n >= commits {
		t.Errorf("%d of %d rounds above 25 ms, want the held one and not every one", n, commits)
	}
	if d := after.Apply.Sum - before.Apply.Sum; d < 30*time.Millisecond {
		t.Errorf("apply time %v, want at least the 30 ms held", d)
	}
}

func TestDurations_Buckets(t *testing.T) {
	var d durations
	for _, x := range []time.Duration{0, time.Millisecond, time.Millisecond + 1, 25 * time.Millisecond, 26 * time.Millisecond, time.Second, 2 * time.Second} {
		d.observe(x)
	}
	got := d.read()
	want := []int64{2, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1}
	if !slices.Equal(got.Counts, want) {
		t.Fatalf("counts %v, want %v", got.Counts, want)
	}
	if sum := time.Duration(0) + 2*time.Millisecond + 1 + 51*time.Millisecond + 3*time.Second; got.Sum != sum {
		t.Fatalf("sum %v, want %v", got.Sum, sum)
	}
}
