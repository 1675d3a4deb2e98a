package conformance_test

import (
	"flag"
	"os"
	"testing"

	_ "github.com/pixsandbox/pixsandbox/conformance" // registers the specs
	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// config is filled from the command line (and PIXSANDBOX_CONFORMANCE_*
// environment variables) by TestMain.
var config framework.Config

func TestMain(m *testing.M) {
	framework.RegisterFlags(flag.CommandLine, &config)
	flag.Parse()
	os.Exit(m.Run())
}

// TestConformance runs the suite against -target. Without a target there is
// nothing to talk to, so it skips; `make test` runs the same specs in-process
// against the simulator from cmd/pixsandbox.
func TestConformance(t *testing.T) {
	if config.Target == "" {
		t.Skip("no -target given; `make test` runs this suite in-process from cmd/pixsandbox")
	}
	framework.Run(t, config)
}
