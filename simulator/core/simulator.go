package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/auth"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/limits"
	"github.com/pixsandbox/pixsandbox/simulator/med"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/ratelimit"
	"github.com/pixsandbox/pixsandbox/simulator/refund"
	"github.com/pixsandbox/pixsandbox/simulator/seed"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// Config configures a Simulator.
type Config struct {
	Store  storage.Store
	Logger *slog.Logger

	// ClockMode selects the simulation clock: clock.ModeReal (wall time plus an
	// offset the control plane can increase) or clock.ModeVirtual (moves only when
	// advanced). ClockStart is the virtual clock's first instant on a new data dir.
	ClockMode  clock.Mode
	ClockStart time.Time
	// Wall is the wall clock used by the real-mode clock and by webhook
	// deliveries to date their webhook-timestamp; nil means time.Now.
	Wall func() time.Time

	// Seed drives the fake data generator (names, documents, keys of new accounts).
	Seed uint64
	// Fixtures holds the accounts seeded into a new data dir on first start, the
	// DICT directory and banks, and the sandbox test CA that issues certificates
	// to control-plane accounts.
	Fixtures *fixtures.Set

	// SettlementDelay is how long after acceptance a PIX out settles, on the
	// simulation clock (default 2 s).
	SettlementDelay time.Duration
	// Webhooks performs webhook deliveries; nil uses a webhook.Dispatcher with its
	// defaults (10 s timeout, no redirects).
	Webhooks *webhook.Dispatcher
	// WebhookWorkers, WebhookPerTarget and WebhookPerAccount bound the
	// webhook attempts made at once: in the shared slots of the server, for
	// one target URL and for one account (webhook.Scheduler's Workers,
	// PerTarget and PerOwner; Gap G-62); zero takes the webhook package's
	// defaults. The simulators of one Shared share one scheduler, made with
	// the bounds of the first of them built (a server builds its workspaces
	// from one configuration).
	WebhookWorkers, WebhookPerTarget, WebhookPerAccount int
	// MEDTimeline sets the MED deadlines; zero fields take pix.DefaultMEDTimeline's.
	MEDTimeline pix.MEDTimeline
	// WebhookRegistration enables POST/GET /api/webhooks (the spec says they are
	// currently disabled, which is the default).
	WebhookRegistration bool
	// CashInWebhook is the default shape of a cash-in charge's webhook
	// (accounts may choose another in their settings): "" means
	// pix.CashInWebhookReceive, the V2 envelope the spec asks for.
	CashInWebhook pix.CashInWebhook

	// Workspace is the id of the workspace this simulator serves ("" for
	// the default): its tokens name it (auth.TokenWorkspace).
	Workspace string
	// Shared, when set, is what this simulator reads of Fixtures, already
	// parsed (NewShared): the workspaces of a server share one.
	Shared *Shared
	// Accounts chooses what a new workspace starts with: "" or "fixtures"
	// the fixture accounts (in a workspace other than the default with a
	// fresh client id and secret each, so client ids stay unique across the
	// server; their certificates are the fixtures'), "none" no account.
	Accounts string
}

// Shared is what a simulator reads of its fixtures, parsed once: the banks,
// the fixture accounts and the sandbox test CA. It is never changed, so the
// workspaces of a server share one. It also holds the scheduler of the
// webhook attempts of the simulators that share it (webhookScheduler).
type Shared struct {
	banks    seed.Banks
	accounts []seed.Account
	ca       *auth.CA

	webhooksOnce sync.Once
	webhooks     *webhook.Scheduler
}

// webhookScheduler returns the scheduler that runs the webhook attempts of
// every simulator sharing sh, made on the first call with cfg's bounds.
func (sh *Shared) webhookScheduler(cfg Config) *webhook.Scheduler {
	sh.webhooksOnce.Do(func() {
		sh.webhooks = &webhook.Scheduler{Workers: cfg.WebhookWorkers, PerTarget: cfg.WebhookPerTarget, PerOwner: cfg.WebhookPerAccount}
	})
	return sh.webhooks
}

// NewShared parses what simulators read of set.
func NewShared(set *fixtures.Set) (*Shared, error) {
	if set == nil {
		return nil, errors.New("simulator: no fixtures")
	}
	banks, err := seed.LoadBanks(set)
	if err != nil {
		return nil, err
	}
	accounts, err := seed.FromFixtures(set)
	if err != nil {
		return nil, err
	}
	caCertPEM, caKeyPEM, err := set.CA()
	if err != nil {
		return nil, err
	}
	ca, err := auth.ParseCA(caCertPEM, caKeyPEM)
	if err != nil {
		return nil, err
	}
	return &Shared{banks: banks, accounts: accounts, ca: ca}, nil
}

// DefaultSettlementDelay is the settlement delay when Config leaves it zero.
const DefaultSettlementDelay = 2 * time.Second

// Simulator is the application core.
type Simulator struct {
	store  storage.Store
	log    *slog.Logger
	clock  clock.Settable
	agenda *agenda.Agenda
	faker  *gofakeit.Faker

	auth *auth.Service
	ca   *auth.CA

	rules           rules
	totals          limits.Totals
	banks           seed.Banks
	settlementDelay time.Duration
	dispatcher      *webhook.Dispatcher
	pool            *webhook.Space // this workspace's share of the webhook scheduler
	deliveries      *outbox.Runner
	refunds         *refund.Process
	meds            *med.Process
	cashInWebhook   pix.CashInWebhook
	rateLimits      ratelimit.Limiter
	registration    registrationSwitch

	clockMu sync.Mutex // serialises clock moves and their persistence

	// What Reset seeds again, and the runner's context to restart it with.
	seedAccts []seed.Account
	fixtures  *fixtures.Set
	lifeMu    sync.Mutex
	runCtx    context.Context
}

// New opens the simulator over cfg.Store: it restores (or creates) the clock and
// the token signing key, seeds the fixture accounts into a new data dir and
// registers the job handlers. Call Start to run scheduled jobs.
func New(ctx context.Context, cfg Config) (*Simulator, error) {
	if cfg.Store == nil {
		return nil, errors.New("simulator: no store")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Simulator{
		store: cfg.Store,
		log:   cfg.Logger,
		faker: gofakeit.NewFaker(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15), true),
	}
	if cfg.Fixtures == nil {
		return nil, errors.New("simulator: no fixtures")
	}
	s.rules = bendRules(productionRules())
	s.totals = limits.Totals{IsNight: s.rules.isNight}
	s.settlementDelay = cfg.SettlementDelay
	if s.settlementDelay <= 0 {
		s.settlementDelay = DefaultSettlementDelay
	}
	s.registration.on.Store(cfg.WebhookRegistration)
	s.cashInWebhook = cfg.CashInWebhook
	if !s.cashInWebhook.Valid() {
		if s.cashInWebhook != "" {
			return nil, fmt.Errorf("simulator: cash-in webhook shape %q is not RECEIVE or CashIn", cfg.CashInWebhook)
		}
		s.cashInWebhook = pix.CashInWebhookReceive
	}
	s.dispatcher = cfg.Webhooks
	if s.dispatcher == nil {
		s.dispatcher = &webhook.Dispatcher{}
	}
	if s.dispatcher.Wall == nil && cfg.Wall != nil {
		// webhook-timestamp is wall time in every clock mode; the same wall
		// clock as the real-mode clock, so a test can move both.
		dp := *s.dispatcher
		dp.Wall = cfg.Wall
		s.dispatcher = &dp
	}
	sh := cfg.Shared
	if sh == nil {
		var err error
		if sh, err = NewShared(cfg.Fixtures); err != nil {
			return nil, err
		}
	}
	s.pool = sh.webhookScheduler(cfg).Space()
	s.deliveries = &outbox.Runner{Store: s.store, Pool: s.pool, Dispatcher: s.dispatcher, Log: s.log, Limits: &s.rateLimits}
	banks := sh.banks
	s.banks = banks
	s.refunds = &refund.Process{SettleAfter: s.settlementDelay, Party: s.sandboxCounterpart,
		RtrID:      func(now time.Time) string { return s.endToEndID('D', banks.Sandbox.ISPB, now) },
		Refundable: s.rules.refundable, RefundableKind: s.rules.refundableKind, MaxRefunds: s.rules.maxRefunds}
	s.meds = &med.Process{Deadlines: med.Deadlines(cfg.MEDTimeline), Refunds: s.refunds, Sandbox: banks.Sandbox, Bank: banks.Lookup}
	accounts := slices.Clone(sh.accounts)
	switch {
	case cfg.Accounts == "none":
		accounts = nil
	case cfg.Workspace != "":
		for i := range accounts {
			accounts[i].ClientID, accounts[i].ClientSecret = uuid.NewString(), auth.NewClientSecret()
		}
	}
	s.seedAccts, s.fixtures = accounts, cfg.Fixtures
	s.ca = sh.ca
	var err error
	if s.clock, err = s.restoreClock(ctx, cfg); err != nil {
		return nil, err
	}
	if err := s.start(ctx, cfg); err != nil {
		return nil, err
	}
	s.agenda = agenda.New(cfg.Store, s.clock, cfg.Logger.With("component", "agenda"))
	s.registerJobs()
	return s, nil
}

// start writes, in one store transaction (one synced commit: a workspace's
// creation is a few of them), what every start writes: where the clock
// starts, so a later start never moves it back; the token signing key on the
// first start; the start counter (reseed); and, into a new data dir, the
// fixture accounts and the DICT directory.
func (s *Simulator) start(ctx context.Context, cfg Config) error {
	now := s.clock.Now()
	var key []byte
	var starts uint64
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
		if err := tx.PutMeta(metaClock, s.clockState(now)); err != nil {
			return err
		}
		if key, err = auth.SigningKey(tx); err != nil {
			return err
		}
		if starts, err = nextStart(tx); err != nil {
			return err
		}
		if err := seed.Accounts(tx, s.seedAccts, now); err != nil {
			return err
		}
		return seed.Dict(tx, s.fixtures, s.banks)
	})
	if err != nil {
		return err
	}
	s.auth = auth.New(s.store, s.clock, key, cfg.Workspace)
	s.reseedFrom(cfg.Seed, starts)
	return nil
}

// seedStore writes the fixture accounts, then the DICT directory, into a new
// data dir, once (simulator/seed).
func (s *Simulator) seedStore(ctx context.Context) error {
	now := s.clock.Now()
	if err := s.store.Update(ctx, func(tx storage.Tx) error { return seed.Accounts(tx, s.seedAccts, now) }); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx storage.Tx) error { return seed.Dict(tx, s.fixtures, s.banks) })
}

// metaStarts counts the starts of the simulator on its data dir.
const metaStarts = "starts"

// reseed gives each start on the same data dir its own random stream. The first
// start keeps the stream of seed alone (determinism: same seed and script, same
// data); a restart that replayed it would draw the same end-to-end id suffixes
// again, in the same minute of a clock restored where it stopped, and name two
// PIX with one end-to-end id.
func (s *Simulator) reseedFrom(seed, starts uint64) {
	if starts > 0 {
		s.faker = gofakeit.NewFaker(rand.NewPCG(seed^starts*0xbf58476d1ce4e5b9, seed^0x9e3779b97f4a7c15^starts), true)
	}
}

// nextStart counts a start in tx and returns how many came before it.
func nextStart(tx storage.Tx) (uint64, error) {
	var starts uint64
	if _, err := tx.Meta(metaStarts, &starts); err != nil {
		return 0, err
	}
	return starts, tx.PutMeta(metaStarts, starts+1)
}

// Start runs scheduled jobs in the background: at once those that fell due while
// the simulator was stopped (webhook attempts a stop cut short among them),
// then each as it falls due.
func (s *Simulator) Start(ctx context.Context) {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	s.runCtx = ctx
	if err := s.deliveries.RecoverInFlight(ctx, s.clock.Now()); err != nil {
		s.log.Error("webhook: scheduling the attempts left in flight", "error", err)
	}
	s.agenda.Start(ctx)
}

// Stop stops running scheduled jobs and webhook attempts, and waits for those
// running to return. Attempts cut short stay in flight in the store.
func (s *Simulator) Stop() {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	s.runCtx = nil
	s.agenda.Stop()
	s.pool.Stop()
}

// Clock returns the simulation clock, the only source of "now".
func (s *Simulator) Clock() clock.Clock { return s.clock }

// view runs read in a read-only store transaction and returns what it read.
func view[T any](ctx context.Context, store storage.Store, read func(tx storage.Tx) (T, error)) (T, error) {
	var v T
	err := store.View(ctx, func(tx storage.Tx) (err error) {
		v, err = read(tx)
		return err
	})
	return v, err
}
