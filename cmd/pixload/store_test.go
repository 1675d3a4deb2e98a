package main

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

const metricsBefore = `# HELP pixsandbox_store_batches_total x
# TYPE pixsandbox_store_batches_total counter
pixsandbox_store_batches_total 10
pixsandbox_store_operations_total 100
pixsandbox_store_batch_apply_seconds_sum 0.05
pixsandbox_store_batch_apply_seconds_count 10
pixsandbox_store_batch_commit_seconds_bucket{le="0.025"} 9
pixsandbox_store_batch_commit_seconds_bucket{le="0.1"} 10
pixsandbox_store_batch_commit_seconds_bucket{le="+Inf"} 10
pixsandbox_store_batch_commit_seconds_sum 0.1
pixsandbox_store_batch_commit_seconds_count 10
pixsandbox_http_requests_total{route="/x"} 5
`

const metricsAfter = `pixsandbox_store_batches_total 110
pixsandbox_store_operations_total 6500
pixsandbox_store_batch_apply_seconds_sum 0.55
pixsandbox_store_batch_commit_seconds_bucket{le="0.025"} 104
pixsandbox_store_batch_commit_seconds_bucket{le="0.1"} 107
pixsandbox_store_batch_commit_seconds_bucket{le="+Inf"} 110
pixsandbox_store_batch_commit_seconds_sum 0.6
pixsandbox_store_batch_commit_seconds_count 110
`

// A route's writer figures are the differences of two scrapes.
func TestWriterSince(t *testing.T) {
	parse := func(s string) writerCounts {
		c, err := parseWriter(bufio.NewScanner(strings.NewReader(s)))
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
	if _, err := parseWriter(bufio.NewScanner(strings.NewReader(`{"status":"ok"}`))); err == nil {
		t.Error("a page without the store's series parsed")
	}
}
