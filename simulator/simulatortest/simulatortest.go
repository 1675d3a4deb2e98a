// Package simulatortest builds real simulators for tests: the embedded fixtures,
// an in-memory (or given) Badger store and a virtual clock at the fixture epoch,
// and on request the workspaces `pixsandbox serve` has.
// No mocks: tests exercise the code that runs in production.
//
// It is the project's own helper and hands out the simulator's internals,
// which change with them. Tests of other modules use simulator/sandboxtest,
// whose API is stable.
package simulatortest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxapi"
	"github.com/pixsandbox/pixsandbox/simulator/wiring"
	"github.com/pixsandbox/pixsandbox/simulator/workspace"
)

// Options tune New.
type Options struct {
	Dir        string     // data dir; empty = in memory
	Clock      clock.Mode // default virtual
	AdminToken string
	NoSandbox  bool // do not mount /_sandbox
	// Fixtures replaces the embedded fixtures.
	Fixtures *fixtures.Set
	// CashInWebhook is the server's default cash-in webhook shape ("" = RECEIVE).
	CashInWebhook pix.CashInWebhook
	// JournalSize is the request journal's capacity (0: no journal).
	JournalSize int
	// SettlementDelay is how long a PIX out waits before it settles (0:
	// the simulator's default).
	SettlementDelay time.Duration
	// Workspaces serves many workspaces as `pixsandbox serve` does
	// (POST /_sandbox/workspaces, the scoped control paths,
	// X-Sandbox-Workspace); Wall is the wall clock their TTLs count (nil:
	// they never expire).
	Workspaces bool
	Wall       func() time.Time
}

// Env is a running simulator with its HTTP server.
type Env struct {
	Sim      *simulator.Simulator
	Store    *badgerstore.Store
	API      *httpapi.Server
	Server   *httptest.Server
	Fixtures *fixtures.Set
	URL      string
	// Spaces are the workspaces (Options.Workspaces), else nil.
	Spaces *workspace.Manager
}

// Logger returns a logger that writes to stderr when PIXSANDBOX_TEST_LOG is set.
func Logger() *slog.Logger {
	var w io.Writer = io.Discard
	if os.Getenv("PIXSANDBOX_TEST_LOG") != "" {
		w = os.Stderr
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// MustFixtures loads the embedded fixtures.
func MustFixtures(tb testing.TB) *fixtures.Set {
	tb.Helper()
	set, err := fixtures.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// New starts a simulator and an HTTP server; both stop at the end of the test.
func New(tb testing.TB, o Options) *Env {
	tb.Helper()
	env := Open(tb, o)
	tb.Cleanup(env.Close)
	return env
}

// Open is New without the automatic cleanup, for tests that restart.
func Open(tb testing.TB, o Options) *Env {
	tb.Helper()
	if o.Clock == "" {
		o.Clock = clock.ModeVirtual
	}
	set := o.Fixtures
	if set == nil {
		set = MustFixtures(tb)
	}
	st, err := badgerstore.Open(badgerstore.Options{Dir: o.Dir})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	base := simulator.Config{
		Store: st, Logger: Logger(), ClockMode: o.Clock, ClockStart: fixtures.Epoch, Seed: fixtures.Seed,
		Fixtures: set, CashInWebhook: o.CashInWebhook, SettlementDelay: o.SettlementDelay,
	}
	if o.Workspaces {
		// As serve: the workspaces share one webhook scheduler, the banks,
		// the fixture accounts and the test CA with the default.
		if base.Shared, err = simulator.NewShared(set); err != nil {
			st.Close()
			tb.Fatal(err)
		}
	}
	sim, err := simulator.New(ctx, base)
	if err != nil {
		st.Close()
		tb.Fatal(err)
	}
	env := &Env{Sim: sim, Store: st, Fixtures: set}
	cfg := httpapi.Config{Services: sim, Clock: sim.Clock(), Logger: Logger(), Registry: prometheus.NewRegistry(), AdminToken: o.AdminToken, JournalSize: o.JournalSize}
	if !o.NoSandbox {
		cfg.ControlPlane = sandboxapi.New(sim)
	}
	if o.Workspaces {
		// As serve: a new workspace's virtual clock starts where the
		// default's is unless its creation says otherwise.
		base.ClockStart = time.Time{}
		if env.Spaces, err = workspace.Open(ctx, workspace.Config{Engine: wiring.SpaceEngine{Store: st}, Default: sim, Base: base,
			Fixtures: set, Wall: o.Wall, Logger: base.Logger}); err != nil {
			sim.Stop()
			st.Close()
			tb.Fatal(err)
		}
		spaces := wiring.Workspaces{M: env.Spaces}
		cfg.Workspaces = spaces
		if !o.NoSandbox {
			cfg.ControlPlane = sandboxapi.WithWorkspaces(sim, spaces)
		}
	}
	env.API = httpapi.NewServer(cfg)
	env.Server = httptest.NewServer(env.API)
	env.URL = env.Server.URL
	sim.Start(ctx)
	if env.Spaces != nil {
		env.Spaces.Start(ctx)
	}
	return env
}

// Close stops the server (ending the holds of network faults first), the
// job runners and the store.
func (e *Env) Close() {
	e.API.Close()
	e.Server.Close()
	if e.Spaces != nil {
		e.Spaces.Stop()
	}
	e.Sim.Stop()
	_ = e.Store.Close()
}
