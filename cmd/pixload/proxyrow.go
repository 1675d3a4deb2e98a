package main

import (
	"fmt"
	"strings"
	"time"
)

// proxyTable renders the proxy row (-open-loop-proxy): each half's line, the
// latency each pair's proxied half adds to its direct half, and, with more
// than one pair (-open-loop-proxy-pairs), the median of those, which gives
// the row's verdict: on a shared host one pair's p99 can land anywhere in
// the host's own spread, the median of alternating pairs much less so.
func proxyTable(head string, out *openOutcome) string {
	var b strings.Builder
	pairs := len(out.proxy) / 2
	title := "balance + PUT /cob, half the rate each: direct, then through the proxy, each on a fresh server"
	if pairs > 1 {
		title += fmt.Sprintf("; %d pairs, one after another", pairs)
	}
	fmt.Fprintf(&b, "\n"+head, title)
	for _, r := range out.proxy {
		openLine(&b, r.Name, r)
		for _, p := range r.Parts {
			openLine(&b, r.Name+": "+p.Label, p)
		}
	}
	fmt.Fprintf(&b, "\n| through the proxy, against direct (same run) | p50 | p99 | target | result |\n|---|---:|---:|---|---|\n")
	target := fmt.Sprintf("p50 < 1 ms, p99 < 5 ms at %.0f req/s, no errors", out.proxy[1].Rate)
	var add50, add99 []time.Duration
	errs := false
	for k := range pairs {
		d, px := out.proxy[2*k], out.proxy[2*k+1]
		a50, a99 := px.P50-d.P50, px.P99-d.P99
		add50, add99 = append(add50, a50), append(add99, a99)
		e := px.Errors != 0 || d.Errors != 0
		errs = errs || e
		added, rat := "added latency", "ratio to direct"
		if pairs > 1 {
			added, rat = fmt.Sprintf("added latency, pair %d", k+1), fmt.Sprintf("ratio to direct, pair %d", k+1)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", added, signed(a50), signed(a99), target, passFail(meetsProxyTarget(a50, a99, e)))
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | — | — |\n", rat, ratio(px.P50, d.P50), ratio(px.P99, d.P99))
	}
	if pairs > 1 {
		m50, m99 := median(add50), median(add99)
		fmt.Fprintf(&b, "| **added latency, median of %d pairs** | %s | %s | %s, in every pair | %s |\n", pairs, signed(m50), signed(m99), target, passFail(meetsProxyTarget(m50, m99, errs)))
	}
	if pairs == 1 {
		fmt.Fprintf(&b, "\nThe proxy over its row: %s.\n", strings.Join(out.findings, ""))
		return b.String()
	}
	each := make([]string, len(out.findings))
	for i, f := range out.findings {
		each[i] = fmt.Sprintf("pair %d: %s", i+1, f)
	}
	fmt.Fprintf(&b, "\nThe proxy over its rows: %s.\n", strings.Join(each, "; "))
	return b.String()
}

// meetsProxyTarget is issue 30's target for the latency the proxy adds.
func meetsProxyTarget(add50, add99 time.Duration, errors bool) bool {
	return add50 < time.Millisecond && add99 < 5*time.Millisecond && !errors
}
