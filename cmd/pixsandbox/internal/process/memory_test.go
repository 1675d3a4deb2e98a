package process

import (
	"context"
	"runtime/debug"
	"slices"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"268435456": 256 << 20, "256MiB": 256 << 20, "256mb": 256 << 20, "1GiB": 1 << 30,
		"2g": 2 << 30, "64k": 64 << 10, " 512 MiB ": 512 << 20} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "1.5GiB", "12XB", "99999999999GiB"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) took it", in)
		}
	}
	if s := ByteSize(256 << 20); s.String() != "256MiB" {
		t.Errorf("256 MiB prints as %s", s.String())
	}
	if got := MappedReserve(256 << 20); got != 64<<20 {
		t.Errorf("a budget of 256 MiB leaves %d MiB outside the heap", got>>20)
	}
}

// TestReleaseIdle: the heap is given back once, when a period with writes is
// followed by one without; not while writes go on, nor again while idle. The
// periods are ticks the test sends, and each read of the write count answers
// the count at the end of the next period, so the run does not depend on
// timing.
func TestReleaseIdle(t *testing.T) {
	perPeriod := []int64{0, 0, 3, 5, 0, 0, 0, 2, 0, 0} // writes in each period
	counts := []int64{0}                               // the count read at the start, then at each tick
	for _, w := range perPeriod {
		counts = append(counts, counts[len(counts)-1]+w)
	}
	reads := 0 // only the releasing goroutine touches it
	var releasedAt []int
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		releaseIdle(ctx, ticks, func() int64 { reads++; return counts[reads-1] },
			func() { releasedAt = append(releasedAt, reads-1) })
	}()
	for range perPeriod {
		ticks <- time.Time{}
	}
	cancel()
	<-done
	// Period 5 (index 4) is the first without writes after the first load,
	// period 9 (index 8) the first after the second.
	if want := []int{5, 9}; !slices.Equal(releasedAt, want) {
		t.Fatalf("released after the periods %v, want %v", releasedAt, want)
	}
}

// TestApplyProxyMemoryLimit: the proxy's soft limit, left to the environment
// when it sets one; the collector's target is not touched.
func TestApplyProxyMemoryLimit(t *testing.T) {
	gc, lim := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(gc)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(lim) })
	for _, tt := range []struct {
		env   map[string]string
		limit int64
	}{
		{nil, ProxyMemoryLimit},
		{map[string]string{"GOGC": "50"}, ProxyMemoryLimit},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, 1 << 30},
	} {
		// What the runtime read from the environment at start-up, as the
		// variable says.
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(1 << 30)
		lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		gotLim := ApplyProxyMemoryLimit(lookup)
		gotGC := debug.SetGCPercent(50)
		if gotGC != 50 || gotLim != tt.limit {
			t.Errorf("env %v: GC percent %d, limit %d; want 50, %d", tt.env, gotGC, gotLim, tt.limit)
		}
	}
}

// TestApplySplitProxyGC: a proxy judging in a process, and that process,
// collect at SplitProxyGC, unless the environment sets GOGC, whose value the
// runtime took.
func TestApplySplitProxyGC(t *testing.T) {
	gc := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(gc) })
	for _, tt := range []struct {
		env  map[string]string
		want int
	}{
		{nil, SplitProxyGC},
		{map[string]string{"GOGC": "50"}, 50},
	} {
		debug.SetGCPercent(50) // what the runtime read from GOGC=50 at start-up
		lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		got := ApplySplitProxyGC(lookup)
		if inForce := debug.SetGCPercent(100); got != tt.want || inForce != tt.want {
			t.Errorf("env %v: returned %d, in force %d; want %d", tt.env, got, inForce, tt.want)
		}
	}
}
