// Package httpapi serves the PIX API and the /_sandbox control plane over
// gorilla/mux. It decodes and validates requests, renders the spec's two route
// families and three error shapes, and calls the application core through the
// Services interface; it never imports the simulator or the store.
//
// It may import simulator/pix, simulator/clock, simulator/metrics,
// simulator/webhook (value types), scenarios, gorilla/mux and prometheus.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/metrics"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Services is what the PIX API needs from the application core.
type Services interface {
	// IssueToken runs the token checks in their documented order and issues a token.
	IssueToken(ctx context.Context, req pix.TokenRequest, sc scenarios.Scenario) (pix.Token, error)
	// Authenticate verifies a bearer token and returns its account (KindUnauthorized otherwise).
	Authenticate(ctx context.Context, token string) (pix.AccountID, error)
	// AccountBalance returns an account's balance now.
	AccountBalance(ctx context.Context, id pix.AccountID) (pix.BalanceReport, error)
	// CreateCashOut accepts a cash-out (PENDING) and schedules its settlement.
	CreateCashOut(ctx context.Context, id pix.AccountID, req pix.CashOutRequest, sc scenarios.Scenario) (pix.Transaction, error)
	// CreateTransfer accepts a PIX to a DICT key, or replays the one already made
	// with the same idempotency key.
	CreateTransfer(ctx context.Context, id pix.AccountID, req pix.TransferRequest, sc scenarios.Scenario) (pix.Transaction, bool, error)
	// CreateCashIn creates a charge PENDING until paid.
	CreateCashIn(ctx context.Context, id pix.AccountID, req pix.CashInRequest, sc scenarios.Scenario) (pix.Transaction, pix.Charge, error)
	// CreateCob creates an immediate charge; Cob reads one; RemoveCob removes one.
	CreateCob(ctx context.Context, id pix.AccountID, req pix.CobRequest, sc scenarios.Scenario) (pix.Cob, error)
	Cob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error)
	RemoveCob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error)
	// CreateRefund refunds a received PIX through either refund route (replayed
	// for a repeated id); RefundOf reads one.
	CreateRefund(ctx context.Context, id pix.AccountID, orig pix.RefundOriginal, req pix.RefundRequest, sc scenarios.Scenario) (pix.Refund, bool, error)
	RefundOf(ctx context.Context, id pix.AccountID, e2e, refundID string) (pix.Refund, error)
	// ListTransactions returns a page of the account's transactions and the total.
	ListTransactions(ctx context.Context, id pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error)
	// WebhookRegistration reports whether POST/GET /api/webhooks act.
	WebhookRegistration() bool
	// RegisterWebhookTarget registers or updates a target; WebhookTargets lists them.
	RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error)
	WebhookTargets(ctx context.Context, id pix.AccountID) ([]webhook.Target, error)
	// ResendWebhook resends a transaction's webhook once (429 above 60 a minute).
	ResendWebhook(ctx context.Context, id pix.AccountID, ident, url string) (webhook.Attempt, error)
	// ListMEDs returns a page of the account's MEDs and the total (429 above its rate).
	ListMEDs(ctx context.Context, id pix.AccountID, f pix.MEDFilter) ([]pix.MED, int, error)
}

// Sandbox is what the /_sandbox control plane needs from the application core.
type Sandbox interface {
	ClockNow() pix.ClockReport
	AdvanceClock(ctx context.Context, d time.Duration, wait pix.ClockWait) (pix.ClockReport, error)
	SetClock(ctx context.Context, t time.Time, wait pix.ClockWait) (pix.ClockReport, error)
	CreateAccount(ctx context.Context, in pix.NewAccount) (pix.CreatedAccount, error)
	AddCertificate(ctx context.Context, id pix.AccountID, in pix.NewCertificate) (pix.IssuedCertificate, error)
	Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error)
	Accounts(ctx context.Context) ([]pix.AccountOverview, error)
	SandboxToken(ctx context.Context, id pix.AccountID) (pix.Token, error)
	Reset(ctx context.Context) error
	ScheduleMarker(ctx context.Context, delay time.Duration, note string) (pix.JobReport, error)
	Job(ctx context.Context, id string) (pix.JobReport, error)
	PendingJobs(ctx context.Context, limit int) ([]pix.JobReport, error)
	JobBacklog(ctx context.Context) (pix.JobBacklog, error)
	CheckInvariants(ctx context.Context) (pix.InvariantReport, error)

	Transaction(ctx context.Context, ref string) (pix.Transaction, error)
	SettleTransaction(ctx context.Context, ref string) (pix.Transaction, error)
	FailTransaction(ctx context.Context, ref string, code pix.Code) (pix.Transaction, error)
	DictKey(ctx context.Context, key string) (pix.DictEntry, error)
	RegisterDictKey(ctx context.Context, e pix.DictEntry) (pix.DictEntry, error)
	Banks() []pix.Bank
	AccountSettings(ctx context.Context, id pix.AccountID) (pix.Settings, error)
	SetAccountSettings(ctx context.Context, id pix.AccountID, st pix.Settings) (pix.Settings, error)
	RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error)
	WebhookTargets(ctx context.Context, id pix.AccountID) ([]webhook.Target, error)
	DeleteWebhookTarget(ctx context.Context, id int64) error
	WebhookDeliveries(ctx context.Context, id pix.AccountID, txID int64, limit int) ([]webhook.Delivery, error)
	WebhookDeliveriesAfterAttempt(ctx context.Context, id pix.AccountID, after int64, limit int) ([]webhook.Delivery, error)
	Pay(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	PixIn(ctx context.Context, p pix.Payment) (pix.PaymentResult, error)
	CashInCharge(ctx context.Context, id int64) (pix.Charge, error)
	OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error)
	GetMED(ctx context.Context, id int64) (pix.MED, error)
	ReceiveMED(ctx context.Context, id int64) (pix.MED, error)
	AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error)
	CancelMED(ctx context.Context, id int64) (pix.MED, error)
	RefundMED(ctx context.Context, id int64) (pix.MED, error)
	SetWebhookRegistration(enabled bool)
	// CheckReceiver sends a partner's webhook receiver the spec's payloads and
	// the hard cases and reports each (KindInvalid naming the bad field).
	CheckReceiver(ctx context.Context, cfg receivercheck.Config) (receivercheck.Report, error)
}

// Config configures a Server.
type Config struct {
	Services Services
	// Sandbox mounts the /_sandbox control plane when not nil.
	Sandbox Sandbox
	// Clock stamps error bodies (timestamp) with simulation time.
	Clock  clock.Clock
	Logger *slog.Logger
	// Registry receives the HTTP metrics and is served at /metrics.
	Registry *prometheus.Registry
	// AdminToken, when set, is required in X-Sandbox-Admin-Token on /_sandbox.
	AdminToken string
	// JournalSize is how many requests the request journal keeps
	// (GET /_sandbox/requests); 0 keeps none.
	JournalSize int
}

// Server is an http.Handler serving the API.
type Server struct {
	svc        Services
	sandbox    Sandbox
	clock      clock.Clock
	log        *slog.Logger
	metrics    *metrics.HTTP
	adminToken string
	journal    *journal // nil when off
	// listeners are the leases of pixsandbox listen (sandbox_listen.go).
	listeners     *listenerSet
	listenersOnce sync.Once
	router        *mux.Router
	routes        []*Route
	// resetMu keeps requests apart from an exclusive route (POST
	// /_sandbox/reset): routes hold it for reading, exclusive ones for
	// writing, so no request sees the store half dropped.
	resetMu sync.RWMutex
}

// NewServer builds the router from the route table.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	s := &Server{
		svc: cfg.Services, sandbox: cfg.Sandbox, clock: cfg.Clock, log: cfg.Logger,
		metrics: metrics.NewHTTP(cfg.Registry), adminToken: cfg.AdminToken, journal: newJournal(cfg.JournalSize),
		// Paths are matched as sent: mux's cleaning would answer "/cob/." with a
		// bodiless 301 instead of the route's error shape.
		router: mux.NewRouter().SkipClean(true),
	}
	s.routes = s.routeTable()
	if s.sandbox != nil {
		s.routes = append(s.routes, s.sandboxRoutes()...)
	}
	for _, rt := range s.routes {
		s.router.Handle(rt.Path, s.wrap(rt)).Methods(rt.Method).Name(rt.Name)
	}
	metricsHandler := promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})
	s.router.Handle("/metrics", metricsHandler).Methods(http.MethodGet).Name("metrics")
	if s.sandbox != nil {
		// The web console (console.go): static files, not JSON, so outside the route table.
		s.router.Handle("/_sandbox/console", s.handleConsolePage()).Methods(http.MethodGet).Name("sandbox.console")
		s.router.Handle("/_sandbox/console/{asset}", s.handleConsoleAsset()).Methods(http.MethodGet).Name("sandbox.console.asset")
		// The API document and its reference page (sandbox_docs.go).
		s.router.Handle("/_sandbox/openapi.yaml", s.handleOpenAPIDocument()).Methods(http.MethodGet).Name("sandbox.openapi")
		s.router.Handle("/_sandbox/docs", s.handleAPIReference()).Methods(http.MethodGet).Name("sandbox.docs")
	}
	s.router.Handle("/", s.handleRoot()).Methods(http.MethodGet).Name("root")
	s.router.NotFoundHandler = s.wrap(&Route{Name: "notfound", Path: "(unmatched)", Public: true, Handle: s.handleUnmatched(pix.KindNotFound)})
	s.router.MethodNotAllowedHandler = s.wrap(&Route{Name: "methodnotallowed", Path: "(unmatched)", Public: true, Handle: s.handleUnmatched(pix.KindMethodNotAllowed)})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }
