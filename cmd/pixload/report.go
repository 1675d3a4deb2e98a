package main

// The results and their Markdown tables.

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// result is one wrk run.
type result struct {
	Name        string
	Route       string
	Target      string
	ReqPerSec   float64
	P50, P99    time.Duration
	P90, Max    time.Duration // the spread of the tail: how many requests wait, and how long the worst
	Requests    int64
	Errors      int64
	Note        string
	PeakRSS     int64
	OtherCPU    float64
	CPUPerReq   time.Duration // server CPU time (user+system) per request
	Writer      *writerRun    // the store's writer during the route; nil when /metrics could not be read
	extraPerSec float64
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func selected(filter, name string) bool {
	if filter == "" {
		return true
	}
	for _, f := range strings.Split(filter, ",") {
		if strings.TrimSpace(f) == name {
			return true
		}
	}
	return false
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "**FAIL**"
}

// verdict is a route's ratio to the same run's ceiling and whether it meets
// its target: reads p99 < 10 ms (balance reads also ≥ 0.5 of the ceiling),
// durable writes p99 < 25 ms and ≥ 0.08 of the ceiling (cash-out) or ≥ 0.12
// (PUT /cob); any error fails.
func verdict(r, ceil result) (ratio float64, ok bool) {
	if ceil.ReqPerSec > 0 {
		ratio = r.ReqPerSec / ceil.ReqPerSec
	}
	read := r.P99 < 10*time.Millisecond && r.Errors == 0
	write := r.P99 < 25*time.Millisecond && r.Errors == 0
	switch r.Name {
	case "balance", "api-balance":
		return ratio, read && ratio >= 0.5
	case "cash-out", "cash-out-1acct", "backlog-cash-out":
		return ratio, write && ratio >= 0.08
	case "put-cob":
		return ratio, write && ratio >= 0.12
	}
	return ratio, read
}

// table renders the results as Markdown.
func table(m machine, o options, startup time.Duration, idle, peak int64, inv string, rs []result, ceil result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %d cores (nproc), %s. Server pinned to cpu %s, wrk to cpu %s (%d thread(s)), %d connections, %s per route.\n\n",
		m.nproc, m.model, orAll(m.serverCPU), orAll(m.wrkCPU), m.threads, o.connections, o.duration)
	fmt.Fprintf(&b, "| route | req/s | p50 | p90 | p99 | max | ratio to ceiling | errors | server CPU/req | other CPU | target | result |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	fmt.Fprintf(&b, "| ceiling: %s | %.0f | %s | %s | %s | %s | 1.00 | %d | %s | %.0f%% | — | — |\n", ceil.Route, ceil.ReqPerSec, fmtDur(ceil.P50), fmtDur(ceil.P90), fmtDur(ceil.P99), fmtDur(ceil.Max), ceil.Errors, fmtDur(ceil.CPUPerReq), 100*ceil.OtherCPU)
	for _, r := range rs {
		if r.Name == "backlog-cash-out" || r.Name == "isolation-a" {
			continue // in the engine table
		}
		ratio, ok := verdict(r, ceil)
		label := r.Route
		if r.Note != "" {
			label += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %s | %.2f | %d | %s | %.0f%% | %s | %s |\n", label, r.ReqPerSec, fmtDur(r.P50), fmtDur(r.P90), fmtDur(r.P99), fmtDur(r.Max), ratio, r.Errors, fmtDur(r.CPUPerReq), 100*r.OtherCPU, r.Target, passFail(ok))
	}
	b.WriteString(writerTable(rs))
	fmt.Fprintf(&b, "\nother CPU: the share of the machine's CPU time used by processes other than the server and wrk during the run; above a few percent the figures are understated. server CPU/req: the server's user+system CPU time divided by the requests served, less sensitive to other load than req/s; 1 s divided by it is what one core could serve if CPU were the only limit.\n")
	fmt.Fprintf(&b, "\n| measure | value | target | result |\n|---|---:|---|---|\n")
	fmt.Fprintf(&b, "| start-up (exec to first healthy /healthz, fresh data dir; median of %d) | %s | < 150 ms | %s |\n",
		max(1, o.startups), fmtDur(startup), passFail(startup < 150*time.Millisecond))
	fmt.Fprintf(&b, "| idle RSS (1 s after start-up) | %.1f MB | < 64 MB | %s |\n", mb(idle), passFail(idle < 64<<20))
	fmt.Fprintf(&b, "| peak RSS under load | %.1f MB | — | — |\n", mb(peak))
	fmt.Fprintf(&b, "| ledger invariants after the run (GET /_sandbox/invariants) | %s | hold | — |\n", inv)
	return b.String()
}
