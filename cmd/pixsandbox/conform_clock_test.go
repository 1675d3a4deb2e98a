package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// TestConformLeavesSandboxClock runs pixsandbox conform against a running
// sandbox without --allow-clock-moves: the checks that would move its clock
// are skipped with that reason, the others run, and the sandbox's clock is
// where it was.
func TestConformLeavesSandboxClock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	m := NewMain(io.Discard, io.Discard)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	clock := func() string {
		t.Helper()
		resp, err := http.Get(m.URL() + "/_sandbox/clock")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c struct{ Now string }
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.Now == "" {
			t.Fatalf("GET /_sandbox/clock: %v %+v", err, c)
		}
		return c.Now
	}
	before := clock()
	code, out, res := runConformChild(t, "--target", m.URL(), "--labels", "res:cob||res:cash-out")
	if after := clock(); after != before {
		t.Fatalf("the sandbox's clock moved from %s to %s", before, after)
	}
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	if res.Ran == 0 || res.SkippedByReason[framework.SkipClockMoves] == 0 {
		t.Fatalf("ran %d, skipped for moving the clock %d; want both above 0 (%v)", res.Ran, res.SkippedByReason[framework.SkipClockMoves], res.SkippedByReason)
	}
	if !strings.Contains(out, "--allow-clock-moves") && !strings.Contains(out, "-allow-clock-moves") {
		t.Errorf("the run does not say up front that the clock-moving checks are skipped:\n%s", out)
	}
}
