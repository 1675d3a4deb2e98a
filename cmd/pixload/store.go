package main

// The store's writer during a route, from the server's /metrics: how many
// batches it committed, how large, and how long their commits took. A commit
// far above the others is a stall every waiting write shares; their count
// tells a tail that comes from the store from one that comes from load.

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// writerCounts are the store's series at one instant.
type writerCounts struct {
	batches, ops       float64
	applySum           float64             // seconds
	commitSum, commits float64             // seconds; batches timed
	commitUpTo         map[float64]float64 // cumulative commits by bucket bound (seconds)
}

// writerRun is what the writer did during a route.
type writerRun struct {
	Batches, Ops         float64
	Apply, Commit        time.Duration // mean per batch
	Over25ms, Over100ms  float64       // commits that took longer
	CommitShare, Seconds float64       // share of the route's wall time spent in commits; the route's length
}

// readWriter scrapes base's /metrics for the store's series.
func readWriter(base string) (writerCounts, error) {
	resp, err := httpClient.Get(base + "/metrics")
	if err != nil {
		return writerCounts{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return writerCounts{}, fmt.Errorf("GET /metrics: %d", resp.StatusCode)
	}
	return parseWriter(resp.Body)
}

// parseWriter reads the store's series from a /metrics page in Prometheus's
// text format.
func parseWriter(page io.Reader) (writerCounts, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(page)
	if err != nil {
		return writerCounts{}, fmt.Errorf("/metrics: %w", err)
	}
	counter := func(name string) (float64, bool) {
		f := families[name]
		if f == nil || len(f.GetMetric()) != 1 {
			return 0, false
		}
		return f.GetMetric()[0].GetCounter().GetValue(), true
	}
	histogram := func(name string) *dto.Histogram {
		if f := families[name]; f != nil && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetHistogram()
		}
		return nil
	}
	batches, ok1 := counter("pixsandbox_store_batches_total")
	ops, ok2 := counter("pixsandbox_store_operations_total")
	apply, commit := histogram("pixsandbox_store_batch_apply_seconds"), histogram("pixsandbox_store_batch_commit_seconds")
	if !ok1 || !ok2 || apply == nil || commit == nil {
		return writerCounts{}, fmt.Errorf("/metrics has no pixsandbox_store_ series")
	}
	c := writerCounts{batches: batches, ops: ops, applySum: apply.GetSampleSum(),
		commitSum: commit.GetSampleSum(), commits: float64(commit.GetSampleCount()), commitUpTo: map[float64]float64{}}
	for _, b := range commit.GetBucket() {
		c.commitUpTo[b.GetUpperBound()] = float64(b.GetCumulativeCount())
	}
	return c, nil
}

// since is what the writer did between b (before the route) and a, over d.
func (a writerCounts) since(b writerCounts, d time.Duration) writerRun {
	r := writerRun{Batches: a.batches - b.batches, Ops: a.ops - b.ops, Seconds: d.Seconds()}
	over := func(le float64) float64 { return (a.commits - a.commitUpTo[le]) - (b.commits - b.commitUpTo[le]) }
	r.Over25ms, r.Over100ms = over(0.025), over(0.1)
	if n := a.commits - b.commits; n > 0 {
		r.Apply = time.Duration((a.applySum - b.applySum) / n * float64(time.Second))
		r.Commit = time.Duration((a.commitSum - b.commitSum) / n * float64(time.Second))
	}
	if d > 0 {
		r.CommitShare = (a.commitSum - b.commitSum) / d.Seconds()
	}
	return r
}

// writerTable renders the writer's figures of the routes that wrote.
func writerTable(rs []result) string {
	var b strings.Builder
	for _, r := range rs {
		w := r.Writer
		if w == nil || w.Batches == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nThe store's writer during each route that wrote (from /metrics): batches committed per second, operations per batch (client writes and job steps), mean time running a batch's operations and waiting for its write and sync, the commits that took over 25 and 100 ms (stalls every waiting write shares), and the share of the route's time spent waiting for commits.\n\n")
			b.WriteString("| route | batches/s | ops/batch | apply | commit | commits > 25 ms | > 100 ms | time in commits |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.1f | %s | %s | %.0f | %.0f | %.0f%% |\n", r.Name, w.Batches/w.Seconds, w.Ops/w.Batches,
			fmtDur(w.Apply), fmtDur(w.Commit), w.Over25ms, w.Over100ms, 100*w.CommitShare)
	}
	return b.String()
}
