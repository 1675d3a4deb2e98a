package badgerstore

import (
	"slices"
	"time"
)

// The writer's timings (WriterStats): measured durations of its own work, on
// the machine's monotonic clock, never simulation time.

// stopwatch returns a function that tells the time elapsed since the call.
func stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

// DurationBounds are the upper bounds of the buckets of Durations.
var DurationBounds = [...]time.Duration{time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, 500 * time.Millisecond, time.Second}

// Durations is a histogram over the bounds of the figure it reports
// (DurationBounds for the writer's, AttemptBounds for webhook attempts):
// Counts[i] counts the durations above bound i-1 and up to bound i; the last
// count, those above every bound. Sum is their total.
type Durations struct {
	Counts []int64
	Sum    time.Duration
}

// durations is the writer's live histogram (Durations), guarded by the
// writer's statsMu.
type durations struct {
	counts [len(DurationBounds) + 1]int64
	sum    time.Duration
}

func (d *durations) observe(x time.Duration) {
	i, _ := slices.BinarySearch(DurationBounds[:], x)
	d.counts[i]++
	d.sum += x
}

func (d *durations) read() Durations {
	return Durations{Counts: slices.Clone(d.counts[:]), Sum: d.sum}
}
