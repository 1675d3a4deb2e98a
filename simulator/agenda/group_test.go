package agenda_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
)

// The jobs of a group run together, but their first writes reach the store in
// due order (ties by ID), whatever order their handlers get there in; a job
// that writes nothing does not hold the others back.
func TestGroup_FirstWritesInDueOrder(t *testing.T) {
	a, _, _, _ := newVirtual(t)
	var (
		mu      sync.Mutex
		written []string
		running int
		peak    int
	)
	a.Handle("w", func(ctx context.Context, _ time.Time, j agenda.Job) error {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond) // handlers reach the store in any order
		if j.Payload != nil {
			return nil // writes nothing
		}
		agenda.InTurn(ctx, func() {
			mu.Lock()
			written = append(written, j.ID)
			mu.Unlock()
		})
		agenda.InTurn(ctx, func() {}) // a second write goes at once
		return nil
	})
	var want []string
	for i := range 40 {
		id := "j" + strconv.Itoa(100+i)
		j := agenda.Job{ID: id, Kind: "w", Due: epoch.Add(time.Duration(i%4) * time.Nanosecond)}
		if i%7 == 3 {
			j.Payload = []byte("silent")
		}
		mustSchedule(t, a, j)
	}
	// Due order: by Due, then ID.
	for d := range 4 {
		for i := range 40 {
			if i%4 == d && i%7 != 3 {
				want = append(want, "j"+strconv.Itoa(100+i))
			}
		}
	}
	if _, err := a.RunDue(context.Background()); err != nil { // the ten due at the clock's now: one group
		t.Fatal(err)
	}
	if _, err := a.Advance(context.Background(), time.Second); err != nil { // one group per instant
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(written) != len(want) {
		t.Fatalf("%d first writes, want %d", len(written), len(want))
	}
	for i := range want {
		if written[i] != want[i] {
			t.Fatalf("first writes in order %v, want %v", written, want)
		}
	}
	if peak < 2 {
		t.Fatalf("jobs of one instant ran one at a time (peak %d running)", peak)
	}
}

// A handler's context says it is a job's, whether the job runs alone or in a
// group; a context of the agenda's caller does not.
func TestIsJob(t *testing.T) {
	a, _, _, _ := newVirtual(t)
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	a.Handle("k", func(ctx context.Context, _ time.Time, j agenda.Job) error {
		mu.Lock()
		defer mu.Unlock()
		seen[j.ID] = agenda.IsJob(ctx)
		return nil
	})
	mustSchedule(t, a, agenda.Job{ID: "alone", Kind: "k", Due: epoch.Add(time.Millisecond)})
	for i := range 3 {
		mustSchedule(t, a, agenda.Job{ID: "g" + strconv.Itoa(i), Kind: "k", Due: epoch.Add(time.Second)})
	}
	if _, err := a.Advance(context.Background(), 2*time.Second); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 4 {
		t.Fatalf("%d jobs ran, want 4", len(seen))
	}
	for id, job := range seen {
		if !job {
			t.Errorf("job %s: handler context not marked as a job's", id)
		}
	}
	if agenda.IsJob(context.Background()) {
		t.Error("a plain context is marked as a job's")
	}
	if !agenda.IsJob(agenda.WithJob(context.Background())) {
		t.Error("WithJob does not mark the context")
	}
}
