package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fairness between workspaces: workspace A's 18 hanging webhook receivers
// hold A's delivery workers only; workspace B's deliveries arrive as fast as
// with A idle (within 100 ms of that).
func TestWorkspaces_HangingReceiversHoldTheirOwnWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("holds receivers for seconds")
	}
	m := MustRunMain(t, func(c *Config) { c.WebhookTimeout = 5 * time.Second })
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(release)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived[r.URL.Path] = time.Now()
		mu.Unlock()
	}))
	defer fast.Close()

	a := createWorkspace(t, m, `{"accounts":6,"seed":1}`, nil)
	b := createWorkspace(t, m, `{"accounts":1,"seed":2}`, nil)
	target := func(w testWorkspace, acct any, url string) {
		t.Helper()
		st, out := call(t, "POST", w.url(m, "/_sandbox/webhook-targets"), fmt.Sprintf(`{"accountId":%v,"url":%q,"eventType":"cash_out"}`, acct, url), nil)
		if st != http.StatusCreated {
			t.Fatalf("target: %d %v", st, out)
		}
	}
	cashOuts := func(w testWorkspace, i, n int, prefix string) {
		t.Helper()
		tok := w.token(t, m, i)
		for j := range n {
			body := fmt.Sprintf(`{"value":1.00,"externalId":"%s-%d-%d","details":{"key":"52998224725","keyType":"DOCUMENT","name":"Maria","document":"52998224725"}}`, prefix, i, j)
			if st, out := call(t, "POST", m.URL()+"/api/pix/cash-out", body, bearerH(tok)); st != http.StatusCreated {
				t.Fatalf("cash-out: %d %v", st, out)
			}
		}
	}
	target(b, b.Accounts[0]["id"], fast.URL+"/b")
	// deliveryLatency settles n of B's cash-outs and returns, for each, the
	// time from the clock advance to its webhook's arrival.
	deliveryLatency := func(round string, n int) []time.Duration {
		t.Helper()
		cashOuts(b, 0, n, round)
		mu.Lock()
		clear(arrived)
		mu.Unlock()
		start := time.Now()
		if st, _ := call(t, "POST", b.url(m, "/_sandbox/clock/advance"), `{"seconds":10}`, nil); st != http.StatusOK {
			t.Fatal(st)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			got := len(arrived)
			mu.Unlock()
			if got >= 1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		var out []time.Duration
		for _, at := range arrived {
			out = append(out, at.Sub(start))
		}
		if len(out) == 0 {
			t.Fatalf("%s: no delivery of B arrived in 10 s", round)
		}
		return out
	}
	idle := slices.Max(deliveryLatency("idle", 3))

	for i := range 6 {
		for k := range 3 {
			target(a, a.Accounts[i]["id"], fmt.Sprintf("%s/hang/%d/%d", hanging.URL, i, k))
		}
		cashOuts(a, i, 4, "a")
	}
	if st, _ := call(t, "POST", a.url(m, "/_sandbox/clock/advance"), `{"seconds":10}`, nil); st != http.StatusOK {
		t.Fatal(st)
	}
	time.Sleep(200 * time.Millisecond) // A's attempts have taken its workers
	busy := slices.Max(deliveryLatency("busy", 3))
	if busy > idle+100*time.Millisecond {
		t.Errorf("B's delivery with A's receivers hanging took %v, against %v with A idle", busy, idle)
	}
	t.Logf("B's delivery: %v with A idle, %v with A's 18 receivers hanging", idle, busy)
	if !strings.HasPrefix(hanging.URL, "http://127.0.0.1") {
		t.Fatal("the receivers are not on loopback")
	}
}
