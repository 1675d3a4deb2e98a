package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The writer's counts per bucket become cumulative buckets, and each scrape
// reads the store again.
func TestStore_Collect(t *testing.T) {
	st := StoreStats{Batches: 4, Operations: 70,
		Apply:  Histogram{Bounds: []float64{0.001, 0.025}, Counts: []int64{3, 1, 0}, Sum: 0.012},
		Commit: Histogram{Bounds: []float64{0.001, 0.025}, Counts: []int64{1, 2, 1}, Sum: 0.3},
	}
	reg := prometheus.NewRegistry()
	NewStore(reg, func() StoreStats { return st })
	want := `
# HELP pixsandbox_store_batch_commit_seconds Per batch, the time its write and sync took: every operation of the batch, and every one waiting behind it, waits this long.
# TYPE pixsandbox_store_batch_commit_seconds histogram
pixsandbox_store_batch_commit_seconds_bucket{le="0.001"} 1
pixsandbox_store_batch_commit_seconds_bucket{le="0.025"} 3
pixsandbox_store_batch_commit_seconds_bucket{le="+Inf"} 4
pixsandbox_store_batch_commit_seconds_sum 0.3
pixsandbox_store_batch_commit_seconds_count 4
# HELP pixsandbox_store_batch_apply_seconds Per batch, the time the writer spent running its operations.
# TYPE pixsandbox_store_batch_apply_seconds histogram
pixsandbox_store_batch_apply_seconds_bucket{le="0.001"} 3
pixsandbox_store_batch_apply_seconds_bucket{le="0.025"} 4
pixsandbox_store_batch_apply_seconds_bucket{le="+Inf"} 4
pixsandbox_store_batch_apply_seconds_sum 0.012
pixsandbox_store_batch_apply_seconds_count 4
# HELP pixsandbox_store_operations_total Write operations (client writes and job steps) those batches carried.
# TYPE pixsandbox_store_operations_total counter
pixsandbox_store_operations_total 70
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "pixsandbox_store_batch_commit_seconds", "pixsandbox_store_batch_apply_seconds", "pixsandbox_store_operations_total"); err != nil {
		t.Error(err)
	}
	st.Batches = 5
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP pixsandbox_store_batches_total Batches the store's writer committed (one write and sync each).
# TYPE pixsandbox_store_batches_total counter
pixsandbox_store_batches_total 5
`), "pixsandbox_store_batches_total"); err != nil {
		t.Error(err)
	}
}
