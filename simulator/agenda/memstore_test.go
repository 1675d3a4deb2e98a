package agenda_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
)

func TestMemStore(t *testing.T) {
	ctx := context.Background()
	s := &agenda.MemStore{} // the zero value is ready to use

	if _, ok, err := s.NextJob(ctx); ok || err != nil {
		t.Fatalf("NextJob on empty store: %v, %v", ok, err)
	}
	if err := s.DeleteJob(ctx, "absent"); err != nil {
		t.Fatalf("DeleteJob(absent)=%v", err)
	}
	if err := s.MarkDone(ctx, agenda.Job{ID: "absent"}, epoch); err != nil {
		t.Fatalf("MarkDone(absent)=%v", err)
	}

	put := func(id string, due time.Duration) {
		t.Helper()
		if err := s.PutJob(ctx, agenda.Job{ID: id, Kind: "k", Due: epoch.Add(due), Payload: []byte(id)}); err != nil {
			t.Fatal(err)
		}
	}
	put("c", 2*time.Second)
	put("b", time.Second)
	put("a", time.Second)
	put("z", 3*time.Second)
	put("z", -time.Second) // replaces, moving z first

	ids := func(limit int) string {
		t.Helper()
		jobs, err := s.ListJobs(ctx, limit)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range jobs {
			out = append(out, j.ID)
		}
		return fmt.Sprint(out)
	}
	if got, want := ids(0), "[z a b c]"; got != want {
		t.Fatalf("ListJobs(0)=%s, want %s", got, want)
	}
	if got, want := ids(2), "[z a]"; got != want {
		t.Fatalf("ListJobs(2)=%s, want %s", got, want)
	}
	if j, ok, _ := s.NextJob(ctx); !ok || j.ID != "z" {
		t.Fatalf("NextJob=%+v, %v; want z", j, ok)
	}

	j, _, _ := s.GetJob(ctx, "a")
	j.Payload[0] = 'X'
	if again, _, _ := s.GetJob(ctx, "a"); string(again.Payload) != "a" {
		t.Fatalf("stored payload aliased: %q", again.Payload)
	}

	z, _, _ := s.GetJob(ctx, "z")
	// A version other than the pending one neither deletes nor replaces it.
	stale := z
	stale.Attempts++
	if err := s.MarkDone(ctx, stale, epoch); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetJob(ctx, "z"); !ok {
		t.Fatal("MarkDone of a stale version deleted the pending job")
	}
	if replaced, err := s.ReplaceJob(ctx, stale, agenda.Job{ID: "z", Kind: "other"}); err != nil || replaced {
		t.Fatalf("ReplaceJob of a stale version: %v %v", replaced, err)
	}
	if err := s.MarkDone(ctx, z, epoch); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetJob(ctx, "z"); ok {
		t.Fatal("done job still pending")
	}
	if ranAt, ok, _ := s.DoneJob(ctx, "z"); !ok || !ranAt.Equal(epoch) {
		t.Fatalf("DoneJob(z)=%v, %v", ranAt, ok)
	}
	if _, ok, _ := s.DoneJob(ctx, "a"); ok {
		t.Fatal("pending job has a done record")
	}
	if err := s.DeleteJob(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(0), "[b c]"; got != want {
		t.Fatalf("ListJobs after delete=%s, want %s", got, want)
	}
}
