package main

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The workspaces rows (issue 27): with many workspaces on one server,
//   - ws-create: POST /_sandbox/workspaces one after another (three fixture
//     accounts each), its latency;
//   - ws-rss: the server's RSS growth per idle workspace over a second
//     thousand (the first fills the store's memtables and caches, which any
//     write load fills as much: their growth is reported beside it);
//   - balance@ws, cash-out@ws: those routes again with the workspaces present
//     (compare with their rows above, same run);
//   - ws-delete: DELETE of a workspace holding 10,000 transactions, and the
//     worst latency of another workspace's balance reads (one every 5 ms)
//     meanwhile.
const (
	wsDeleteTxs    = 10000
	wsProbeEvery   = 5 * time.Millisecond
	wsFillParallel = 32
)

func runWorkspaceRows(o options, m machine, tmp, base string, f *fixtureSet, pid int) ([]engineResult, error) {
	if waited, err := drainBacklog(base, time.Minute); err != nil {
		return nil, err
	} else if waited > 2*time.Second {
		fmt.Printf("  %-16s waited %s for the settlements left by the row before\n", "workspaces", fmtDur(waited))
	}
	waitQuiet(o.quietWait, pid)
	wsCount := o.workspaces
	create := func() ([]time.Duration, error) {
		lat := make([]time.Duration, 0, wsCount)
		for range wsCount {
			start := time.Now() // wall time: the measured latency
			if err := call("POST", base+"/_sandbox/workspaces", "", `{"ttl":"0"}`, 201, nil); err != nil {
				return nil, fmt.Errorf("create a workspace: %w", err)
			}
			lat = append(lat, time.Since(start))
		}
		time.Sleep(2 * time.Second)
		return lat, nil
	}
	rss0 := rss(pid)
	lat, err := create()
	if err != nil {
		return nil, err
	}
	rss1 := rss(pid)
	if _, err := create(); err != nil {
		return nil, err
	}
	rss2 := rss(pid)
	// Idle workspaces leave memory after the server's
	// --workspace-unload-after (pixload starts it with 5 s): the loads below
	// run once they have.
	unloadStart := time.Now()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if n, err := gauge(base, "pixsandbox_workspaces_loaded"); err != nil || n == 0 {
			break
		}
	}
	unloaded := time.Since(unloadStart)
	rss3 := rss(pid)
	p99 := percentile(lat, 99)
	perWS := (rss2 - rss1) / int64(max(wsCount, 1))
	var out []engineResult
	if wsCount > 0 {
		out = []engineResult{
			{Name: "ws-create", Label: fmt.Sprintf("POST /_sandbox/workspaces, the first %d one after another, 3 fixture accounts each (p50 %s, max %s)", wsCount, fmtDur(percentile(lat, 50)), fmtDur(slices.Max(lat))),
				Target: "p99 < 20 ms", Value: fmtDur(p99), Pass: p99 < 20*time.Millisecond},
			{Name: "ws-rss", Label: fmt.Sprintf("RSS growth per workspace over a second %d, loaded (%.1f MB; over the first %d: %.1f MB, the store's memtables and caches filling; all unloaded %s later: %+.1f MB)", wsCount, mb(rss2-rss1), wsCount, mb(rss1-rss0), fmtDur(unloaded), mb(rss3-rss2)),
				Target: "< 100 KB", Value: fmt.Sprintf("%.0f KB", float64(perWS)/1024), Pass: perWS < 100<<10},
		}
	}
	wsCount *= 2
	present := fmt.Sprintf("%d idle workspaces", wsCount)
	if o.workspacesControl {
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		for {
			if err := call("GET", base+"/_sandbox/workspaces?size=500", "", "", 200, &list); err != nil {
				return nil, err
			}
			if len(list.Data) == 0 {
				break
			}
			for _, w := range list.Data {
				if err := call("DELETE", base+"/_sandbox/workspaces/"+w.ID, "", "", 200, nil); err != nil {
					return nil, err
				}
			}
		}
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
			if n, err := gauge(base, "pixsandbox_workspace_drops_pending"); err != nil || n == 0 {
				break
			}
		}
		present = fmt.Sprintf("%d workspaces created and deleted (control)", wsCount)
	}

	// The existing routes with the workspaces present.
	w := f.writeTokens
	auth := map[string]string{"Authorization": "Bearer " + f.token}
	for _, rt := range []route{
		{name: "balance@ws", label: "GET /accounts/balances, " + present, target: "≥ 50% of ceiling, p99 < 10 ms",
			script: staticScript("GET", "/accounts/balances", auth, "")},
		{name: "cash-out@ws", label: "POST /api/pix/cash-out, " + present, target: "≥ 0.08 of the ceiling, p99 < 25 ms",
			note: fmt.Sprintf("durable; %d accounts", len(w)), script: rotatingScript("POST", "/api/pix/cash-out", cashOutBody, "cw", w)},
	} {
		r, err := runWrk(o, m, tmp, base, rt, pid)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.name, err)
		}
		out = append(out, engineResult{Name: rt.name, Label: rt.label, Target: rt.target, wrk: &r, Pass: r.Errors == 0})
	}

	del, err := workspaceDeleteRow(base, pid, o)
	if err != nil {
		return nil, err
	}
	return append(out, del...), nil
}

// workspaceDeleteRow fills a workspace with wsDeleteTxs received PIX, then
// deletes it while another workspace's balance is read every wsProbeEvery.
func workspaceDeleteRow(base string, pid int, o options) ([]engineResult, error) {
	var big struct {
		ID       string `json:"id"`
		Accounts []struct {
			PixKeys []struct {
				Key string `json:"key"`
			} `json:"pixKeys"`
		} `json:"accounts"`
	}
	if err := call("POST", base+"/_sandbox/workspaces", "", `{"ttl":"0"}`, 201, &big); err != nil {
		return nil, err
	}
	key := big.Accounts[0].PixKeys[0].Key
	var wg sync.WaitGroup
	var fillErr error
	var mu sync.Mutex
	next := make(chan struct{})
	for range wsFillParallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				if err := call("POST", base+"/_sandbox/workspaces/"+big.ID+"/pix-in", "", `{"key":"`+key+`","amount":1}`, 201, nil); err != nil {
					mu.Lock()
					fillErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for range wsDeleteTxs {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	if fillErr != nil {
		return nil, fmt.Errorf("fill the workspace to delete: %w", fillErr)
	}

	// The other workspace and its account's token.
	var other struct {
		ID string `json:"id"`
	}
	if err := call("POST", base+"/_sandbox/workspaces", "", `{"ttl":"0"}`, 201, &other); err != nil {
		return nil, err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := call("POST", base+"/_sandbox/workspaces/"+other.ID+"/accounts/1/token", "", "", 201, &tok); err != nil {
		return nil, err
	}
	probe := func() error { return call("GET", base+"/api/balance", tok.AccessToken, "", 200, nil) }
	waitQuiet(o.quietWait, pid)
	quiet, _ := probeFor(time.Second, probe)

	stop := make(chan struct{})
	lats := make(chan []time.Duration, 1)
	go func() {
		l, _ := prober(stop, wsProbeEvery, probe)
		lats <- l
	}()
	start := time.Now() // wall time: the measured deletion
	err := call("DELETE", base+"/_sandbox/workspaces/"+big.ID, "", "", 200, nil)
	took := time.Since(start)
	if err != nil {
		close(stop)
		return nil, fmt.Errorf("delete the workspace: %w", err)
	}
	// The keys go in the background: wait until the server says they are gone.
	var dropped time.Duration
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		n, err := gauge(base, "pixsandbox_workspace_drops_pending")
		if err != nil {
			close(stop)
			return nil, err
		}
		if n == 0 || time.Now().After(deadline) {
			dropped = time.Since(start)
			break
		}
	}
	close(stop)
	during := <-lats
	worst := slices.Max(append(during, 0))
	return []engineResult{
		{Name: "ws-delete", Label: fmt.Sprintf("DELETE /_sandbox/workspaces/{id} of a workspace with %d transactions: the answer (gone for every request from then on; its keys dropped in the background in %s)", wsDeleteTxs, fmtDur(dropped)),
			Target: "< 1 s", Value: fmtDur(took), Pass: took < time.Second},
		{Name: "ws-delete-stall", Label: fmt.Sprintf("another workspace's GET /api/balance every %s until the keys were gone: the worst of %d (p99 %s; p99 in the second before: %s)",
			wsProbeEvery, len(during), fmtDur(percentile(during, 99)), fmtDur(percentile(quiet, 99))),
			Target: "≤ 50 ms", Value: fmtDur(worst), Pass: len(during) > 0 && worst <= 50*time.Millisecond},
	}, nil
}

// gauge reads one gauge of base's /metrics.
func gauge(base, name string) (float64, error) {
	resp, err := httpClient.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("/metrics: %w", err)
	}
	f := families[name]
	if f == nil || len(f.GetMetric()) != 1 {
		return 0, fmt.Errorf("/metrics has no %s", name)
	}
	return f.GetMetric()[0].GetGauge().GetValue(), nil
}

// probeFor sends probe every wsProbeEvery for d and returns the latencies.
func probeFor(d time.Duration, probe func() error) ([]time.Duration, int) {
	stop := make(chan struct{})
	time.AfterFunc(d, func() { close(stop) })
	return prober(stop, wsProbeEvery, probe)
}
