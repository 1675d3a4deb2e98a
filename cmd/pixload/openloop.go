package main

// The open-loop load: requests at a fixed arrival rate, each timed from the
// moment it was due (start + i/rate), not from the moment it was sent, as
// wrk2 and vegeta do. A closed loop sends the next request only when an
// answer comes back, so a stall delays the requests behind it and they never
// see it (coordinated omission); here a stall of the server shows in the
// latency of every request due while it lasts.

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// lateAfter is how long after its due time a request may start being sent
// before it counts as a late send: every sender busy (the pool at its bound)
// or the load's own process short of CPU. Its latency still counts from the
// due time. Sleeping until the next due time overshoots by 0.1 to 0.2 ms on
// an idle machine, and the schedule catches up from there; a millisecond's
// threshold would count that timer jitter.
const lateAfter = 5 * time.Millisecond

// slowAfter are the latencies counted apart: over 50, 100 and 500 ms.
var slowAfter = [3]time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond}

// openLoad is one fixed-rate load.
type openLoad struct {
	rate       float64       // requests per second
	duration   time.Duration // requests are due from the start for this long
	maxSenders int           // the senders' pool grows up to this many
	// warm senders wait for work before the first request is due (each on
	// a connection loadHTTP opened beforehand), so that the schedule's first
	// second does not time the load's own dials and goroutines.
	warm int
}

// warmSenders is how many senders a load at rate starts with: the requests
// in flight at once when each takes 5 ms, at least 2.
func warmSenders(rate float64) int { return max(2, int(rate*0.005)) }

// slowSecond is one second of the schedule: the requests due in it that took
// longer than each of slowAfter, and the slowest.
type slowSecond struct {
	over [3]int64
	max  time.Duration
}

// openStats is what a load measured of one part of its requests.
type openStats struct {
	hist         *latencyHist
	over         [3]int64
	errors, late int64
	firstErr     string
	seconds      []slowSecond // by second of the schedule
}

func newOpenStats(seconds int) *openStats {
	return &openStats{hist: newLatencyHist(), seconds: make([]slowSecond, seconds)}
}

// record counts one request due at offset into the schedule.
func (s *openStats) record(offset, lat time.Duration, late bool, err error) {
	s.hist.Record(lat)
	sec := &s.seconds[min(int(offset/time.Second), len(s.seconds)-1)]
	sec.max = max(sec.max, lat)
	for k, t := range slowAfter {
		if lat > t {
			s.over[k]++
			sec.over[k]++
		}
	}
	if late {
		s.late++
	}
	if err != nil {
		if s.errors == 0 {
			s.firstErr = err.Error()
		}
		s.errors++
	}
}

// merge adds o to s.
func (s *openStats) merge(o *openStats) {
	s.hist.Merge(o.hist)
	for k := range s.over {
		s.over[k] += o.over[k]
	}
	s.errors += o.errors
	s.late += o.late
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
	for i := range o.seconds { // s is as long as o, or longer
		for k := range slowAfter {
			s.seconds[i].over[k] += o.seconds[i].over[k]
		}
		s.seconds[i].max = max(s.seconds[i].max, o.seconds[i].max)
	}
}

// openRun is what one load measured.
type openRun struct {
	stats   *openStats
	sent    int64
	senders int // the pool's size at the end: the most requests in flight at once
}

// run schedules request i at start + i/rate for every i due within the
// duration, hands each to an idle sender or to a new one while the pool is
// under its bound (else it waits for the first sender free, and is late), and
// returns once every answer is in; send performs request i.
func (l openLoad) run(start time.Time, send func(int64) error) *openRun {
	n := int64(l.rate * l.duration.Seconds())
	r := &openRun{stats: newOpenStats(int(l.duration/time.Second) + 1), sent: n}
	type job struct {
		i   int64
		due time.Time
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan job)
	sender := func(j job, ok bool) {
		defer wg.Done()
		if !ok { // a warm sender: it waits for its first request
			j, ok = <-work
		}
		for ; ok; j, ok = <-work {
			late := time.Since(j.due) > lateAfter
			err := send(j.i)
			lat := time.Since(j.due)
			mu.Lock()
			r.stats.record(j.due.Sub(start), lat, late, err)
			mu.Unlock()
		}
	}
	for range min(l.warm, max(l.maxSenders, 1)) {
		r.senders++
		wg.Add(1)
		go sender(job{}, false)
	}
	interval := float64(time.Second) / l.rate
	for i := range n {
		due := start.Add(time.Duration(float64(i) * interval))
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		select {
		case work <- job{i, due}:
			continue
		default:
		}
		if r.senders < max(l.maxSenders, 1) {
			r.senders++
			wg.Add(1)
			go sender(job{i, due}, true)
			continue
		}
		work <- job{i, due} // every sender busy: this one waits for the first free
	}
	close(work)
	wg.Wait()
	return r
}

// openMix is what loads run at once measured: each, and all together.
type openMix struct {
	start   time.Time // when the first requests were due
	total   *openStats
	parts   []*openRun
	senders int
}

// runMix runs loads[k] with sends[k], all at once from one start, each on
// its own schedule and pool of senders.
func runMix(loads []openLoad, sends []func(int64) error) *openMix {
	m := &openMix{start: time.Now().Add(2 * time.Millisecond), parts: make([]*openRun, len(loads))} // wall time: the schedule
	var wg sync.WaitGroup
	for k, l := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.parts[k] = l.run(m.start, sends[k])
		}()
	}
	wg.Wait()
	longest := slices.MaxFunc(loads, func(a, b openLoad) int { return cmp.Compare(a.duration, b.duration) })
	m.total = newOpenStats(int(longest.duration/time.Second) + 1)
	for _, p := range m.parts {
		m.total.merge(p.stats)
		m.senders += p.senders
	}
	return m
}

// openRoute is how a route's requests are made in an open-loop load: request
// i gets its own ids (txid, externalId) and the i-th token in turn, as the
// route's wrk script does.
type openRoute struct {
	name, label, method string
	pathOf              func(i int64) string
	bodyOf, tokenOf     func(i int64) string // nil: none
	header              map[string]string
}

// request is request i of the route against base.
func (rt openRoute) request(base string, i int64) *http.Request {
	body := ""
	if rt.bodyOf != nil {
		body = rt.bodyOf(i)
	}
	req, _ := http.NewRequest(rt.method, base+rt.pathOf(i), strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if rt.tokenOf != nil {
		req.Header.Set("Authorization", "Bearer "+rt.tokenOf(i))
	}
	for k, v := range rt.header {
		req.Header.Set(k, v)
	}
	return req
}

// openRouteNames are the routes an open-loop row can load.
var openRouteNames = []string{"token", "balance", "api-balance", "cash-out", "cash-out-1acct", "put-cob", "listing"}

// openRoutes are the routes of openRouteNames with f's tokens; tag (letters
// and digits, 5 characters) makes the ids of one load unlike any other's:
// txids of 29 characters, externalIds tag-0-i.
func openRoutes(f *fixtureSet, tag string) map[string]openRoute {
	turn := func(toks []string) func(int64) string {
		return func(i int64) string { return toks[int(i%int64(len(toks)))] }
	}
	cashOut := func(i int64) string { return fmt.Sprintf(cashOutBody, tag, 0, i) }
	out := map[string]openRoute{
		"token": {method: "POST", pathOf: fixed("/api/auth/token"), bodyOf: fixed(f.tokenBody),
			header: map[string]string{"X-SSL-Client-Cert": f.certHeader}},
		"balance":        {method: "GET", pathOf: fixed("/accounts/balances"), tokenOf: fixed(f.token)},
		"api-balance":    {method: "GET", pathOf: fixed("/api/balance"), tokenOf: fixed(f.token)},
		"cash-out":       {method: "POST", pathOf: fixed("/api/pix/cash-out"), bodyOf: cashOut, tokenOf: turn(f.writeTokens)},
		"cash-out-1acct": {method: "POST", pathOf: fixed("/api/pix/cash-out"), bodyOf: cashOut, tokenOf: turn(f.writeTokens[:1])},
		"put-cob": {method: "PUT", pathOf: func(i int64) string { return fmt.Sprintf("/cob/%s%024d", tag, i) },
			bodyOf: fixed(cobBody), tokenOf: turn(f.writeTokens)},
		"listing": {method: "GET", pathOf: fixed("/api/transactions?size=50"), tokenOf: fixed(f.listingToken)},
	}
	for _, rt := range routes(f) {
		if o, ok := out[rt.name]; ok {
			o.name, o.label = rt.name, rt.label
			out[rt.name] = o
		}
	}
	return out
}

// fixed is the same string for every request.
func fixed(s string) func(int64) string { return func(int64) string { return s } }

// ceilingRoute is the ceiling's request.
var ceilingRoute = openRoute{name: "ceiling", label: "GET / (fixed JSON, net/http)", method: "GET", pathOf: fixed("/")}

// loadHTTP runs loads[k] of rts[k] against base, all at once, over
// keep-alive connections: one per sender at most. A status of 400 or more
// counts as an error, as in wrk.
func loadHTTP(loads []openLoad, base string, rts []openRoute) *openMix {
	senders := 0
	for _, l := range loads {
		senders += max(l.maxSenders, 1)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: senders, DisableCompression: true, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	// The warm senders' connections, opened before the schedule starts:
	// one GET /healthz each, at once (any answer keeps its connection),
	// each answer's body left unread until every one has come, so that no
	// two share a connection.
	loads = slices.Clone(loads)
	warm := 0
	for k, l := range loads {
		loads[k].warm = min(max(l.maxSenders, 1), warmSenders(l.rate))
		warm += loads[k].warm
	}
	var warming, answered sync.WaitGroup
	warming.Add(warm)
	answered.Add(warm)
	for range warm {
		go func() {
			defer warming.Done()
			resp, err := client.Get(base + "/healthz")
			answered.Done()
			answered.Wait()
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	warming.Wait()
	sends := make([]func(int64) error, len(rts))
	for k, rt := range rts {
		sends[k] = func(i int64) error {
			resp, err := client.Do(rt.request(base, i))
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body) // read to the end: the connection is kept for the next
			resp.Body.Close()
			if resp.StatusCode >= 400 {
				return fmt.Errorf("%s: %d %s", rt.name, resp.StatusCode, strings.TrimSpace(string(b[:min(len(b), 200)])))
			}
			return nil
		}
	}
	return runMix(loads, sends)
}
