package ratelimit

import (
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// The limit applies per key within a minute of simulation time; the next
// minute starts afresh, and a refusal says how long to wait.
func TestLimiterWindows(t *testing.T) {
	var l Limiter
	start := time.Date(2026, 1, 1, 12, 0, 10, 0, time.UTC)
	for i := 0; i < 2; i++ {
		if ok, _ := l.Allow("a", 2, start); !ok {
			t.Fatalf("request %d refused", i+1)
		}
	}
	ok, wait := l.Allow("a", 2, start)
	if ok || wait != 50*time.Second {
		t.Fatalf("third request: ok %v, wait %s", ok, wait)
	}
	if ok, _ := l.Allow("b", 2, start); !ok {
		t.Fatal("another key shares the window")
	}
	if ok, _ := l.Allow("a", 2, start.Add(50*time.Second)); !ok {
		t.Fatal("the next minute is still limited")
	}
	err := Refusal("GET /x", 2, 1500*time.Millisecond)
	if !pix.Match(&pix.Error{Kind: pix.KindRateLimited}, err) || err.(*pix.Error).Details["retryAfterSeconds"] != 2 {
		t.Fatalf("refusal = %#v", err)
	}
}
