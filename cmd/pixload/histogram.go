package main

import (
	"math"
	"math/bits"
	"time"
)

// latencyHist counts latencies in log-linear buckets of fixed memory, in the
// manner of HdrHistogram: values under 2,048 µs are kept to the microsecond,
// and each power of two above that is cut into 1,024 buckets, so a
// percentile read back is within 0.1% of the recorded value. Values above
// histTop (about 67 s) count in the last bucket; the largest value is kept
// exactly. 17,408 counters: 136 KiB. Not safe for concurrent use.
type latencyHist struct {
	counts []int64
	total  int64         // latencies recorded
	max    time.Duration // the largest, exactly
}

const (
	histSubBits = 11 // 2,048 exact values before the first power of two cut in 1,024
	histTopBits = 26 // values up to 2^26 µs
	histTop     = (1<<histTopBits - 1) * time.Microsecond
)

func newLatencyHist() *latencyHist {
	return &latencyHist{counts: make([]int64, histIndex(1<<histTopBits-1)+1)}
}

// histIndex is the bucket of v microseconds.
func histIndex(v uint64) int {
	if v < 1<<histSubBits {
		return int(v)
	}
	shift := bits.Len64(v) - histSubBits
	return shift<<(histSubBits-1) + int(v>>shift)
}

// histHighest is the highest value (µs) that counts in bucket i.
func histHighest(i int) uint64 {
	if i < 1<<histSubBits {
		return uint64(i)
	}
	shift := i>>(histSubBits-1) - 1
	low := uint64(i-shift<<(histSubBits-1)) << shift
	return low + 1<<shift - 1
}

// Record counts one latency.
func (h *latencyHist) Record(d time.Duration) {
	h.total++
	h.max = max(h.max, d)
	us := uint64(max(d, 0) / time.Microsecond)
	h.counts[histIndex(min(us, 1<<histTopBits-1))]++
}

// Merge adds o's counts to h's.
func (h *latencyHist) Merge(o *latencyHist) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
	h.total += o.total
	h.max = max(h.max, o.max)
}

// Percentile is the latency at or under which p percent of the recorded
// ones fall: the highest value of its bucket, never above the largest (the
// largest itself in the last bucket); 0 when nothing was recorded.
func (h *latencyHist) Percentile(p float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := max(1, int64(math.Ceil(p/100*float64(h.total))))
	var seen int64
	for i, n := range h.counts[:len(h.counts)-1] {
		if seen += n; seen >= rank {
			return min(time.Duration(histHighest(i))*time.Microsecond+time.Microsecond-1, h.max)
		}
	}
	return h.max // in the last bucket, where values over histTop count too
}
