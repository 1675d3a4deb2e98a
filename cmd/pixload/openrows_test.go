package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseOpenLoop(t *testing.T) {
	fr, err := parseFractions("0.25, 0.5,0.75")
	if err != nil || fmt.Sprint(fr) != "[0.25 0.5 0.75]" {
		t.Fatalf("fractions %v %v", fr, err)
	}
	got, err := parseOpenLoop("put-cob@1000:2m, balance@0.5x,cash-out@50%:10s,listing,balance@5000+put-cob@1000:2m", fr, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	one := func(route string, rate, fraction float64, d time.Duration) openSpec {
		return openSpec{parts: []openPart{{route, rate, fraction}}, duration: d}
	}
	want := []openSpec{
		one("put-cob", 1000, 0, 2*time.Minute),
		one("balance", 0, 0.5, time.Minute),
		one("cash-out", 0, 0.5, 10*time.Second),
		one("listing", 0, 0.25, time.Minute), one("listing", 0, 0.5, time.Minute), one("listing", 0, 0.75, time.Minute),
		{parts: []openPart{{"balance", 5000, 0}, {"put-cob", 1000, 0}}, duration: 2 * time.Minute},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if n, r := got[6].name(), got[6].rate(); n != "balance+put-cob" || r != 6000 {
		t.Errorf("a row of two routes: name %q rate %v", n, r)
	}
	if s, err := parseOpenLoop("", fr, time.Minute); err != nil || len(s) != 0 {
		t.Errorf("empty: %v %v", s, err)
	}
	for _, bad := range []string{"nope@100", "put-cob@0", "put-cob@-5", "put-cob@abc", "put-cob@5x", "put-cob@1000:10ms", "put-cob@1000:x", "cash-in+pay@10", "put-cob@Inf", "balance+put-cob@100", "balance@100+", "balance@100+nope@5"} {
		if _, err := parseOpenLoop(bad, fr, time.Minute); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"", "0", "0.5,x", "5", "-0.1"} {
		if _, err := parseFractions(bad); err == nil {
			t.Errorf("fractions %q accepted", bad)
		}
	}
}

func TestParseOpenFlags(t *testing.T) {
	o := options{openLoop: "balance@200", openFractions: "0.5", openDuration: 30 * time.Second, openProxy: "1000:45s", openProxyPairs: 1}
	if err := parseOpenFlags(&o); err != nil {
		t.Fatal(err)
	}
	want := openSpec{parts: []openPart{{"balance", 500, 0}, {"put-cob", 500, 0}}, duration: 45 * time.Second}
	if len(o.openSpecs) != 1 || o.proxySpec == nil || fmt.Sprint(*o.proxySpec) != fmt.Sprint(want) {
		t.Errorf("specs %v proxy %+v", o.openSpecs, o.proxySpec)
	}
	o = options{openFractions: "0.5", openDuration: 30 * time.Second, openProxy: "500", openProxyPairs: 3}
	if err := parseOpenFlags(&o); err != nil || o.proxySpec.duration != 30*time.Second || len(o.openSpecs) != 0 {
		t.Errorf("proxy 500: %+v %v", o.proxySpec, err)
	}
	for _, bad := range []string{"0.5x", "x", "1000:1ms", "0"} {
		o = options{openFractions: "0.5", openDuration: time.Second, openProxy: bad, openProxyPairs: 1}
		if err := parseOpenFlags(&o); err == nil {
			t.Errorf("-open-loop-proxy %q accepted", bad)
		}
	}
	if err := parseOpenFlags(&options{openFractions: "zero", openProxyPairs: 1}); err == nil {
		t.Error("bad fractions accepted")
	}
	if err := parseOpenFlags(&options{openFractions: "0.5", openProxy: "1000", openProxyPairs: 0}); err == nil {
		t.Error("-open-loop-proxy-pairs 0 accepted")
	}
}

// TestProxyTable_Pairs: with several pairs, each pair's added latency is
// its own proxied half against its own direct half, and the verdict is the
// median pair's: one pair over the target does not fail the row, two of
// three do.
func TestProxyTable_Pairs(t *testing.T) {
	ms := time.Millisecond
	half := func(name string, p50, p99 time.Duration) openResult {
		return openResult{Name: name, Rate: 1000, P50: p50, P99: p99}
	}
	out := &openOutcome{findings: []string{"a", "b", "c"}, proxy: []openResult{
		half("direct 1", ms, 4*ms), half("proxy 1", ms+300*time.Microsecond, 6*ms),
		half("direct 2", ms, 9*ms), half("proxy 2", ms+200*time.Microsecond, 12*ms),
		half("direct 3", ms, 5*ms), half("proxy 3", ms+400*time.Microsecond, 16*ms),
	}}
	md := proxyTable("| %s |\n", out)
	mustContain(t, md,
		"; 3 pairs, one after another |",
		"| proxy 2 | 1000 |",
		"| added latency, pair 1 | +300 µs | +2.00 ms | p50 < 1 ms, p99 < 5 ms at 1000 req/s, no errors | pass |",
		"| added latency, pair 2 | +200 µs | +3.00 ms |",
		"| added latency, pair 3 | +400 µs | +11.00 ms | p50 < 1 ms, p99 < 5 ms at 1000 req/s, no errors | **FAIL** |",
		"| ratio to direct, pair 3 | 1.40 | 3.20 |",
		"| **added latency, median of 3 pairs** | +300 µs | +3.00 ms | p50 < 1 ms, p99 < 5 ms at 1000 req/s, no errors, in every pair | pass |",
		"The proxy over its rows: pair 1: a; pair 2: b; pair 3: c.",
	)
	out.proxy[3].P99 = 15 * ms // pair 2 over the target too: the median is
	if md := proxyTable("| %s |\n", out); !strings.Contains(md, "median of 3 pairs** | +300 µs | +6.00 ms") || !strings.Contains(md, "| **FAIL** |\n\nThe proxy") {
		t.Errorf("two pairs of three over the target passed:\n%s", md)
	}
	out.proxy[3].P99, out.proxy[2].Errors = 12*ms, 1 // an error in any pair fails the median
	if md := proxyTable("| %s |\n", out); !strings.Contains(md, "| **FAIL** |\n\nThe proxy") {
		t.Errorf("an error in pair 2 passed:\n%s", md)
	}
}

// Fractions become rates from the same run's closed-loop figures.
func TestResolveRates(t *testing.T) {
	specs := []openSpec{{parts: []openPart{{route: "put-cob", fraction: 0.25}}}, {parts: []openPart{{route: "balance", rate: 5000}, {route: "put-cob", fraction: 0.5}}}}
	got := resolveRates(specs, []result{{Name: "put-cob", ReqPerSec: 4090}})
	if got[0].rate() != 1023 || got[1].parts[0].rate != 5000 || got[1].parts[1].rate != 2045 || specs[0].parts[0].rate != 0 {
		t.Errorf("rates %v (specs %v)", got, specs)
	}
}

// The proxy's first line names its URL (cmd/pixsandbox/proxy.go); the
// tap on its output passes everything on and the first line, whole, once.
func TestProxyLine(t *testing.T) {
	var sb strings.Builder
	first := make(chan string, 1)
	tap := &lineTap{w: &sb, first: first}
	for _, part := range []string{"pixsandbox proxy: http://127.0.0.1:1 ", "-> x\nnext ", "line\n"} {
		if _, err := tap.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if got := <-first; got != "pixsandbox proxy: http://127.0.0.1:1 -> x" || sb.String() != "pixsandbox proxy: http://127.0.0.1:1 -> x\nnext line\n" || len(first) != 0 {
		t.Errorf("first line %q, passed on %q", got, sb.String())
	}

	line := "pixsandbox proxy: http://127.0.0.1:41234 -> http://127.0.0.1:8080 (findings at http://127.0.0.1:41234/_proxy/findings; Ctrl-C ends the run)"
	if m := proxyLine.FindStringSubmatch(line); m == nil || m[1] != "http://127.0.0.1:41234" {
		t.Errorf("match %v", m)
	}
	if proxyLine.MatchString("pixsandbox proxy: listen tcp: address in use") {
		t.Error("an error line matched")
	}
}

func TestOpenTable(t *testing.T) {
	ms := time.Millisecond
	ceil := &openResult{Name: "ceiling", Rate: 1000, P50: 100 * time.Microsecond, P99: ms, Max: 2 * ms}
	out := &openOutcome{inv: "hold", findings: []string{"2000 exchanges; findings: 0 response, 0 state, 0 request, 0 upstream"},
		rows: []openResult{{Name: "put-cob", Label: "PUT /cob/{txid}", Rate: 1023, Fraction: 0.25, Duration: time.Minute, P50: ms, P99: 10 * ms, P999: 40 * ms, Max: 60 * ms,
			Over: [3]int64{3, 0, 0}, Late: 2, OtherCPU: 0.04, Ceiling: ceil, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Slow: []slowAt{{Second: 12, Over: [3]int64{3, 0, 0}, Max: 60 * ms}}},
			{Name: "balance+put-cob", Label: "GET /accounts/balances + PUT /cob/{txid}", Rate: 6000, Duration: 2 * time.Minute,
				Parts: []openResult{{Name: "balance", Label: "GET /accounts/balances", Rate: 5000, Duration: 2 * time.Minute}, {Name: "put-cob", Label: "PUT /cob/{txid}", Rate: 1000, Duration: 2 * time.Minute}}}},
		proxy: []openResult{
			{Name: "direct", Rate: 1000, P50: 500 * time.Microsecond, P99: 4 * ms, Ceiling: ceil,
				Parts: []openResult{{Name: "balance", Label: "GET /accounts/balances", Rate: 500}}},
			{Name: "proxy", Rate: 1000, P50: 900 * time.Microsecond, P99: 7 * ms, Ceiling: ceil}},
	}
	md := openTable(out)
	mustContain(t, md,
		"| PUT /cob/{txid} (0.25 of its closed-loop req/s) | 1023 | 1m0s | 1.00 ms | 10.00 ms | 40.00 ms | 60.00 ms | 3 | 0 | 0 | 2 | 0 | 4% | 100 µs / 1.00 ms / 2.00 ms | 10.0 |",
		"| direct: GET /accounts/balances | 500 |",
		"| balance + PUT /cob, half the rate each: direct, then through the proxy, each on a fresh server | rate |",
		"| added latency | +400 µs | +3.00 ms | p50 < 1 ms, p99 < 5 ms at 1000 req/s, no errors | pass |",
		"| ratio to direct | 1.80 | 1.75 |",
		"- put-cob at 1023/s, from 03:04:05.000Z: +12 s: 3/0/0 (max 60.00 ms)",
		"Ledger invariants on each server after its rows: hold.",
		"| GET /accounts/balances + PUT /cob/{txid} | 6000 | 2m0s |",
		"| of which PUT /cob/{txid} | 1000 | 2m0s |",
	)
	out.proxy[1].P99 = 10 * ms
	if md := openTable(out); !strings.Contains(md, "| **FAIL** |") {
		t.Errorf("6 ms added at p99 passed:\n%s", md)
	}
	if openTable(nil) != "" {
		t.Error("no open-loop rows, yet a table")
	}
}

// The open-loop report says "hold" only when the ledger invariants held on
// every server the rows ran on (the rows' and the proxy pair's two), and
// names the server of any that did not.
func TestOpenOutcomeInvariants(t *testing.T) {
	for _, tt := range []struct {
		checks []serverCheck
		want   string
	}{
		{[]serverCheck{{"rows", "hold"}, {"direct", "hold"}, {"proxy", "hold"}}, "hold"},
		{[]serverCheck{{"direct", "hold"}}, "hold"},
		{[]serverCheck{{"direct", "hold"}, {"proxy", "VIOLATED: {}"}}, "direct: hold; proxy: VIOLATED: {}"},
		{[]serverCheck{{"rows", "not read: refused"}, {"direct", "hold"}}, "rows: not read: refused; direct: hold"},
		{nil, ""},
	} {
		out := &openOutcome{}
		for _, c := range tt.checks {
			out.checked(c.part, c.result)
		}
		if got := out.invariants(); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.checks, got, tt.want)
		}
	}
}

// mustContain fails t for each of wants that md lacks.
func mustContain(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}
