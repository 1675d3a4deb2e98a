package metrics

import "github.com/prometheus/client_golang/prometheus"

// The store's series: how the single writer batches and how long its commits
// take. A commit far above its usual time is a stall every waiting write
// shares (a memtable switch, a sync behind a compaction's writes), so these
// histograms tell a latency tail that comes from the store from one that comes
// from load.

// StoreStats is what the store's writer has done since the store opened.
type StoreStats struct {
	Batches, Operations int64
	// Apply is, per commit, how long the writer ran the batch's operations;
	// Commit, how long the batch's write and sync took.
	Apply, Commit Histogram
}

// Histogram is a histogram read from its source: Counts[i] counts the
// observations above Bounds[i-1] and up to Bounds[i] (in seconds); the last
// count, one more than Bounds, those above every bound.
type Histogram struct {
	Bounds []float64
	Counts []int64
	Sum    float64
}

// Store is the collector of the store's series.
type Store struct {
	read                                        func() StoreStats
	descBatches, descOps, descApply, descCommit *prometheus.Desc
}

// NewStore creates the collector and registers it on reg; read is called at
// each scrape.
func NewStore(reg prometheus.Registerer, read func() StoreStats) *Store {
	s := &Store{read: read,
		descBatches: prometheus.NewDesc("pixsandbox_store_batches_total", "Batches the store's writer committed (one write and sync each).", nil, nil),
		descOps:     prometheus.NewDesc("pixsandbox_store_operations_total", "Write operations (client writes and job steps) those batches carried.", nil, nil),
		descApply:   prometheus.NewDesc("pixsandbox_store_batch_apply_seconds", "Per batch, the time the writer spent running its operations.", nil, nil),
		descCommit:  prometheus.NewDesc("pixsandbox_store_batch_commit_seconds", "Per batch, the time its write and sync took: every operation of the batch, and every one waiting behind it, waits this long.", nil, nil),
	}
	reg.MustRegister(s)
	return s
}

// Describe implements prometheus.Collector.
func (s *Store) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.descBatches
	ch <- s.descOps
	ch <- s.descApply
	ch <- s.descCommit
}

// Collect implements prometheus.Collector.
func (s *Store) Collect(ch chan<- prometheus.Metric) {
	st := s.read()
	ch <- prometheus.MustNewConstMetric(s.descBatches, prometheus.CounterValue, float64(st.Batches))
	ch <- prometheus.MustNewConstMetric(s.descOps, prometheus.CounterValue, float64(st.Operations))
	ch <- constHistogram(s.descApply, st.Apply)
	ch <- constHistogram(s.descCommit, st.Commit)
}

// constHistogram turns h's counts per bucket into Prometheus's cumulative
// buckets, with d's label values.
func constHistogram(d *prometheus.Desc, h Histogram, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var total uint64
	for i, n := range h.Counts {
		total += uint64(n)
		if i < len(h.Bounds) {
			buckets[h.Bounds[i]] = total
		}
	}
	return prometheus.MustNewConstHistogram(d, total, h.Sum, buckets, labels...)
}
