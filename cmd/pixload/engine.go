package main

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The engine rows measure the simulator while work piles up behind the
// writer and the job runner, which a route measured alone never shows:
//
//   - backlog: cash-outs at full speed for -backlog-duration (default 30 s)
//     on the write accounts, each settling 2 s later (a job); meanwhile a
//     prober reads a listing page and a balance (p99 during the backlog), and
//     GET /_sandbox/jobs says how far the runner is behind, once a second
//     (the worst) and at the end (settlements keep pace when the lag stays
//     under 2 s);
//   - isolation (once the settlements left by the row before have run and
//     the machine is quiet): account A's cash_out target accepts connections
//     and never answers; A sends 200 cash-outs a second (all their webhooks
//     hang) while account B sends one every 200 ms: how long after acceptance
//     each of B's settles, on the simulation clock (the settlement delay is
//     2 s);
//   - advance: about 300 requests a second, 40% of them cash-outs, with a
//     POST /_sandbox/clock/advance {"seconds":5} every second (A's target
//     still hanging): the advance's latency.
type engineResult struct {
	Name, Label, Target string
	Value               string
	Pass                bool
	// wrk is the full-speed load of the row, when it has one.
	wrk *result
}

// hangingTarget accepts connections, reads each request and never answers.
type hangingTarget struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startHanging() (*hangingTarget, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hangingTarget{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
			go func() { _, _ = bufio.NewReader(c).ReadString(0) }() // read, never answer
		}
	}()
	return h, nil
}

func (h *hangingTarget) url() string { return "http://" + h.ln.Addr().String() + "/hook" }

func (h *hangingTarget) close() {
	h.ln.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		c.Close()
	}
}

// prober sends one request at a time until stop, recording latencies.
func prober(stop <-chan struct{}, every time.Duration, send func() error) (lat []time.Duration, errs int) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return lat, errs
		case <-t.C:
		}
		start := time.Now() // wall time: the measured latency
		if err := send(); err != nil {
			errs++
			continue
		}
		lat = append(lat, time.Since(start))
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// backlog reads GET /_sandbox/jobs's backlog.
type backlog struct {
	Due             int     `json:"due"`
	LagSeconds      float64 `json:"lagSeconds"`
	WebhooksPending int     `json:"webhooksPending"`
}

func readBacklog(base string) (backlog, error) {
	var out struct {
		Backlog backlog `json:"backlog"`
	}
	err := call("GET", base+"/_sandbox/jobs", "", "", 200, &out)
	return out.Backlog, err
}

// backlogWatch samples the backlog once a second until stop: the worst lag
// seen while cash-outs pile up says whether settlements kept pace all along,
// not only at the end. The first samples are skipped: until the first
// settlements fall due (2 s) there is nothing to be behind on.
func backlogWatch(stop <-chan struct{}, every, skip time.Duration, read func() (backlog, error)) (worst backlog, samples, errs int) {
	t := time.NewTicker(every)
	defer t.Stop()
	start := time.Now() // wall time: when the row began
	for {
		select {
		case <-stop:
			return worst, samples, errs
		case <-t.C:
		}
		select {
		case <-stop: // a tick and the stop both ready: the stop wins
			return worst, samples, errs
		default:
		}
		if time.Since(start) < skip {
			continue
		}
		b, err := read()
		if err != nil {
			errs++
			continue
		}
		samples++
		if b.LagSeconds > worst.LagSeconds || (b.LagSeconds == worst.LagSeconds && b.Due > worst.Due) {
			worst = b
		}
	}
}

// drainBacklog waits up to limit for GET /_sandbox/jobs to report no job
// due, and returns how long it waited.
func drainBacklog(base string, limit time.Duration) (time.Duration, error) {
	start := time.Now() // wall time: how long the wait took
	for {
		b, err := readBacklog(base)
		if err != nil {
			return time.Since(start), err
		}
		if b.Due == 0 {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return time.Since(start), fmt.Errorf("%d jobs still due after %s", b.Due, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runBacklogRow is the backlog row.
func runBacklogRow(o options, m machine, tmp, base string, f *fixtureSet, pid int) ([]engineResult, error) {
	o.duration = o.backlogDuration
	rt := route{name: "backlog-cash-out", label: "POST /api/pix/cash-out", note: fmt.Sprintf("durable; %d accounts; %s at full speed", len(f.writeTokens), o.backlogDuration),
		script: rotatingScript("POST", "/api/pix/cash-out", cashOutBody, "bl", f.writeTokens)}
	stop := make(chan struct{})
	type probe struct {
		lat  []time.Duration
		errs int
	}
	type watch struct {
		worst         backlog
		samples, errs int
	}
	listing, balance, watched := make(chan probe, 1), make(chan probe, 1), make(chan watch, 1)
	begun := false
	rt.onStart = func() { // once the machine is quiet: the probes measure the backlog only
		begun = true
		go func() {
			l, e := prober(stop, 20*time.Millisecond, func() error {
				return call("GET", base+"/api/transactions?size=50", f.listingToken, "", 200, nil)
			})
			listing <- probe{l, e}
		}()
		go func() {
			l, e := prober(stop, 20*time.Millisecond, func() error { return call("GET", base+"/accounts/balances", f.token, "", 200, nil) })
			balance <- probe{l, e}
		}()
		go func() {
			w, n, e := backlogWatch(stop, time.Second, 3*time.Second, func() (backlog, error) { return readBacklog(base) })
			watched <- watch{w, n, e}
		}()
	}
	r, err := runWrk(o, m, tmp, base, rt, pid)
	close(stop)
	if !begun {
		return nil, fmt.Errorf("backlog row: wrk never started: %v", err)
	}
	lp, bp, wb := <-listing, <-balance, <-watched
	if err != nil {
		return nil, err
	}
	b, err := readBacklog(base)
	if err != nil {
		return nil, err
	}
	lp99, bp99 := percentile(lp.lat, 99), percentile(bp.lat, 99)
	return []engineResult{
		{Name: "backlog-cash-out", Label: "cash-outs at full speed: " + rt.note, Target: "≥ 0.08 of the ceiling, p99 < 25 ms", wrk: &r},
		{Name: "backlog-settle", Label: fmt.Sprintf("settlement backlog after %s of cash-outs at full speed (jobs due, lag on the simulation clock)", o.backlogDuration),
			Target: "lag < 2 s", Value: fmt.Sprintf("%d jobs, %.2f s", b.Due, b.LagSeconds), Pass: b.LagSeconds < 2},
		{Name: "backlog-worst", Label: fmt.Sprintf("settlement backlog during the run, worst of %d samples a second apart from 3 s on (%d errors)", wb.samples, wb.errs),
			Target: "—", Value: fmt.Sprintf("%d jobs, %.2f s", wb.worst.Due, wb.worst.LagSeconds)},
		{Name: "backlog-listing", Label: fmt.Sprintf("GET /api/transactions?size=50 during the backlog (p99 of %d, %d errors)", len(lp.lat), lp.errs),
			Target: "p99 < 50 ms", Value: fmtDur(lp99), Pass: lp99 < 50*time.Millisecond && lp.errs == 0 && len(lp.lat) > 0},
		{Name: "backlog-balance", Label: fmt.Sprintf("GET /accounts/balances during the backlog (p99 of %d, %d errors)", len(bp.lat), bp.errs),
			Target: "p99 < 50 ms", Value: fmtDur(bp99), Pass: bp99 < 50*time.Millisecond && bp.errs == 0 && len(bp.lat) > 0},
	}, nil
}

// cashOutOnce sends one cash-out and returns its transactionId.
func cashOutOnce(base, tok, ext string) (string, error) {
	var out struct {
		TransactionID string `json:"transactionId"`
	}
	err := call("POST", base+"/api/pix/cash-out", tok, fmt.Sprintf(cashOutBody, ext, 0, 0), 201, &out)
	return out.TransactionID, err
}

// settleLag is how long after acceptance a transaction settled, on the
// simulation clock; ok is false while it is pending.
func settleLag(base, id string) (lag time.Duration, ok bool, err error) {
	var t struct {
		Status      string `json:"status"`
		CreatedAt   string `json:"createdAt"`
		ProcessedAt string `json:"processedAt"`
	}
	if err := call("GET", base+"/_sandbox/transactions/"+id, "", "", 200, &t); err != nil {
		return 0, false, err
	}
	if t.Status == "PENDING" || t.ProcessedAt == "" {
		return 0, false, nil
	}
	c, err1 := time.Parse(time.RFC3339Nano, t.CreatedAt)
	p, err2 := time.Parse(time.RFC3339Nano, t.ProcessedAt)
	if err1 != nil || err2 != nil {
		return 0, false, fmt.Errorf("transaction %s times %q %q", id, t.CreatedAt, t.ProcessedAt)
	}
	return p.Sub(c), true, nil
}

// runIsolationRows are the isolation and advance rows; A's cash_out target
// hangs for both.
func runIsolationRows(o options, m machine, tmp, base string, f *fixtureSet, pid int) ([]engineResult, error) {
	if len(f.writeTokens) < 2 {
		return nil, fmt.Errorf("the isolation rows need 2 write accounts (-accounts)")
	}
	h, err := startHanging()
	if err != nil {
		return nil, err
	}
	defer h.close()
	// Start on a settled, quiet server, as every route does: settlements left
	// by the row before (the backlog row ends with up to seconds of them) would
	// delay B's by their own lag, which the backlog row measures already.
	if waited, err := drainBacklog(base, time.Minute); err != nil {
		return nil, err
	} else if waited > 2*time.Second {
		fmt.Printf("  %-16s waited %s for the settlements left by the row before\n", "isolation", fmtDur(waited))
	}
	if waited := waitQuiet(o.quietWait, pid); waited > 2*time.Second {
		fmt.Printf("  %-16s waited %s for the machine and the server to go quiet\n", "isolation", fmtDur(waited))
	}
	if err := call("POST", base+"/_sandbox/webhook-targets", "", fmt.Sprintf(`{"accountId":%d,"eventType":"cash_out","url":%q}`, f.writeAccounts[0], h.url()), 201, nil); err != nil {
		return nil, fmt.Errorf("register the hanging target: %w", err)
	}
	tokA, tokB := f.writeTokens[0], f.writeTokens[1]

	// Isolation: A sends 200 cash-outs a second (each settlement's webhook
	// hangs at A's receiver), B one every 200 ms. A's rate leaves the CPU room:
	// the row measures what A's receiver costs B, not what a saturated core
	// costs everyone (the backlog row measures that).
	stop := make(chan struct{})
	bIDs := make(chan []string, 1)
	go func() {
		var ids []string
		n := 0
		_, _ = prober(stop, 200*time.Millisecond, func() error {
			n++
			id, err := cashOutOnce(base, tokB, fmt.Sprintf("ib-%d", n))
			if err == nil {
				ids = append(ids, id)
			}
			return err
		})
		bIDs <- ids
	}()
	aSent, aErrs := paced(200, 10*time.Second, func(i int) error {
		_, err := cashOutOnce(base, tokA, fmt.Sprintf("ia-%d", i))
		return err
	})
	close(stop)
	ids := <-bIDs
	var lags []time.Duration
	deadline := time.Now().Add(30 * time.Second) // wall time: let the last settle
	for _, id := range ids {
		for {
			lag, ok, err := settleLag(base, id)
			if err != nil {
				return nil, err
			}
			if ok {
				lags = append(lags, lag)
				break
			}
			if time.Now().After(deadline) {
				lags = append(lags, 24*time.Hour) // never settled: a failure
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	worst := slices.Max(append(lags, 0))
	out := []engineResult{
		{Name: "isolation-a", Label: "account A's cash-outs, 200 a second for 10 s, every webhook hanging at A's receiver (sent, errors)",
			Target: "no errors", Value: fmt.Sprintf("%d, %d", aSent, aErrs), Pass: aErrs == 0},
		{Name: "isolation-b", Label: fmt.Sprintf("account B's cash-outs meanwhile: settled after acceptance on the simulation clock (worst of %d; the settlement delay is 2 s)", len(lags)),
			Target: "≤ 2.5 s", Value: fmtDur(worst), Pass: len(lags) > 0 && worst <= 2500*time.Millisecond},
	}

	// Advance: ~300 req/s mixed (40% cash-outs) and a 5 s advance every second.
	adv, errs, sent := mixedWithAdvances(base, f, 15*time.Second)
	p99 := percentile(adv, 99)
	out = append(out, engineResult{Name: "advance", Label: fmt.Sprintf("POST /_sandbox/clock/advance {\"seconds\":5} every second under %d req/s of mixed traffic, 40%% cash-outs, A's target hanging (p99 of %d; worst %s; %d request errors)", sent, len(adv), fmtDur(slices.Max(append(adv, 0))), errs),
		Target: "p99 < 1 s", Value: fmtDur(p99), Pass: len(adv) > 0 && p99 < time.Second && errs == 0})
	return out, nil
}

// paced calls send perSecond times a second for d from a pool of workers
// (a call the workers cannot take in time is skipped, not queued) and
// returns how many were sent and how many failed.
func paced(perSecond int, d time.Duration, send func(i int) error) (sent, failed int) {
	var nSent, nFailed atomic.Int64
	work := make(chan int, perSecond)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				nSent.Add(1)
				if send(i) != nil {
					nFailed.Add(1)
				}
			}
		}()
	}
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	deadline := time.Now().Add(d) // wall time: pacing
	for i := 0; time.Now().Before(deadline); i++ {
		select {
		case work <- i:
		default:
		}
		<-tick.C
	}
	tick.Stop()
	close(work)
	wg.Wait()
	return int(nSent.Load()), int(nFailed.Load())
}

// mixedWithAdvances sends about 300 requests a second for d — 40% cash-outs
// over the write accounts, 30% balance reads, 30% listing pages — and a 5 s
// clock advance every second; it returns the advances' latencies, the
// requests that failed and the mixed requests' rate.
func mixedWithAdvances(base string, f *fixtureSet, d time.Duration) (adv []time.Duration, errs int, rate int) {
	const perSecond = 300
	stop := make(chan struct{})
	advDone := make(chan []time.Duration, 1)
	var advErrs atomic.Int64
	go func() {
		lat, _ := prober(stop, time.Second, func() error {
			err := call("POST", base+"/_sandbox/clock/advance", "", `{"seconds":5}`, 200, nil)
			if err != nil {
				advErrs.Add(1)
			}
			return err
		})
		advDone <- lat
	}()
	start := time.Now() // wall time: the rate
	sent, failed := paced(perSecond, d, func(i int) error {
		switch i % 10 {
		case 0, 1, 2, 3:
			_, err := cashOutOnce(base, f.writeTokens[i%len(f.writeTokens)], fmt.Sprintf("mx-%d", i))
			return err
		case 4, 5, 6:
			return call("GET", base+"/accounts/balances", f.token, "", 200, nil)
		default:
			return call("GET", base+"/api/transactions?size=50", f.listingToken, "", 200, nil)
		}
	})
	close(stop)
	adv = <-advDone
	return adv, failed + int(advErrs.Load()), int(float64(sent) / time.Since(start).Seconds())
}

// engineTable renders the engine rows.
func engineTable(rs []engineResult, ceil result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n| engine under load | value | ratio to ceiling | other CPU | target | result |\n|---|---:|---:|---:|---|---|\n")
	for _, r := range rs {
		if r.wrk != nil {
			ratio, ok := verdict(*r.wrk, ceil)
			pass := "—"
			if r.Target != "—" {
				pass = passFail(ok)
			}
			fmt.Fprintf(&b, "| %s | %.0f req/s, p90 %s, p99 %s, %d errors, %s server CPU/req | %.2f | %.0f%% | %s | %s |\n", r.Label, r.wrk.ReqPerSec, fmtDur(r.wrk.P90), fmtDur(r.wrk.P99), r.wrk.Errors, fmtDur(r.wrk.CPUPerReq), ratio, 100*r.wrk.OtherCPU, r.Target, pass)
			continue
		}
		pass := "—" // a measure with no target of its own
		if r.Target != "—" {
			pass = passFail(r.Pass)
		}
		fmt.Fprintf(&b, "| %s | %s | — | — | %s | %s |\n", r.Label, r.Value, r.Target, pass)
	}
	return b.String()
}
