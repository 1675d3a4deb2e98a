package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// heldInTimeout bounds each attempt of the held-in test: short, so the test
// is quick, and long enough that receivers holding every attempt this long
// fill the old design's 64 workers for several rounds.
const heldInTimeout = time.Second

// failingReceivers serves the ways a receiver holds or fails an attempt:
// /hang answers never, /trickle sends its body a byte every 50 ms, /late
// answers after the attempt timeout, /error answers 500 at once. Each
// handler returns when the attempt gives up (or when done is closed).
func failingReceivers(t *testing.T) (urls []string) {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind := r.URL.Query().Get("kind")
		switch kind {
		case "error":
			w.WriteHeader(http.StatusInternalServerError)
			return
		case "trickle":
			w.WriteHeader(http.StatusOK)
			for {
				if _, err := w.Write([]byte("{")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-time.After(50 * time.Millisecond): // the receiver's pace
				case <-r.Context().Done():
					return
				case <-done:
					return
				}
			}
		case "late":
			select {
			case <-time.After(heldInTimeout + 500*time.Millisecond): // the receiver's delay
				w.WriteHeader(http.StatusOK)
			case <-r.Context().Done():
			case <-done:
			}
		default: // hang
			select {
			case <-r.Context().Done():
			case <-done:
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	for _, kind := range []string{"hang", "trickle", "late", "error"} {
		urls = append(urls, srv.URL+"/?kind="+kind)
	}
	return urls
}

// heldIn is the held-in scenario: 20 accounts whose receivers hang, trickle,
// answer late or fail, each with 5 target URLs and 10 deliveries queued on
// each, 16 of them in the healthy account's workspace and 4 in another;
// then 20 deliveries of a healthy account. It returns how long after their
// submission each healthy delivery arrived (waiting at most 10 s).
// submit hands an attempt of account in workspace ws (0 or 1) to the
// delivery workers under test.
func heldIn(t *testing.T, submit func(ws int, account int64, url string, attempt func(context.Context))) []time.Duration {
	t.Helper()
	dp := &Dispatcher{Timeout: heldInTimeout}
	failing := failingReceivers(t)
	arrived := make(chan time.Time, 100)
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- time.Now() // wall time: the delivery's latency
	}))
	t.Cleanup(healthy.Close)

	send := func(account int64, url string, n int) func(context.Context) {
		d := delivery(url)
		d.AccountID = account
		return func(ctx context.Context) {
			a := dp.Send(ctx, d, "", []byte(`{}`), int64(n), 1, t0)
			if ctx.Err() == nil && url == healthy.URL && a.StatusCode != http.StatusOK {
				t.Errorf("healthy delivery %d: %d %s", n, a.StatusCode, a.Error)
			}
		}
	}
	for acct := int64(1); acct <= 20; acct++ {
		ws := 0
		if acct > 16 {
			ws = 1
		}
		base := failing[(acct-1)%4]
		for k := range 5 {
			url := fmt.Sprintf("%s&account=%d&target=%d", base, acct, k)
			for i := range 10 {
				submit(ws, acct, url, send(acct, url, i))
			}
		}
	}
	start := time.Now() // wall time: the deliveries' latency
	for i := range 20 {
		submit(0, 21, healthy.URL, send(21, healthy.URL, i))
	}
	var latency []time.Duration
	timeout := time.After(10 * time.Second)
	for len(latency) < 20 {
		select {
		case at := <-arrived:
			latency = append(latency, at.Sub(start))
		case <-timeout:
			return latency
		}
	}
	return latency
}

// Held in: with the default settings, 20 accounts whose receivers hang,
// trickle, answer after the timeout or fail, with 5 URLs and 50 deliveries
// each, hold none of a healthy account's slots: its 20 deliveries all
// arrive within 2 s (with the old design, 64 workers per workspace taken in
// submission order, the first arrived after more than 3 s).
func TestScheduler_HealthyAccountBesideFailingReceivers(t *testing.T) {
	s := &Scheduler{} // the defaults: 64 shared slots, 4 per target, 8 per account
	spaces := []*Space{s.Space(), s.Space()}
	latency := heldIn(t, func(ws int, account int64, url string, attempt func(context.Context)) {
		spaces[ws].Submit(account, url, attempt)
	})
	t.Cleanup(func() { // before the receivers close
		for _, sp := range spaces {
			sp.Stop()
		}
	})
	if len(latency) != 20 {
		t.Fatalf("%d of the healthy account's 20 deliveries arrived in 10 s", len(latency))
	}
	if worst := slices.Max(latency); worst > 2*time.Second {
		t.Fatalf("the healthy account's deliveries arrived after up to %v, want within 2 s", worst)
	}
	t.Logf("the healthy account's 20 deliveries arrived within %v", slices.Max(latency))
}
