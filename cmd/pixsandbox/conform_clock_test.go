package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// startSandbox starts a sandbox for the conform tests (virtual clock, in
// memory) and returns it.
func startSandbox(t *testing.T) *Main {
	t.Helper()
	m := NewMain(io.Discard, io.Discard)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// rawGet returns the body of a GET of the sandbox.
func rawGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// TestConformLeavesSandboxClock runs pixsandbox conform against a running
// sandbox with no flags: it runs in a workspace of its own, so no check is
// skipped for moving the clock, the default world's accounts and clock are
// exactly as before and no workspace is left. With --no-workspace the checks
// that would move its clock are skipped with that reason, the others run,
// and the sandbox's clock is where it was.
func TestConformLeavesSandboxClock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in a child process")
	}
	m := startSandbox(t)
	accounts := func() string { return rawGet(t, m.URL()+"/_sandbox/accounts") }
	clock := func() string { return rawGet(t, m.URL()+"/_sandbox/clock") }
	accts, clk := accounts(), clock()

	code, out, res := runConformChild(t, "--target", m.URL(), "--labels", "res:cob||res:cash-out||res:clock")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	if res.Ran == 0 || res.SkippedByReason[framework.SkipClockMoves] != 0 {
		t.Fatalf("ran %d, skipped for moving the clock %d; want 0 skipped (%v)", res.Ran, res.SkippedByReason[framework.SkipClockMoves], res.SkippedByReason)
	}
	if !strings.Contains(out, "Running every check in workspace") {
		t.Errorf("the run does not say it runs in a workspace of its own:\n%s", out)
	}
	if after := accounts(); after != accts {
		t.Errorf("the default world's accounts changed:\nbefore %s\nafter  %s", accts, after)
	}
	if after := clock(); after != clk {
		t.Errorf("the default world's clock moved: %s, was %s", after, clk)
	}
	if list := rawGet(t, m.URL()+"/_sandbox/workspaces"); !strings.Contains(list, `"total":0`) {
		t.Errorf("the run left a workspace: %s", list)
	}

	code, out, res = runConformChild(t, "--target", m.URL(), "--no-workspace", "--labels", "res:cob||res:cash-out")
	if after := clock(); after != clk {
		t.Fatalf("--no-workspace: the sandbox's clock moved from %s to %s", clk, after)
	}
	if code != 0 {
		t.Fatalf("--no-workspace: exit %d, want 0\n%s", code, out)
	}
	if res.Ran == 0 || res.SkippedByReason[framework.SkipClockMoves] == 0 {
		t.Fatalf("--no-workspace: ran %d, skipped for moving the clock %d; want both above 0 (%v)", res.Ran, res.SkippedByReason[framework.SkipClockMoves], res.SkippedByReason)
	}
	if !strings.Contains(out, "-allow-clock-moves") {
		t.Errorf("--no-workspace: the run does not say up front that the clock-moving checks are skipped:\n%s", out)
	}
}

// TestConformParallelWorkspaces runs eight conform processes at once against
// one sandbox, each in its own workspace, moving its own clock: all pass,
// and none is left behind.
func TestConformParallelWorkspaces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite in child processes")
	}
	t.Parallel() // child processes only: runs beside the other long tests
	m := startSandbox(t)
	var wg sync.WaitGroup
	type result struct {
		code     int
		out      string
		ran, skp int
	}
	results := make([]result, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, out, res := runConformChild(t, "--target", m.URL(), "--labels", "res:cob||res:clock||res:refund")
			results[i] = result{code, out, res.Ran, res.SkippedByReason[framework.SkipClockMoves]}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || r.ran == 0 || r.skp != 0 {
			t.Errorf("run %d: exit %d, ran %d, skipped for the clock %d\n%s", i, r.code, r.ran, r.skp, r.out)
		}
	}
	if list := rawGet(t, m.URL()+"/_sandbox/workspaces"); !strings.Contains(list, `"total":0`) {
		t.Errorf("the runs left workspaces: %s", list)
	}
}
