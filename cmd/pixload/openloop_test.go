package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stallingServer answers at once, except that its stallAt-th request starts a
// stall of length d during which every request waits for the stall's end, as
// all of a server's requests wait for a store that stopped writing.
func stallingServer(t *testing.T, stallAt int64, d time.Duration) (*httptest.Server, *atomic.Int64) {
	var n, conns atomic.Int64
	var mu sync.Mutex
	var until time.Time
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		mu.Lock()
		if k == stallAt {
			until = time.Now().Add(d)
		}
		wait := time.Until(until)
		mu.Unlock()
		if wait > 0 {
			<-time.After(wait) // the stall itself
		}
		fmt.Fprint(w, `{}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// A stall of the server shows in the latency of every request due while it
// lasted, not in one: at 1,000 requests a second a 150 ms stall puts some
// hundred requests over 50 ms. A closed loop on one connection would have
// seen it in one request.
func TestOpenLoopStallShowsInManyRequests(t *testing.T) {
	srv, _ := stallingServer(t, 100, 150*time.Millisecond)
	l := openLoad{rate: 1000, duration: 400 * time.Millisecond, maxSenders: 512}
	mix := loadHTTP([]openLoad{l}, srv.URL, []openRoute{{name: "x", method: "GET", pathOf: fixed("/")}})
	run, s := mix.parts[0], mix.total
	if run.sent != 400 || s.hist.total != 400 {
		t.Fatalf("sent %d, recorded %d, want 400", run.sent, s.hist.total)
	}
	if s.over[0] < 60 {
		t.Errorf("%d requests over 50 ms, want the ~100 due in the stall's first 100 ms", s.over[0])
	}
	if s.over[1] < 20 {
		t.Errorf("%d requests over 100 ms, want the ~50 due in the stall's first 50 ms", s.over[1])
	}
	if s.hist.max < 140*time.Millisecond || s.hist.Percentile(99) < 100*time.Millisecond {
		t.Errorf("max %s, p99 %s: the stall is missing", s.hist.max, s.hist.Percentile(99))
	}
	if s.errors != 0 {
		t.Errorf("%d errors", s.errors)
	}
	if run.senders < 50 {
		t.Errorf("%d senders: the pool did not grow through the stall", run.senders)
	}
}

// Requests go over keep-alive connections: about one per sender (more where
// a dial raced a connection coming free, up to one per request in flight at
// once), not one per request.
func TestOpenLoopKeepAlive(t *testing.T) {
	srv, conns := stallingServer(t, -1, 0)
	mix := loadHTTP([]openLoad{{rate: 1000, duration: 300 * time.Millisecond, maxSenders: 8}}, srv.URL, []openRoute{{name: "x", method: "GET", pathOf: fixed("/")}})
	if n := mix.total.hist.total; n != 300 || mix.total.errors != 0 {
		t.Fatalf("%d recorded, %d errors (%s)", n, mix.total.errors, mix.total.firstErr)
	}
	if c := conns.Load(); c > 2*int64(mix.senders) {
		t.Errorf("%d connections for %d senders and 300 requests: connections are not kept alive", c, mix.senders)
	}
}

// With the pool at its bound, the requests due while every sender is busy
// are sent late and counted so, and their latency still runs from when they
// were due: a bounded pool does not hide the stall either.
func TestOpenLoopLateSends(t *testing.T) {
	l := openLoad{rate: 1000, duration: 300 * time.Millisecond, maxSenders: 1}
	run := l.run(time.Now(), func(i int64) error {
		if i == 10 {
			<-time.After(100 * time.Millisecond) // the one sender stalls
		}
		return nil
	})
	s := run.stats
	if run.senders != 1 || s.hist.total != 300 {
		t.Fatalf("%d senders, %d recorded", run.senders, s.hist.total)
	}
	if s.late < 80 {
		t.Errorf("%d late sends, want the ~100 due during the stall", s.late)
	}
	if s.over[0] < 40 {
		t.Errorf("%d requests over 50 ms, want the ~50 due in the stall's first 50 ms", s.over[0])
	}
}

// The pool grows while every sender is busy, so a slow answer never delays
// the next request due. (Late sends are not counted on here: on a machine
// whose CPU other processes hold, the schedule itself runs late, and says so.)
func TestOpenLoopPoolGrows(t *testing.T) {
	release := make(chan struct{})
	l := openLoad{rate: 1000, duration: 100 * time.Millisecond, maxSenders: 64}
	run := l.run(time.Now(), func(i int64) error {
		switch {
		case i < 20:
			<-release // held until request 50 is sent
		case i == 50:
			close(release)
		case i == 99:
			return errors.New("refused")
		}
		return nil
	})
	if run.senders < 21 || run.senders > 64 {
		t.Errorf("%d senders: 20 were held, the pool should have grown past them, up to its bound", run.senders)
	}
	if run.sent != 100 || run.stats.hist.total != 100 || run.stats.errors != 1 || run.stats.firstErr != "refused" {
		t.Errorf("sent %d, recorded %d, errors %d (%q)", run.sent, run.stats.hist.total, run.stats.errors, run.stats.firstErr)
	}
}

// Loads run at once each keep their own rate, from one start; the total
// adds them up, second by second too.
func TestRunMix(t *testing.T) {
	var a, b atomic.Int64
	mix := runMix([]openLoad{{rate: 1000, duration: 200 * time.Millisecond, maxSenders: 8}, {rate: 250, duration: 1200 * time.Millisecond, maxSenders: 8}},
		[]func(int64) error{
			func(int64) error { a.Add(1); return nil },
			func(i int64) error {
				b.Add(1)
				if i == 0 {
					return errors.New("first")
				}
				return nil
			},
		})
	if a.Load() != 200 || b.Load() != 300 || mix.parts[0].stats.hist.total != 200 || mix.parts[1].stats.hist.total != 300 {
		t.Fatalf("sent %d and %d; recorded %d and %d", a.Load(), b.Load(), mix.parts[0].stats.hist.total, mix.parts[1].stats.hist.total)
	}
	if mix.total.hist.total != 500 || mix.total.errors != 1 || len(mix.total.seconds) != 2 || mix.senders != mix.parts[0].senders+mix.parts[1].senders {
		t.Errorf("total: %d recorded, %d errors, %d seconds, %d senders", mix.total.hist.total, mix.total.errors, len(mix.total.seconds), mix.senders)
	}
}

// Slow requests count in the second of the schedule they were due in.
func TestOpenStatsTimeline(t *testing.T) {
	s := newOpenStats(3)
	ms := time.Millisecond
	s.record(500*ms, 60*ms, false, nil)
	s.record(1200*ms, 120*ms, true, nil)
	s.record(1300*ms, 600*ms, false, errors.New("boom"))
	s.record(1400*ms, 10*ms, false, nil)
	s.record(9*time.Second, 70*ms, false, nil) // past the end: the last second
	if s.over != [3]int64{4, 2, 1} || s.late != 1 || s.errors != 1 || s.firstErr != "boom" {
		t.Fatalf("over %v late %d errors %d %q", s.over, s.late, s.errors, s.firstErr)
	}
	r := summarize("x", "X", 5, 3*time.Second, time.Time{}, 1, s)
	want := []slowAt{{0, [3]int64{1, 0, 0}, 60 * ms}, {1, [3]int64{2, 2, 1}, 600 * ms}, {2, [3]int64{1, 0, 0}, 70 * ms}}
	if fmt.Sprint(r.Slow) != fmt.Sprint(want) {
		t.Errorf("slow seconds %v, want %v", r.Slow, want)
	}
	if got := slowList(r.Slow, 2); got != "+0 s: 1/0/0 (max 60.00 ms); +1 s: 2/2/1 (max 600.00 ms); and 1 more seconds" {
		t.Errorf("slowList = %q", got)
	}
}

// Each request of a route gets its own ids and the next token, as the
// route's wrk script gives them.
func TestOpenRoutes(t *testing.T) {
	f := &fixtureSet{certHeader: "c", tokenBody: `{"clientId":"a"}`, token: "t0", writeTokens: []string{"w1", "w2"}, listingToken: "w1"}
	rs := openRoutes(f, "ol007")
	for _, name := range openRouteNames {
		if rs[name].name != name || rs[name].label == "" {
			t.Errorf("route %q: name %q label %q", name, rs[name].name, rs[name].label)
		}
	}
	txid := regexp.MustCompile(`^/cob/[a-zA-Z0-9]{26,35}$`)
	a, b := rs["put-cob"].request("http://h", 1), rs["put-cob"].request("http://h", 2)
	if !txid.MatchString(a.URL.Path) || a.URL.Path == b.URL.Path || a.Method != "PUT" {
		t.Errorf("put-cob paths %q %q", a.URL.Path, b.URL.Path)
	}
	if a.Header.Get("Authorization") == b.Header.Get("Authorization") || a.Header.Get("Content-Type") != "application/json" {
		t.Errorf("put-cob headers %v %v: tokens in turn", a.Header, b.Header)
	}
	co1, co2 := rs["cash-out"].bodyOf(1), rs["cash-out"].bodyOf(2)
	if co1 == co2 || !strings.Contains(co1, `"externalId":"ol007-0-1"`) {
		t.Errorf("cash-out bodies %s %s", co1, co2)
	}
	if tok := rs["cash-out-1acct"].tokenOf(1); tok != "w1" || rs["cash-out-1acct"].tokenOf(2) != "w1" {
		t.Errorf("one account's tokens: %s", tok)
	}
	if r := rs["token"].request("http://h", 0); r.Header.Get("X-SSL-Client-Cert") != "c" || r.Header.Get("Authorization") != "" {
		t.Errorf("token request headers %v", r.Header)
	}
	if r := rs["balance"].request("http://h", 5); r.Header.Get("Authorization") != "Bearer t0" || r.Header.Get("Content-Type") != "" {
		t.Errorf("balance request headers %v", r.Header)
	}
}

// The warm senders' connections are open before the first request is due,
// so that the schedule's first second times the server and not the load's
// own dials.
func TestOpenLoopWarmConnections(t *testing.T) {
	var conns, before atomic.Int64
	var first atomic.Bool
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && first.CompareAndSwap(false, true) {
			before.Store(conns.Load())
		}
		fmt.Fprint(w, `{}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	const rate = 10000
	mix := loadHTTP([]openLoad{{rate: rate, duration: 20 * time.Millisecond, maxSenders: 128}}, srv.URL, []openRoute{{name: "x", method: "GET", pathOf: fixed("/")}})
	if n := mix.total.hist.total; n != 200 || mix.total.errors != 0 {
		t.Fatalf("%d recorded, %d errors (%s)", n, mix.total.errors, mix.total.firstErr)
	}
	want := int64(warmSenders(rate))
	if got := before.Load(); got < want {
		t.Errorf("%d connections open when the first request came, want the %d warm senders'", got, want)
	}
	if mix.senders < int(want) {
		t.Errorf("%d senders, want at least the %d warm ones", mix.senders, want)
	}
}
