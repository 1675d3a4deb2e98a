package main

import (
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// receiver is the webhook endpoint registered for every account and event
// type. It records each webhook-id it gets. The first request of about one
// event in ten is answered 503, so the server's retries (on the simulation
// clock) are part of what a run exercises.
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	seen     map[string]int // webhook-id → requests answered 2xx
	refused  map[string]bool
	requests int
}

func newReceiver() *receiver {
	r := &receiver{seen: map[string]int{}, refused: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	return r
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	if id == "" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !r.refused[id] && r.seen[id] == 0 && refuseFirst(id) {
		r.refused[id] = true
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	r.seen[id]++
	w.WriteHeader(http.StatusNoContent)
}

// refuseFirst picks about one event id in ten, the same ones in every run.
func refuseFirst(id string) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return h.Sum32()%10 == 0
}

// received returns how many 2xx answers the receiver gave for the event id.
func (r *receiver) received(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[id]
}

func (r *receiver) stats() (events, requests, redeliveries int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.seen {
		events++
		redeliveries += n - 1
	}
	return events, r.requests, redeliveries
}

func (r *receiver) close() { r.srv.Close() }
