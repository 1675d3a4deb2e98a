package main

import (
	"strings"
	"testing"
	"time"
)

const metricsBefore = `# HELP pixsandbox_store_batches_total x
# TYPE pixsandbox_store_batches_total counter
pixsandbox_store_batches_total 10
# TYPE pixsandbox_store_operations_total counter
pixsandbox_store_operations_total 100
# TYPE pixsandbox_store_batch_apply_seconds histogram
pixsandbox_store_batch_apply_seconds_bucket{le="+Inf"} 10
pixsandbox_store_batch_apply_seconds_sum 0.05
pixsandbox_store_batch_apply_seconds_count 10
# TYPE pixsandbox_store_batch_commit_seconds histogram
pixsandbox_store_batch_commit_seconds_bucket{le="0.025"} 9
pixsandbox_store_batch_commit_seconds_bucket{le="0.1"} 10
pixsandbox_store_batch_commit_seconds_bucket{le="+Inf"} 10
pixsandbox_store_batch_commit_seconds_sum 0.1
pixsandbox_store_batch_commit_seconds_count 10
# TYPE pixsandbox_http_requests_total counter
pixsandbox_http_requests_total{route="/x"} 5
`

// metricsAfter is the same page after a route: 100 batches more, 5 of them
// over 25 ms and 3 of those over 100 ms.
const metricsAfter = `# TYPE pixsandbox_store_batches_total counter
pixsandbox_store_batches_total 110
# TYPE pixsandbox_store_operations_total counter
pixsandbox_store_operations_total 6500
# TYPE pixsandbox_store_batch_apply_seconds histogram
pixsandbox_store_batch_apply_seconds_bucket{le="+Inf"} 110
pixsandbox_store_batch_apply_seconds_sum 0.55
pixsandbox_store_batch_apply_seconds_count 110
# TYPE pixsandbox_store_batch_commit_seconds histogram
pixsandbox_store_batch_commit_seconds_bucket{le="0.025"} 104
pixsandbox_store_batch_commit_seconds_bucket{le="0.1"} 107
pixsandbox_store_batch_commit_seconds_bucket{le="+Inf"} 110
pixsandbox_store_batch_commit_seconds_sum 0.6
pixsandbox_store_batch_commit_seconds_count 110
`

// A route's writer figures are the differences of two scrapes.
func TestWriterSince(t *testing.T) {
	parse := func(s string) writerCounts {
		c, err := parseWriter(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	w := parse(metricsAfter).since(parse(metricsBefore), 2*time.Second)
	if w.Batches != 100 || w.Ops != 6400 || w.Apply != 5*time.Millisecond || w.Commit != 5*time.Millisecond {
		t.Errorf("batches %v ops %v apply %v commit %v", w.Batches, w.Ops, w.Apply, w.Commit)
	}
	// Commits over 25 ms: 6 after, 1 before; over 100 ms: 3 after, none before.
	if w.Over25ms != 5 || w.Over100ms != 3 || w.CommitShare != 0.25 {
		t.Errorf("over 25 ms %v, over 100 ms %v, share %v", w.Over25ms, w.Over100ms, w.CommitShare)
	}
	out := writerTable([]result{{Name: "put-cob", Writer: &w}, {Name: "balance", Writer: &writerRun{}}})
	if !strings.Contains(out, "| put-cob | 50 | 64.0 | 5.00 ms | 5.00 ms | 5 | 3 | 25% |") || strings.Contains(out, "| balance |") {
		t.Errorf("writer table:\n%s", out)
	}
	if _, err := parseWriter(strings.NewReader("# TYPE x counter\nx 1\n")); err == nil {
		t.Error("a page without the store's series parsed")
	}
}

// A window is quiet under 10% of the machine and, when the server is
// watched, under 5% of a core for the server.
func TestQuiet(t *testing.T) {
	w := 500 * time.Millisecond // 50 jiffies of one core; 5% is 2.5
	for _, tc := range []struct {
		busy, total uint64
		watch       bool
		server      uint64
		want        bool
	}{
		{9, 100, true, 2, true},
		{10, 100, true, 2, false}, // the machine at 10%
		{9, 100, true, 3, false},  // the server at 6%
		{9, 100, false, 50, true}, // the server not watched
		{0, 0, true, 0, true},     // no jiffies counted
	} {
		if got := quiet(tc.busy, tc.total, tc.watch, tc.server, w); got != tc.want {
			t.Errorf("quiet(%d/%d, watch %v, server %d) = %v, want %v", tc.busy, tc.total, tc.watch, tc.server, got, tc.want)
		}
	}
}
