package process

import (
	"slices"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
)

func TestServeProcs(t *testing.T) {
	for _, tc := range []struct {
		cpus int
		env  string
		want int
	}{
		{1, "", 2},  // confined to one CPU: a second processor
		{1, "1", 0}, // GOMAXPROCS set: left alone
		{1, "3", 0},
		{2, "", 0}, // several CPUs (a quota may still limit Go's default): left alone
		{8, "", 0},
	} {
		if got := ServeProcs(tc.cpus, tc.env); got != tc.want {
			t.Errorf("ServeProcs(%d, %q) = %d, want %d", tc.cpus, tc.env, got, tc.want)
		}
	}
}

// TestProcGovernor: two processors from the start and while operations are
// committed, one after ProcsIdleTicks looks without one, two again at the
// next operation; the runtime is told only of changes.
func TestProcGovernor(t *testing.T) {
	var ops int64 = 7
	var sets []int
	g := NewProcGovernor(func() badgerstore.WriterStats { return badgerstore.WriterStats{Operations: ops} },
		func(n int) int { sets = append(sets, n); return 0 })
	look := func(n int) {
		for range n {
			g.step()
		}
	}
	look(ProcsIdleTicks - 1)
	if len(sets) != 0 {
		t.Fatalf("after %d idle looks: set %v, want nothing (still two)", ProcsIdleTicks-1, sets)
	}
	ops++
	look(1) // sees the write: the count starts again
	look(ProcsIdleTicks - 1)
	if len(sets) != 0 {
		t.Fatalf("idle looks after a write: set %v, want nothing", sets)
	}
	look(1)
	if !slices.Equal(sets, []int{1}) {
		t.Fatalf("after %d idle looks: set %v, want [1]", ProcsIdleTicks, sets)
	}
	look(5)
	ops += 3
	look(1)
	look(2)
	if !slices.Equal(sets, []int{1, 2}) {
		t.Fatalf("a write after idling: set %v, want [1 2]", sets)
	}
}
