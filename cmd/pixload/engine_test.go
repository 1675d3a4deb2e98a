package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// drainBacklog returns once GET /_sandbox/jobs reports nothing due, and
// gives up with an error when the jobs outlast its limit.
func TestDrainBacklog(t *testing.T) {
	var due atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_sandbox/jobs" {
			http.NotFound(w, r)
			return
		}
		n := due.Load()
		if n > 0 {
			due.Add(-1)
		}
		fmt.Fprintf(w, `{"backlog":{"due":%d,"lagSeconds":%d}}`, n, n)
	}))
	defer srv.Close()

	due.Store(3)
	if _, err := drainBacklog(srv.URL, 10*time.Second); err != nil {
		t.Fatalf("a draining backlog: %v", err)
	}
	if n := due.Load(); n != 0 {
		t.Fatalf("returned with %d jobs still due", n)
	}

	due.Store(5)
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"backlog":{"due":%d,"lagSeconds":9}}`, due.Load())
	}))
	defer stuck.Close()
	if _, err := drainBacklog(stuck.URL, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "5 jobs still due") {
		t.Fatalf("a backlog that never drains: err %v", err)
	}
}
