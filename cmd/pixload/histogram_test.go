package main

import (
	"testing"
	"time"
)

// Percentiles of a known distribution come back within 0.1%, the largest
// value exactly.
func TestHistPercentiles(t *testing.T) {
	h := newLatencyHist()
	if h.Percentile(50) != 0 || h.max != 0 {
		t.Fatal("an empty histogram reads non-zero")
	}
	for v := 1; v <= 100000; v++ { // 1 µs to 100 ms, one of each
		h.Record(time.Duration(v)*time.Microsecond + 300*time.Nanosecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {99.9, 99900 * time.Microsecond}, {100, 100 * time.Millisecond}} {
		got := h.Percentile(tc.p)
		if d := float64(got-tc.want) / float64(tc.want); d < -0.001 || d > 0.001 {
			t.Errorf("p%v = %s, want %s within 0.1%%", tc.p, got, tc.want)
		}
	}
	if p := h.Percentile(0.001); p != time.Microsecond+999*time.Nanosecond { // the first, to the microsecond
		t.Errorf("p0.001 = %s", p)
	}
	if h.max != 100*time.Millisecond+300*time.Nanosecond || h.total != 100000 {
		t.Errorf("max %s, count %d", h.max, h.total)
	}

	// Under 2,048 µs a value reads back to the microsecond.
	small := newLatencyHist()
	for _, us := range []int{120, 130, 1999} {
		small.Record(time.Duration(us) * time.Microsecond)
	}
	if p := small.Percentile(50); p != 130*time.Microsecond+999*time.Nanosecond {
		t.Errorf("p50 of 120/130/1999 µs = %s", p)
	}
	if p := small.Percentile(100); p != 1999*time.Microsecond {
		t.Errorf("p100 = %s, want the max", p)
	}
}

// A value over the top counts as the top and reads back as the largest;
// merging adds counts and keeps the larger max.
func TestHistClampAndMerge(t *testing.T) {
	a, b := newLatencyHist(), newLatencyHist()
	a.Record(time.Millisecond)
	a.Record(-time.Second) // a clock step backwards: counted as the smallest value, 1 µs
	b.Record(100 * time.Second)
	b.Record(2 * time.Millisecond)
	a.Merge(b)
	if a.total != 4 || a.max != 100*time.Second {
		t.Fatalf("count %d max %s", a.total, a.max)
	}
	if p := a.Percentile(100); p != 100*time.Second {
		t.Errorf("p100 = %s, want the clamped value itself", p)
	}
	if p := a.Percentile(25); p >= 2*time.Microsecond {
		t.Errorf("p25 = %s, want the negative one counted as 1 µs", p)
	}
	if p := a.Percentile(50); p != time.Millisecond+999*time.Nanosecond {
		t.Errorf("p50 = %s", p)
	}
}
