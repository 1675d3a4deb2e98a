package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSoak_KillsLoseNothing is the short crash test of make test: the real
// server, killed three times while operations run, must lose and duplicate
// nothing acknowledged, complete every settlement and webhook, and keep its
// invariants. make soak runs the same driver with more kills.
// PIXSOAK_SERVER_BIN runs it against a given pixsandbox binary instead of a fresh build.
func TestSoak_KillsLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts server processes")
	}
	cfg := Config{Kills: 3, Workers: 6, Seed: 7, Pause: 5 * time.Millisecond,
		MinUptime: 300 * time.Millisecond, MaxUptime: 700 * time.Millisecond,
		ServerBin: os.Getenv("PIXSOAK_SERVER_BIN"), Log: testWriter{t}}
	if cfg.ServerBin == "" {
		// The server is built before the run's deadline starts: with a cold
		// build cache on a loaded machine, building it (under -race) takes
		// minutes, which would use up the deadline meant for a hung server.
		// go test's -timeout bounds the build.
		var flags []string
		if raceEnabled {
			flags = []string{"-race"}
		}
		t0 := time.Now() // wall time: progress report
		bin, err := buildServer(t.Context(), t.TempDir(), flags...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("built %s %v in %v", serverPackage, flags, time.Since(t0).Round(time.Millisecond))
		cfg.ServerBin = bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // wall time: a hung server fails the test
	defer cancel()
	rep, err := Run(ctx, cfg)
	var b strings.Builder
	rep.Print(&b)
	t.Log("\n" + b.String())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kills < cfg.Kills {
		t.Errorf("kills = %d, want at least %d", rep.Kills, cfg.Kills)
	}
	for _, kind := range []string{kindCashOut, kindTransfer, kindCashIn, kindPayment, kindRefund} {
		if rep.Acknowledged[kind] == 0 {
			t.Errorf("no %s acknowledged: the run exercised too little", kind)
		}
	}
	if rep.Deliveries == 0 || rep.EventsReceived == 0 {
		t.Errorf("webhooks: %d deliveries, %d events received; want some", rep.Deliveries, rep.EventsReceived)
	}
	if len(rep.Violations) > 0 {
		t.Fatalf("%d violations:\n%s", len(rep.Violations), strings.Join(rep.Violations, "\n"))
	}
}

// TestRun_Flags: bad flags exit 2 before anything starts.
func TestRun_Flags(t *testing.T) {
	var out, errOut strings.Builder
	if got := run([]string{"-kills", "x"}, &out, &errOut); got != 2 {
		t.Fatalf("run(-kills x) = %d, want 2", got)
	}
	if got := run([]string{"extra"}, &out, &errOut); got != 2 {
		t.Fatalf("run(extra) = %d, want 2", got)
	}
}

// testWriter sends the driver's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
