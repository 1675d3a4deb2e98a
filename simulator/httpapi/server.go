// Package httpapi serves the contract's routes (the PIX API) over gorilla/mux,
// and what every route needs: the wrapper (request id, panic recovery,
// metrics, access log, request journal, admin and bearer tokens), JSON
// decoding (strict, through httpapi/strictjson), the spec's two route families
// and three error shapes. It calls the application core through the Services
// interface, which the core implements.
//
// The /_sandbox control plane and the web console are package sandboxapi, a
// second route table mounted through Config.ControlPlane. What sandboxapi
// uses from here is exported on purpose: Route and HandlerFunc (its table's
// rows), Page, Server.ServeStatic and StaticFile (its static files),
// Server.Journal and Journal (the request journal it shows),
// Server.HoldShared and Server.Logger, DecodeSandboxJSON (its request
// bodies), NewStandardBalance and NewTokenResponse (the forms it shares with
// the contract's routes).
//
// One file per resource, named as in the core and the conformance suite:
// auth.go, balance.go, cob.go, cashin.go, cashout.go, transfer.go, refund.go,
// med.go, listing.go (the transaction listings), webhook.go; routes.go is the
// route table on one screen; middleware.go, errors.go, encode.go, query.go,
// journal.go and static.go serve every route; nearmiss.go names the routes
// an unmatched request came close to; netfault.go applies the network faults
// of simulator/netfault (X-Sandbox-Fault, the rules of /_sandbox/faults) to
// the contract's routes; faults_on.go (faults build)
// and faults_off.go inject the self-check's faults. Subpackages: strictjson
// (strict decoding) and apitest (the HTTP helpers of the tests of httpapi
// and sandboxapi).
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/metrics"
	"github.com/pixsandbox/pixsandbox/simulator/netfault"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Services is what the PIX API needs from the application core
// (*simulator.Simulator).
//
// Each method that returns an error ends its comment with an Errors line: the
// *pix.Error values it returns, as package pix's Kind and Code constants, each
// kind followed by its codes ("KindInvalid: CodeA, CodeB (when); KindNotFound:
// CodeNotFound"). The kind decides the HTTP status (writeError; a route may
// override it for a code, routes.go), the code what the body says. A code
// marked (scenario) comes only from an X-Sandbox-Scenario or a magic DICT key.
// Any method may also fail with an error that is no *pix.Error (the store
// failing, the request's context ending), which the transport answers as
// KindInternal; "KindInternal only" marks a method that returns nothing else.
// The core's own comment says when each happens; a test
// (simulator/core/errdoc_test.go) keeps the two in step.
type Services interface {
	// IssueToken runs the token checks in their documented order and issues a token.
	//
	// Errors: KindInvalid: CodePubCertHeaderMissing, CodePubCertMalformedPEM,
	// CodePubRequestBodyInvalid; KindUnavailable: CodePubAuthUpstreamUnavailable
	// (scenario); KindUpstream: CodePubAuthUpstreamError (scenario);
	// KindUnauthorized: CodePubCertNotYetValid, CodePubCertExpired,
	// CodePubCertNotRegistered, CodePubInvalidCredentials; KindForbidden:
	// CodePubCertNotAuthorizedForAccount.
	IssueToken(ctx context.Context, req pix.TokenRequest, sc scenarios.Scenario) (pix.Token, error)
	// Authenticate verifies a bearer token and returns its account.
	//
	// Errors: KindUnauthorized: CodeUnauthorized (missing, invalid or expired,
	// or its account is gone).
	Authenticate(ctx context.Context, token string) (pix.AccountID, error)
	// AccountBalance returns an account's balance now.
	//
	// Errors: KindNotFound: CodeNotFound (no such account).
	AccountBalance(ctx context.Context, id pix.AccountID) (pix.BalanceReport, error)
	// CreateCashOut accepts a cash-out (PENDING) and schedules its settlement.
	//
	// Errors: KindInvalid: CodeHTTPError, CodePixInvalidAmount,
	// CodePixInvalidPixKey, CodePixDuplicateExternalID,
	// CodePixTransactionLimitExceeded, CodePixDailyLimitExceeded,
	// CodePixNightLimitExceeded, CodePixInsufficientBalance; KindNotFound:
	// CodeNotFound (no such account).
	CreateCashOut(ctx context.Context, id pix.AccountID, req pix.CashOutRequest, sc scenarios.Scenario) (pix.Transaction, error)
	// CreateTransfer accepts a PIX to a DICT key, or replays the one already made
	// with the same idempotency key.
	//
	// Errors: KindInvalid: CodeIdempotencyKeyMissing, CodeInvalidRequest,
	// CodePixInvalidPixKey (scenario), CodePixTransactionLimitExceeded,
	// CodePixDailyLimitExceeded, CodePixNightLimitExceeded,
	// CodePixInsufficientBalance; KindUnprocessable: CodeIdempotencyKeyConflict,
	// CodeDictKeyNotFound, CodeIspbDenied; KindNotFound: CodeNotFound (no such
	// account).
	CreateTransfer(ctx context.Context, id pix.AccountID, req pix.TransferRequest, sc scenarios.Scenario) (pix.Transaction, bool, error)
	// CreateCashIn creates a charge PENDING until paid.
	//
	// Errors: KindInvalid: CodeHTTPError, CodePixInvalidAmount,
	// CodeProviderExpirationBelowMinimum, CodePixDuplicateExternalID;
	// KindUnavailableProvider: CodeHTTPError (scenario); KindNotFound:
	// CodeNotFound (no such account).
	CreateCashIn(ctx context.Context, id pix.AccountID, req pix.CashInRequest, sc scenarios.Scenario) (pix.Transaction, pix.Charge, error)
	// CreateCob creates an immediate charge.
	//
	// Errors: KindInvalid: CodeInvalidRequest; KindConflict: CodeInvalidRequest
	// (the txid exists); KindNotFound: CodeNotFound (no such account).
	CreateCob(ctx context.Context, id pix.AccountID, req pix.CobRequest, sc scenarios.Scenario) (pix.Cob, error)
	// Cob reads an immediate charge.
	//
	// Errors: KindInvalid: CodeInvalidRequest (txid); KindNotFound: CodeNotFound.
	Cob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error)
	// RemoveCob removes an immediate charge (REMOVIDA_PELO_USUARIO_RECEBEDOR).
	//
	// Errors: KindInvalid: CodeInvalidRequest (txid); KindNotFound: CodeNotFound;
	// KindConflict: CodeInvalidRequest (no longer ATIVA).
	RemoveCob(ctx context.Context, id pix.AccountID, txid string) (pix.Cob, error)
	// CreateRefund refunds a received PIX through either refund route (replayed
	// for a repeated id).
	//
	// Errors: KindInvalid: CodeInvalidRequest (id), CodeRefundIDConflict,
	// CodeRefundExceedsBalance; KindNotFound: CodeNotFound (no such original),
	// CodeRefundNotAReceipt; KindUnprocessable: CodeRefundDeadlineExpired.
	CreateRefund(ctx context.Context, id pix.AccountID, orig pix.RefundOriginal, req pix.RefundRequest, sc scenarios.Scenario) (pix.Refund, bool, error)
	// RefundOf reads a refund by the original's end-to-end id and its id.
	//
	// Errors: KindNotFound: CodeNotFound (no such original or refund).
	RefundOf(ctx context.Context, id pix.AccountID, e2e, refundID string) (pix.Refund, error)
	// ListTransactions returns a page of the account's transactions and the
	// total; the filter is already valid.
	//
	// Errors: KindInternal only.
	ListTransactions(ctx context.Context, id pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error)
	// WebhookRegistration reports whether POST/GET /api/webhooks act.
	WebhookRegistration() bool
	// RegisterWebhookTarget registers or updates a target.
	//
	// Errors: KindInvalid: CodeInvalidRequest (the target, or a fourth active
	// URL for its event type); KindNotFound: CodeNotFound (no such account).
	RegisterWebhookTarget(ctx context.Context, t webhook.Target, requireHTTPS bool) (webhook.Target, bool, error)
	// WebhookTargets lists an account's webhook targets.
	//
	// Errors: KindNotFound: CodeNotFound (no such account).
	WebhookTargets(ctx context.Context, id pix.AccountID) ([]webhook.Target, error)
	// ResendWebhook resends a transaction's webhook once.
	//
	// Errors: KindRateLimited: CodeRateLimited (above 60 a minute);
	// KindInvalid: CodeInvalidRequest (the url, no webhook sent yet, no target);
	// KindNotFound: CodeNotFound (no such transaction).
	ResendWebhook(ctx context.Context, id pix.AccountID, ident, url string) (webhook.Attempt, error)
	// ListMEDs returns a page of the account's MEDs and the total.
	//
	// Errors: KindRateLimited: CodeRateLimited (above the account's rate);
	// KindNotFound: CodeNotFound (no such account).
	ListMEDs(ctx context.Context, id pix.AccountID, f pix.MEDFilter) ([]pix.MED, int, error)
}

// Config configures a Server.
type Config struct {
	Services Services
	// ControlPlane, when not nil, mounts a second route table beside the
	// contract's: the /_sandbox control plane (sandboxapi.New).
	ControlPlane ControlPlane
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
	// JournalBytes bounds the journal's entries' text together (headers,
	// bodies, path, query); 0 is DefaultJournalBytes.
	JournalBytes int
	// Workspaces, when set, serves many workspaces (workspace.go); Services
	// is then the default workspace's.
	Workspaces Workspaces
	// MetricsPublic serves /metrics without the admin token even when the
	// server has one (--metrics-public); by default the token guards it as
	// it guards the control plane.
	MetricsPublic bool
	// Version, when set, is the server's build, told in GET /healthz
	// ("version") so a report can record what it ran against.
	Version string
	// Faults are the network fault rules of the server's workspaces
	// (netfault.go); nil: a set of its own (Server.Faults).
	Faults *netfault.Rules
}

// ControlPlane is a route table served beside the contract's on the same
// router: package sandboxapi's /_sandbox control plane. Mount is called once,
// while the Server is built; its routes run through the same wrapper as the
// contract's (request id, metrics, journal, the admin token on Admin routes,
// error shapes), its pages as they are.
type ControlPlane interface {
	Mount(s *Server) (routes []*Route, pages []Page)
}

// Page is a GET route outside the route tables: a static file (the web
// console, the API document), served by its handler (Server.ServeStatic).
type Page struct {
	Name    string
	Path    string
	Handler http.Handler
}

// Server is an http.Handler serving the API.
type Server struct {
	svc Services
	ws  Workspaces // nil: one world
	// wrapSvc, when set, wraps each workspace's Services as svc is wrapped
	// (the faults build: injectFaults).
	wrapSvc func(Services) Services
	// controlPlane is whether a control plane is mounted (GET / links to it).
	controlPlane bool
	clock        clock.Clock
	log          *slog.Logger
	metrics      *metrics.HTTP
	adminToken   string
	version      string
	journal      *Journal // nil when off
	router       *mux.Router
	routes       []*Route
	// nearMiss is what an unmatched request is compared with (nearmiss.go).
	nearMiss *nearMissIndex
	// faults are the network fault rules (netfault.go).
	faults *netfault.Rules
	// resetMu keeps requests apart from an exclusive route (POST
	// /_sandbox/reset): routes hold it for reading, exclusive ones for
	// writing, so no request sees the store half dropped (HoldShared).
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
		svc: cfg.Services, ws: cfg.Workspaces, controlPlane: cfg.ControlPlane != nil, clock: cfg.Clock, log: cfg.Logger,
		metrics: metrics.NewHTTP(cfg.Registry), adminToken: cfg.AdminToken, version: cfg.Version, journal: newJournal(cfg.JournalSize, cfg.JournalBytes),
		// Paths are matched as sent: mux's cleaning would answer "/cob/." with a
		// bodiless 301 instead of the route's error shape.
		router: mux.NewRouter().SkipClean(true),
	}
	s.routes = s.routeTable()
	var pages []Page
	if cfg.ControlPlane != nil {
		var more []*Route
		more, pages = cfg.ControlPlane.Mount(s)
		s.routes = append(s.routes, more...)
	}
	s.injectFaults()
	s.initFaults(cfg.Faults)
	for _, rt := range s.routes {
		s.router.Handle(rt.Path, s.wrap(rt)).Methods(rt.Method).Name(rt.Name)
	}
	var metricsHandler http.Handler = promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})
	if s.adminToken != "" && !cfg.MetricsPublic {
		metricsHandler = s.requireAdminToken(metricsHandler)
	}
	s.router.Handle("/metrics", metricsHandler).Methods(http.MethodGet).Name("metrics")
	for _, p := range pages {
		s.router.Handle(p.Path, p.Handler).Methods(http.MethodGet).Name(p.Name)
	}
	s.router.Handle("/", s.handleRoot()).Methods(http.MethodGet).Name("root")
	s.nearMiss = newNearMissIndex(s.routes, pages)
	s.router.NotFoundHandler = s.wrap(&Route{Name: "notfound", Path: unmatchedRoute, Public: true, Handle: s.handleUnmatched(pix.KindNotFound)})
	s.router.MethodNotAllowedHandler = s.wrap(&Route{Name: "methodnotallowed", Path: unmatchedRoute, Public: true, Handle: s.handleUnmatched(pix.KindMethodNotAllowed)})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// HoldShared holds the server's request lock as a routed request does, for
// work done off a request (a listener's lease running out), so that it never
// overlaps an exclusive route (POST /_sandbox/reset); call the returned
// function to release it.
func (s *Server) HoldShared() (release func()) {
	s.resetMu.RLock()
	return s.resetMu.RUnlock
}
