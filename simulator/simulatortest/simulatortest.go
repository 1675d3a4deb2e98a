// Package simulatortest builds real simulators for tests: the embedded fixtures,
// an in-memory (or given) Badger store and a virtual clock at the fixture epoch.
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

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxapi"
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
}

// Env is a running simulator with its HTTP server.
type Env struct {
	Sim      *simulator.Simulator
	Store    *badgerstore.Store
	API      *httpapi.Server
	Server   *httptest.Server
	Fixtures *fixtures.Set
	URL      string
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
	sim, err := simulator.New(ctx, simulator.Config{
		Store: st, Logger: Logger(), ClockMode: o.Clock, ClockStart: fixtures.Epoch, Seed: fixtures.Seed,
		Fixtures: set, CashInWebhook: o.CashInWebhook,
	})
	if err != nil {
		st.Close()
		tb.Fatal(err)
	}
	cfg := httpapi.Config{Services: sim, Clock: sim.Clock(), Logger: Logger(), Registry: prometheus.NewRegistry(), AdminToken: o.AdminToken, JournalSize: o.JournalSize}
	if !o.NoSandbox {
		cfg.ControlPlane = sandboxapi.New(sim)
	}
	api := httpapi.NewServer(cfg)
	srv := httptest.NewServer(api)
	sim.Start(ctx)
	return &Env{Sim: sim, Store: st, API: api, Server: srv, Fixtures: set, URL: srv.URL}
}

// Close stops the server (ending the holds of network faults first), the
// job runner and the store.
func (e *Env) Close() {
	e.API.Close()
	e.Server.Close()
	e.Sim.Stop()
	_ = e.Store.Close()
}
