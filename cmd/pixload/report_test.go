package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestVerdict(t *testing.T) {
	ceil := result{Name: "ceiling", ReqPerSec: 40000}
	ms := time.Millisecond
	for _, tc := range []struct {
		r     result
		ratio float64
		ok    bool
	}{
		{result{Name: "balance", ReqPerSec: 20000, P99: 9 * ms}, 0.5, true},
		{result{Name: "balance", ReqPerSec: 19960, P99: 9 * ms}, 0.499, false},
		{result{Name: "api-balance", ReqPerSec: 30000, P99: 10 * ms}, 0.75, false}, // p99 must be under 10 ms
		{result{Name: "cash-out", ReqPerSec: 3200, P99: 24 * ms}, 0.08, true},
		{result{Name: "cash-out-1acct", ReqPerSec: 3180, P99: 5 * ms}, 0.0795, false},
		{result{Name: "backlog-cash-out", ReqPerSec: 4000, P99: 25 * ms}, 0.1, false},
		{result{Name: "put-cob", ReqPerSec: 4800, P99: 20 * ms}, 0.12, true},
		{result{Name: "put-cob", ReqPerSec: 4800, P99: 20 * ms, Errors: 1}, 0.12, false},
		{result{Name: "token", ReqPerSec: 100, P99: 9 * ms}, 0.0025, true},
	} {
		ratio, ok := verdict(tc.r, ceil)
		if d := ratio - tc.ratio; d > 1e-3 || d < -1e-3 || ok != tc.ok {
			t.Errorf("%s %+v: ratio %.4f ok %v, want %.4f %v", tc.r.Name, tc.r, ratio, ok, tc.ratio, tc.ok)
		}
	}
	if ratio, _ := verdict(result{Name: "x", ReqPerSec: 10}, result{}); ratio != 0 {
		t.Errorf("no ceiling: ratio %v", ratio)
	}
}

func TestTableRows(t *testing.T) {
	ceil := result{Name: "ceiling", Route: "GET /", ReqPerSec: 40000}
	rs := []result{
		{Name: "put-cob", Route: "PUT /cob/{txid}", Note: "durable", ReqPerSec: 6000, P99: 12 * time.Millisecond, Target: "t"},
		{Name: "backlog-cash-out", Route: "POST /api/pix/cash-out", ReqPerSec: 1},
	}
	out := table(machine{nproc: 2, model: "m"}, options{connections: 64, duration: time.Second, startups: 1}, 20*time.Millisecond, 20<<20, 30<<20, "hold", rs, ceil)
	if !strings.Contains(out, "| PUT /cob/{txid} (durable) | 6000 |") || !strings.Contains(out, "| 0.15 |") || !strings.Contains(out, "| t | pass |") {
		t.Errorf("put-cob row missing or wrong:\n%s", out)
	}
	if strings.Contains(out, "backlog") {
		t.Errorf("an engine row is in the route table:\n%s", out)
	}
	eng := engineTable([]engineResult{
		{Name: "backlog-cash-out", Label: "cash-outs", Target: "≥ 0.08", wrk: &result{Name: "backlog-cash-out", ReqPerSec: 4000, P99: 10 * time.Millisecond}},
		{Name: "backlog-settle", Label: "backlog", Target: "lag < 2 s", Value: "3 jobs, 0.10 s", Pass: true},
		{Name: "backlog-worst", Label: "worst", Target: "—", Value: "9 jobs, 0.40 s"},
	}, ceil)
	if !strings.Contains(eng, "| 0.10 |") || !strings.Contains(eng, "| ≥ 0.08 | pass |") || !strings.Contains(eng, "| backlog | 3 jobs, 0.10 s | — | — | lag < 2 s | pass |") {
		t.Errorf("engine table:\n%s", eng)
	}
	if !strings.Contains(eng, "| worst | 9 jobs, 0.40 s | — | — | — | — |") { // no target: neither pass nor fail
		t.Errorf("engine row without a target:\n%s", eng)
	}
}

func TestPercentileAndMedian(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p := percentile(ds, 99); p != 99*time.Millisecond {
		t.Errorf("p99 = %s", p)
	}
	if p := percentile(ds[:1], 99); p != time.Millisecond {
		t.Errorf("p99 of one = %s", p)
	}
	if p := percentile(nil, 99); p != 0 {
		t.Errorf("p99 of none = %s", p)
	}
	if m := median([]time.Duration{3, 1, 2}); m != 2 {
		t.Errorf("median = %s", m)
	}
}

func TestCertHeaderAndSelected(t *testing.T) {
	if got := certHeader("A+b/\n -"); got != "A%2Bb%2F%0A%20-" {
		t.Errorf("certHeader = %q", got)
	}
	if !selected("", "x") || !selected("a, x", "x") || selected("a,b", "x") {
		t.Error("selected")
	}
}

// The backlog watch keeps the worst lag it read (ties by jobs due), skips the
// samples of the first seconds and counts the reads that failed.
func TestBacklogWatch(t *testing.T) {
	refused := backlog{Due: -1}
	seq := []backlog{{Due: 10, LagSeconds: 0.5}, {Due: 30, LagSeconds: 1.5}, refused, {Due: 40, LagSeconds: 1.5}, {Due: 5, LagSeconds: 0.1}}
	stop := make(chan struct{})
	start := time.Now()
	i := 0
	read := func() (backlog, error) {
		if time.Since(start) < 30*time.Millisecond {
			return backlog{Due: 50, LagSeconds: 9}, nil // inside the skipped start: never read
		}
		b := seq[min(i, len(seq)-1)]
		if i++; i == len(seq) {
			close(stop)
		}
		if b == refused {
			return backlog{}, errors.New("refused")
		}
		return b, nil
	}
	worst, n, errs := backlogWatch(stop, 5*time.Millisecond, 40*time.Millisecond, read)
	if worst.LagSeconds != 1.5 || worst.Due != 40 {
		t.Errorf("worst %+v, want 40 jobs, 1.5 s", worst)
	}
	if n != 4 || errs != 1 {
		t.Errorf("%d samples, %d errors; want 4 and 1", n, errs)
	}
}
