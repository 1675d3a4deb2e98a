// Package sandboxtest runs a PIX sandbox inside a Go test, in the spirit of
// net/http/httptest and miniredis: no container, no binary, no port to
// choose. New starts the same server `pixsandbox serve --in-memory --clock
// virtual` runs (the PIX API, the /_sandbox control plane, workspaces) on a
// loopback port, seeded with the fixture accounts, and stops it when the test
// ends:
//
//	func TestPayout(t *testing.T) {
//		sb := sandboxtest.New(t)
//		acct := sb.Accounts()[0]
//		resp, err := sb.Client(acct).Get(sb.URL() + "/api/balance") // carries acct's bearer token
//		...
//		sb.Advance(5 * time.Second) // settles the PIX sent before
//	}
//
// The code under test can instead be given sb.URL() and an Account's
// credentials (ClientID, ClientSecret, CertHeader) and take its own tokens
// from POST /api/auth/token.
//
// The clock is virtual: it stands still until Advance or SetClock moves it,
// and a move runs every job due on the way (settlements, charge expiries, MED
// deadlines, webhook attempts) before it returns. A cash-out settles 2 s of
// simulation time after it is accepted; a token lives 30 minutes of it.
//
// State lives in memory only: nothing is written to disk, and what New
// started (the HTTP server, the job runners, the store) stops at the test's
// cleanup. The control plane (ControlURL; docs/openapi.yaml, the /_sandbox
// routes) drives the rest of the world: PIX received, charges paid, MEDs,
// webhook targets and deliveries, the request journal.
//
// One server holds any number of isolated workspaces: Workspace returns a
// fresh one for a test, with its own accounts (and credentials), clock and
// data, deleted at the end of that test. A package whose tests share one
// server starts it in TestMain with Start and gives each test a workspace:
//
//	var sb *sandboxtest.Sandbox
//
//	func TestMain(m *testing.M) {
//		var err error
//		if sb, err = sandboxtest.Start(); err != nil {
//			log.Fatal(err)
//		}
//		code := m.Run()
//		sb.Close()
//		os.Exit(code)
//	}
//
//	func TestRefund(t *testing.T) {
//		t.Parallel()
//		ws := sb.Workspace(t) // its own accounts and clock
//		...
//	}
//
// Compatibility: the exported API of this package only grows; what it has
// keeps its meaning across the module's releases, and the accounts are those
// of fixtures/accounts.json (ids 1, 2 and 3).
package sandboxtest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

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

// DefaultClockStart is where a sandbox's virtual clock starts unless
// WithClockStart says otherwise: 2026-03-02T12:00:00Z, the fixtures' epoch
// (`pixsandbox serve --clock-start`'s default).
var DefaultClockStart = fixtures.Epoch

// journalSize is how many requests the request journal keeps
// (GET /_sandbox/requests), as `pixsandbox serve` does by default.
const journalSize = 1000

// storeMemory is the store's memory budget (badgerstore.Options.Memory).
const storeMemory = 128 << 20

// Option configures Start and New.
type Option func(*config)

type config struct {
	clockStart      time.Time
	seed            uint64
	cashInWebhook   pix.CashInWebhook
	settlementDelay time.Duration
	logger          *slog.Logger
}

// WithClockStart starts the virtual clock at t instead of DefaultClockStart.
// Workspaces start theirs at t too.
func WithClockStart(t time.Time) Option {
	return func(c *config) { c.clockStart = t.UTC() }
}

// WithSeed seeds the generated data (names, documents and keys of accounts
// made through the control plane, end-to-end id suffixes) with seed instead
// of the fixtures' seed: the same seed and the same requests give the same
// answers. Workspaces use it too.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed = seed }
}

// WithCashInWebhook chooses the webhook a paid or expired cash-in charge
// sends: "RECEIVE" (the contract's V2 envelope, the default) or "CashIn" (a
// flat payload mirroring CashOut), as `pixsandbox serve --cash-in-webhook`.
// Accounts may still choose their own in their settings.
func WithCashInWebhook(shape string) Option {
	return func(c *config) { c.cashInWebhook = pix.CashInWebhook(shape) }
}

// WithSettlementDelay sets how long after acceptance a PIX sent settles, in
// simulation time (default 2 s).
func WithSettlementDelay(d time.Duration) Option {
	return func(c *config) { c.settlementDelay = d }
}

// WithLogger sends the sandbox's structured logs (the server's, the jobs',
// the webhook attempts', the store's warnings) to l; by default they are
// discarded.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// Sandbox is a running sandbox, or one workspace of it (Workspace). Every
// method acts on its own workspace: its accounts, tokens and clock. The
// methods may be called from several goroutines; Token and Workspace fail
// the test they are given, so they belong to that test's goroutine.
type Sandbox struct {
	srv      *server
	id       string // "" for the server's default workspace
	accounts []Account
	close    sync.Once
}

// server is what Start started; the default workspace's Sandbox and every
// workspace's share it.
type server struct {
	cfg    config
	http   *httptest.Server
	api    *httpapi.Server
	base   http.RoundTripper // the HTTP server's client transport, closed with it
	store  *badgerstore.Store
	sim    *simulator.Simulator
	spaces *workspace.Manager

	mu     sync.Mutex
	closed bool
}

// New starts a sandbox for the test: an in-memory store, a virtual clock at
// DefaultClockStart, the fixture accounts, the control plane and workspaces,
// served on a loopback port until the test and its subtests end (tb's
// Cleanup closes it). A failure to start fails the test.
func New(tb testing.TB, opts ...Option) *Sandbox {
	tb.Helper()
	sb, err := Start(opts...)
	if err != nil {
		tb.Fatalf("sandboxtest: %v", err)
	}
	tb.Cleanup(sb.Close)
	return sb
}

// Start starts a sandbox as New does, for code without a test of its own
// (TestMain, examples): the caller calls Close.
func Start(opts ...Option) (sb *Sandbox, err error) {
	c := config{clockStart: DefaultClockStart, seed: fixtures.Seed}
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.cashInWebhook != "" && !c.cashInWebhook.Valid() {
		return nil, fmt.Errorf("cash-in webhook shape %q is neither %q nor %q", c.cashInWebhook, pix.CashInWebhookReceive, pix.CashInWebhookCashIn)
	}
	if c.settlementDelay < 0 {
		return nil, fmt.Errorf("settlement delay %s is negative", c.settlementDelay)
	}
	set, err := fixtures.Embedded()
	if err != nil {
		return nil, err
	}
	accounts, err := fixtureAccounts(set)
	if err != nil {
		return nil, err
	}
	s := &server{cfg: c}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	// No Dir: in memory. A test's data is small: the smallest budget a
	// server runs in holds a sandbox to about half the memory of the default.
	if s.store, err = badgerstore.Open(badgerstore.Options{Logger: c.logger, Memory: storeMemory}); err != nil {
		return nil, err
	}
	ctx := context.Background()
	base := simulator.Config{
		Store: s.store, Logger: c.logger, ClockMode: clock.ModeVirtual, ClockStart: c.clockStart, Seed: c.seed,
		Fixtures: set, CashInWebhook: c.cashInWebhook, SettlementDelay: c.settlementDelay,
	}
	if base.Shared, err = simulator.NewShared(set); err != nil {
		return nil, err
	}
	if s.sim, err = simulator.New(ctx, base); err != nil {
		return nil, err
	}
	// No wall clock: workspaces neither expire nor unload; each is deleted
	// by the Cleanup of the test that made it, or with the server.
	if s.spaces, err = workspace.Open(ctx, workspace.Config{Engine: wiring.SpaceEngine{Store: s.store}, Default: s.sim, Base: base,
		Fixtures: set, Logger: c.logger}); err != nil {
		return nil, err
	}
	spaces := wiring.Workspaces{M: s.spaces}
	s.api = httpapi.NewServer(httpapi.Config{
		Services: s.sim, Clock: s.sim.Clock(), Logger: c.logger, Registry: prometheus.NewRegistry(),
		JournalSize: journalSize, Workspaces: spaces, ControlPlane: sandboxapi.WithWorkspaces(s.sim, spaces),
	})
	s.http = httptest.NewServer(s.api)
	s.base = s.http.Client().Transport
	s.sim.Start(ctx)
	s.spaces.Start(ctx)
	return &Sandbox{srv: s, accounts: accounts}, nil
}

// close stops what Start started, in the order `pixsandbox serve` does:
// the HTTP server (requests in flight finish), the workspaces' and the
// default's jobs, the store.
func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.http != nil {
		s.api.Close() // requests a network fault holds end at once
		s.http.Close()
	}
	if s.spaces != nil {
		s.spaces.Stop()
	}
	if s.sim != nil {
		s.sim.Stop()
	}
	if s.store != nil {
		_ = s.store.Close()
	}
}

// Close stops the sandbox and frees its memory; on a workspace, it deletes
// that workspace. New and Workspace register it with the test's Cleanup;
// further calls do nothing.
func (sb *Sandbox) Close() {
	sb.close.Do(func() {
		if sb.id == "" {
			sb.srv.close()
			return
		}
		sb.srv.mu.Lock()
		defer sb.srv.mu.Unlock()
		if !sb.srv.closed {
			_ = sb.srv.spaces.Delete(context.Background(), sb.id)
		}
	})
}

// URL is the sandbox's base URL, http://127.0.0.1:port, without a trailing
// slash: the PIX API's routes are under it (URL() + "/api/pix/cash-out").
// A workspace has the server's URL: its tokens choose it.
func (sb *Sandbox) URL() string { return sb.srv.http.URL }

// ControlURL is the base URL of the workspace's control plane:
// URL() + "/_sandbox" for the server's default workspace, URL() +
// "/_sandbox/workspaces/{id}" for another; its routes are under it
// (ControlURL() + "/pix-in", ControlURL() + "/transactions/{id}").
func (sb *Sandbox) ControlURL() string {
	if sb.id == "" {
		return sb.URL() + "/_sandbox"
	}
	return sb.URL() + "/_sandbox/workspaces/" + url.PathEscape(sb.id)
}

// ID is the workspace's id: "default" for the server's own, a UUID for one
// of Workspace.
func (sb *Sandbox) ID() string {
	if sb.id == "" {
		return pix.DefaultWorkspace
	}
	return sb.id
}

// Accounts are the workspace's accounts with their credentials, in id order:
// the fixture accounts of fixtures/accounts.json, id 1 a person with BRL
// 10,000.00, id 2 a company with BRL 250,000.00 and id 3 a person with
// nothing, each with a key of its document, an e-mail, a phone and an EVP
// key. A workspace's have the same ids, holders, balances, keys and
// certificates, and client ids and secrets of their own. The slice is a
// copy.
func (sb *Sandbox) Accounts() []Account {
	out := slices.Clone(sb.accounts)
	for i := range out {
		out[i].PixKeys = slices.Clone(out[i].PixKeys)
	}
	return out
}

// lookup returns the workspace's simulator, or an error once the workspace
// was deleted.
func (sb *Sandbox) lookup() (*simulator.Simulator, error) {
	if sb.id == "" {
		return sb.srv.sim, nil
	}
	sim, ok := sb.srv.spaces.Simulator(sb.id)
	if !ok {
		return nil, fmt.Errorf("workspace %s was deleted (its test ended, or Close was called)", sb.id)
	}
	return sim, nil
}

// simulator is lookup for the methods without an error to return: it
// panics once the workspace was deleted.
func (sb *Sandbox) simulator() *simulator.Simulator {
	sim, err := sb.lookup()
	if err != nil {
		panic("sandboxtest: " + err.Error())
	}
	return sim
}

// Now is the workspace's simulation time. It panics once the workspace was
// deleted.
func (sb *Sandbox) Now() time.Time { return sb.simulator().Clock().Now() }

// Advance moves the workspace's clock forward by d and returns the new
// simulation time. It returns once every job due on the way has run, in due
// order, and the webhook attempts they made have been answered (or have
// failed: an attempt gives up after 10 s of wall time), so a test can check
// their effects right after it. It panics when d is negative, the move fails
// or the workspace was deleted.
func (sb *Sandbox) Advance(d time.Duration) time.Time {
	r, err := sb.simulator().AdvanceClock(context.Background(), d, pix.ClockWaitWebhooks)
	if err != nil {
		panic(fmt.Sprintf("sandboxtest: advance the clock of workspace %s by %s: %v", sb.ID(), d, err))
	}
	return r.Now
}

// SetClock moves the workspace's clock forward to t, as Advance does. It
// panics when t is before Now (the clock never moves back: tokens issued
// and jobs run would lose their meaning), the move fails or the workspace
// was deleted.
func (sb *Sandbox) SetClock(t time.Time) {
	if _, err := sb.simulator().SetClock(context.Background(), t, pix.ClockWaitWebhooks); err != nil {
		panic(fmt.Sprintf("sandboxtest: set the clock of workspace %s to %s: %v", sb.ID(), t.Format(time.RFC3339Nano), err))
	}
}

// Workspace creates a workspace on the sandbox's server for the test: an
// isolated world with the fixture accounts (fresh client ids and secrets, the
// same certificates), a virtual clock at the server's start time
// (WithClockStart) and the server's seed. Its tokens act in it only, and
// Advance moves its clock only. tb's Cleanup deletes it. A failure to create
// it fails the test.
func (sb *Sandbox) Workspace(tb testing.TB) *Sandbox {
	tb.Helper()
	s := sb.srv
	created, err := s.spaces.Create(context.Background(), pix.NewWorkspace{
		Name: workspaceName(tb.Name()), Clock: string(clock.ModeVirtual), ClockStart: s.cfg.clockStart,
		Seed: s.cfg.seed, HasSeed: true, HasTTL: true, // TTL 0: kept until deleted
	})
	if err != nil {
		tb.Fatalf("sandboxtest: create a workspace: %v", err)
	}
	ws := &Sandbox{srv: s, id: created.Info.ID}
	tb.Cleanup(ws.Close)
	if ws.accounts, err = createdAccounts(created.Accounts); err != nil {
		tb.Fatal(err)
	}
	return ws
}

// workspaceName is a test's name cut, at a character's end, to the 100
// bytes a workspace's name may have.
func workspaceName(test string) string {
	for len(test) > 100 {
		_, size := utf8.DecodeLastRuneInString(test)
		test = test[:len(test)-size]
	}
	return test
}
