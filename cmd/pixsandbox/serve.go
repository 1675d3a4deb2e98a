package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/metrics"
	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxapi"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/wiring"
	"github.com/pixsandbox/pixsandbox/simulator/workspace"
)

var errHelp = errors.New("help requested")

// Main is the serve command: configuration, the wired program and its listener.
type Main struct {
	Config Config
	Logger *slog.Logger

	stdout, stderr io.Writer
	lookup         func(string) (string, bool) // environment; nil reads the process's
	fixtures       *fixtures.Set
	store          *badgerstore.Store
	sim            *simulator.Simulator
	spaces         *workspace.Manager
	http           *http.Server
	ln             net.Listener
	serveErr       chan error
}

// NewMain returns a Main with the default configuration.
func NewMain(stdout, stderr io.Writer) *Main {
	return &Main{Config: DefaultConfig(), stdout: stdout, stderr: stderr}
}

// newFlagSet returns the serve flags bound to c.
func newFlagSet(c *Config) *flag.FlagSet {
	fs := flag.NewFlagSet("pixsandbox serve", flag.ContinueOnError)
	c.RegisterFlags(fs)
	return fs
}

const serveUsage = `Usage:
  pixsandbox serve [flags]

Starts the simulator: the PIX API, the /_sandbox control plane, the console
(/_sandbox/console), the API explorer (/_sandbox/docs), /healthz and /metrics.

Flags (each also read from PIXSANDBOX_<FLAG>, e.g. PIXSANDBOX_DATA_DIR; flags win):
`

// ParseFlags reads PIXSANDBOX_* variables, then flags, and validates the
// result. -h prints the usage on standard output and returns errHelp.
func (m *Main) ParseFlags(args []string) error {
	fs := newFlagSet(&m.Config)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	lookup := m.lookup
	if lookup == nil {
		lookup = envLookup
	}
	if err := cmdline.ApplyEnv(fs, lookup, cmdline.EnvName); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(m.stdout, serveUsage)
			fs.SetOutput(m.stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return m.Config.Validate()
}

// Run wires the program and starts serving; the configuration must already be
// set (tests set it by hand and skip ParseFlags). It listens before it returns,
// so an address in use is reported here.
func (m *Main) Run(ctx context.Context) (err error) {
	if err := m.Config.Validate(); err != nil {
		return err
	}
	m.Logger = newLogger(m.stderr, m.Config.LogLevel, m.Config.LogFormat)
	if m.fixtures, err = m.loadFixtures(); err != nil {
		return err
	}
	dir := ""
	if !m.Config.InMemory {
		dir = m.Config.DataDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create data dir: %w", err)
		}
	}
	if m.store, err = badgerstore.Open(badgerstore.Options{Dir: dir, Logger: m.Logger, NoSync: m.Config.Sync.Off, SyncEvery: m.Config.Sync.Every, Memory: int64(m.Config.MemoryLimit)}); err != nil {
		return err
	}
	base := simulator.Config{
		Store: m.store, Logger: m.Logger, ClockMode: clock.Mode(m.Config.Clock), ClockStart: m.Config.ClockStart,
		Seed: m.Config.Seed, Fixtures: m.fixtures, SettlementDelay: m.Config.SettlementDelay,
		MEDTimeline:         pix.MEDTimeline{Acknowledge: m.Config.MEDAcknowledge, Analysis: m.Config.MEDAnalysis, Refund: m.Config.MEDRefund},
		WebhookRegistration: m.Config.WebhookRegistration == "enabled",
		CashInWebhook:       pix.CashInWebhook(m.Config.CashInWebhook),
		Webhooks:            &webhook.Dispatcher{DenyPrivate: m.Config.WebhookDenyPrivate, Timeout: m.Config.WebhookTimeout},
		WebhookWorkers:      m.Config.WebhookWorkers, WebhookPerTarget: m.Config.WebhookPerTarget, WebhookPerAccount: m.Config.WebhookPerAccount,
	}
	if base.Shared, err = simulator.NewShared(m.fixtures); err != nil {
		return err
	}
	if m.sim, err = simulator.New(ctx, base); err != nil {
		return err
	}
	// Other workspaces start from the same configuration; a virtual clock
	// starts where the default's is unless the creation says otherwise.
	base.ClockStart = time.Time{}
	faults := netfault.NewRules() // a deleted workspace's fault rules go with it
	m.spaces, err = workspace.Open(ctx, workspace.Config{Engine: wiring.SpaceEngine{Store: m.store}, Default: m.sim, Base: base,
		Fixtures: m.fixtures, Limits: workspace.Limits{Workspaces: m.Config.MaxWorkspaces, Accounts: m.Config.MaxAccounts},
		Wall: time.Now, UnloadAfter: m.Config.WorkspaceUnloadAfter, Logger: m.Logger, OnDelete: faults.Forget})
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	spaces := wiring.Workspaces{M: m.spaces}
	hcfg := httpapi.Config{Services: m.sim, Clock: m.sim.Clock(), Logger: m.Logger, Registry: reg, AdminToken: m.Config.AdminToken,
		JournalSize: m.Config.JournalSize, JournalBytes: m.Config.JournalBytes, Workspaces: spaces, MetricsPublic: m.Config.MetricsPublic,
		Version: buildVersion(debug.ReadBuildInfo).String(), Faults: faults}
	if m.Config.ControlPlane {
		cp := sandboxapi.WithWorkspaces(m.sim, spaces)
		cp.SnapshotLimit = m.Config.MaxSnapshotBytes
		hcfg.ControlPlane = cp
	}
	if m.ln, err = net.Listen("tcp", m.Config.Addr); err != nil {
		return fmt.Errorf("listen %s: %w", m.Config.Addr, err)
	}
	srv := httpapi.NewServer(hcfg)
	metrics.NewSimulation(reg, simulationSource{store: m.store, sim: m.sim, srv: srv})
	metrics.NewStore(reg, func() metrics.StoreStats { return storeStats(m.store.WriterStats()) })
	spacesGauge := func(name, help string, f func() int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 { return float64(f()) })
	}
	reg.MustRegister(
		spacesGauge("pixsandbox_workspaces", "Workspaces the server holds besides the default.", m.spaces.Len),
		spacesGauge("pixsandbox_workspace_drops_pending", "Deleted workspaces whose keys are still being dropped in the background.", m.spaces.Dropping),
		spacesGauge("pixsandbox_workspaces_loaded", "Workspaces whose simulator is in memory (the others load on their next request).", m.spaces.Loaded))
	m.http = &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute, // a clock advance may run many jobs
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
	}
	m.http.RegisterOnShutdown(srv.Close) // requests a network fault holds end at once
	m.serveErr = make(chan error, 1)
	go func() { m.serveErr <- m.http.Serve(m.ln) }()
	m.sim.Start(context.WithoutCancel(ctx))
	m.spaces.Start(context.WithoutCancel(ctx))
	m.Logger.Info("pixsandbox running", "url", m.URL(), "clock", m.Config.Clock, "data_dir", m.dataDirLabel(),
		"control_plane", m.Config.ControlPlane, "admin_token", m.Config.AdminToken != "")
	return nil
}

// URL is the base URL the server answers on.
func (m *Main) URL() string {
	if m.ln == nil {
		return ""
	}
	return "http://" + m.ln.Addr().String()
}

// Close shuts the server down gracefully: stop accepting, finish requests in
// flight, stop the job runner, close the store.
func (m *Main) Close() error {
	var errs []error
	if m.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.http.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
		if err := <-m.serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		m.http = nil
	}
	if m.spaces != nil {
		m.spaces.Stop()
		m.spaces = nil
	}
	if m.sim != nil {
		m.sim.Stop()
		m.sim = nil
	}
	if m.store != nil {
		if err := m.store.Close(); err != nil {
			errs = append(errs, err)
		}
		m.store = nil
	}
	return errors.Join(errs...)
}

func (m *Main) dataDirLabel() string {
	if m.Config.InMemory {
		return "(in memory)"
	}
	return m.Config.DataDir
}

func (m *Main) loadFixtures() (*fixtures.Set, error) {
	if m.Config.Fixtures != "" {
		return fixtures.Dir(m.Config.Fixtures)
	}
	return fixtures.Embedded()
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// certPath returns a path to a fixture file that exists on disk, so the banner's
// curl commands work: the fixtures directory when given, the repository's
// fixtures/ when run from a checkout, else a copy written into the data dir.
func (m *Main) certPath(name string) string {
	if m.Config.Fixtures != "" {
		return filepath.Join(m.Config.Fixtures, name)
	}
	if p := filepath.Join("fixtures", name); fileExists(p) {
		return p
	}
	base := m.Config.DataDir
	if m.Config.InMemory {
		base = os.TempDir()
	}
	p := filepath.Join(base, "fixtures", name)
	if b, err := m.fixtures.ReadFile(name); err == nil {
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil && os.WriteFile(p, b, 0o644) == nil {
			return p
		}
	}
	return "fixtures/" + name
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
