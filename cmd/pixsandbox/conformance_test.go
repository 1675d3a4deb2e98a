package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	_ "github.com/pixsandbox/pixsandbox/conformance" // registers the conformance specs
	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// TestConformance runs the whole conformance suite against this binary's serve
// command in-process, on a virtual clock, with the control plane. `make test`
// writes its JUnit report and the coverage report through
// PIXSANDBOX_CONFORMANCE_JUNIT_REPORT and PIXSANDBOX_CONFORMANCE_COVERAGE_REPORT.
func TestConformance(t *testing.T) {
	m := NewMain(io.Discard, io.Discard)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	framework.Run(t, framework.Config{
		Target: m.URL(), ControlPlane: "on", WebhookListen: "127.0.0.1:0", SettleTimeout: 5 * time.Second, AllowReset: true, AllowClockMoves: true,
		JUnitReport:    os.Getenv("PIXSANDBOX_CONFORMANCE_JUNIT_REPORT"),
		CoverageReport: os.Getenv("PIXSANDBOX_CONFORMANCE_COVERAGE_REPORT"),
	})
}
