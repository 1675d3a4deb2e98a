package main

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// latencyHist counts latencies in an HdrHistogram of fixed memory: values
// from 1 µs to histTop at 3 significant digits, so a percentile read back is
// within 0.1% of the recorded value. A value above histTop counts as histTop;
// the largest value is kept exactly. Not safe for concurrent use.
type latencyHist struct {
	h     *hdrhistogram.Histogram
	total int64         // latencies recorded
	max   time.Duration // the largest, exactly
}

// histTop is the largest latency the histogram tells apart (about 67 s).
const histTop = (1<<26 - 1) * time.Microsecond

func newLatencyHist() *latencyHist {
	return &latencyHist{h: hdrhistogram.New(1, int64(histTop/time.Microsecond), 3)}
}

// Record counts one latency.
func (h *latencyHist) Record(d time.Duration) {
	h.total++
	h.max = max(h.max, d)
	us := min(max(int64(d/time.Microsecond), 1), int64(histTop/time.Microsecond))
	_ = h.h.RecordValue(us) // in range by construction
}

// Merge adds o's counts to h's.
func (h *latencyHist) Merge(o *latencyHist) {
	h.h.Merge(o.h)
	h.total += o.total
	h.max = max(h.max, o.max)
}

// Percentile is the latency at or under which p percent of the recorded
// ones fall (HdrHistogram's value at the quantile: the highest value
// equivalent to its bucket), never above the largest; 0 when nothing was
// recorded; the largest itself when the quantile falls among the values
// counted as histTop.
func (h *latencyHist) Percentile(p float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	v := time.Duration(h.h.ValueAtQuantile(p)) * time.Microsecond
	if v >= histTop-histTop/1000 { // in the top bucket, where values over histTop count too
		return h.max
	}
	return min(v+time.Microsecond-1, h.max)
}
