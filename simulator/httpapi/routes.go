package httpapi

import (
	"net/http"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// HandlerFunc parses a request, calls the core and returns the response body,
// or an error that the wrapper renders in the route's shape.
type HandlerFunc func(r *http.Request) (any, error)

// Route is one row of a route table: the contract's (routeTable) or the
// control plane's (package sandboxapi, mounted through Config.ControlPlane).
// Every routed request runs through Server.wrap, which reads these fields.
type Route struct {
	Name    string // <resource>.<action>; used in logs
	Method  string
	Path    string // mux template; the metrics label
	Success int
	Public  bool // no bearer token (token endpoint, health, control plane)
	Admin   bool // /_sandbox: the admin token applies when configured
	// ServerWide routes act on no one workspace (the workspace list and
	// creation): only the server's admin token opens them, never a
	// workspace's, whatever X-Sandbox-Workspace names.
	ServerWide bool
	// Exclusive routes run alone: the wrapper holds the server's request lock
	// for writing around them, and for reading around every other route.
	Exclusive bool
	// NoJournal routes are left out of the request journal (its own routes).
	NoJournal bool
	// BodyLimit, when above the default 1 MiB, is the largest body the route
	// reads (a workspace created from a snapshot); its handler reads it.
	BodyLimit int64
	// Handle serves the route; nil answers 501 once authenticated.
	Handle HandlerFunc

	// shape is the family's error shape (the minimal one unless set): the
	// token and extended shapes belong to contract routes only.
	shape shape
	// overrides maps codes to statuses where the spec departs from the kind's default.
	overrides map[pix.Code]int
	// faultable routes get network faults: the contract's, not /healthz
	// (initFaults).
	faultable bool
}

// routeTable is the PIX API surface on one screen. Every route of the spec is
// here, plus GET and PATCH /cob/{txid} and GET /pix/{e2eid}/devolucao/{id} from
// the Central Bank reference, so every protected route answers 401 in its
// family's shape from the start; those this version does not serve yet answer
// 501 once authenticated (Gap G-09). docs/openapi.yaml must list every route
// (openapi_test.go).
func (s *Server) routeTable() []*Route {
	return []*Route{
		// Spec "POST /api/auth/token": response 201; token error shape.
		{Name: "auth.token", Method: http.MethodPost, Path: "/api/auth/token", shape: tokenShape, Success: http.StatusCreated, Public: true, Handle: s.handleAuthToken},

		// Gap G-07: success status of GET /accounts/balances is not shown; 200.
		{Name: "balance.bacen", Method: http.MethodGet, Path: "/accounts/balances", Success: http.StatusOK, Handle: s.handleBalanceBacen},
		// Spec "What the service does": GET /balance, also written GET /api/balance.
		{Name: "balance.get", Method: http.MethodGet, Path: "/balance", Success: http.StatusOK, Handle: s.handleBalanceStandard},
		{Name: "balance.get.api", Method: http.MethodGet, Path: "/api/balance", Success: http.StatusOK, Handle: s.handleBalanceStandard},

		// Gap G-12: success status of POST /dict/pix is not shown; 200. Spec "Errors >
		// Central Bank-compatible routes": insufficient balance is 422 here, and so
		// are the limits, this route's business refusals (Gap G-24).
		{Name: "transfer.create", Method: http.MethodPost, Path: "/dict/pix", Success: http.StatusOK, Handle: s.handleTransferCreate,
			overrides: map[pix.Code]int{pix.CodePixInsufficientBalance: http.StatusUnprocessableEntity,
				pix.CodePixTransactionLimitExceeded: http.StatusUnprocessableEntity, pix.CodePixDailyLimitExceeded: http.StatusUnprocessableEntity,
				pix.CodePixNightLimitExceeded: http.StatusUnprocessableEntity}},
		// Spec "POST /api/pix/cash-out": response 201; extended error shape.
		{Name: "cashout.create", Method: http.MethodPost, Path: "/api/pix/cash-out", shape: extendedShape, Success: http.StatusCreated, Handle: s.handleCashOutCreate},
		// Spec "POST /api/pix/cash-in": response 201; extended error shape.
		{Name: "cashin.create", Method: http.MethodPost, Path: "/api/pix/cash-in", shape: extendedShape, Success: http.StatusCreated, Handle: s.handleCashInCreate},
		// Gap G-12: PUT /cob answers 201 as the Central Bank reference does.
		{Name: "cob.put", Method: http.MethodPut, Path: "/cob/{txid}", Success: http.StatusCreated, Handle: s.handleCobPut},
		{Name: "cob.get", Method: http.MethodGet, Path: "/cob/{txid}", Success: http.StatusOK, Handle: s.handleCobGet},
		{Name: "cob.patch", Method: http.MethodPatch, Path: "/cob/{txid}", Success: http.StatusOK, Handle: s.handleCobPatch},
		// Gap G-12: PUT devolucao answers 201 as the Central Bank reference does. Spec
		// "PUT /pix/{e2eid}/devolucao/{id}": 422 deadline expired.
		{Name: "refund.put", Method: http.MethodPut, Path: "/pix/{e2eid}/devolucao/{id}", Success: http.StatusCreated, Handle: s.handleRefundPut},
		{Name: "refund.get", Method: http.MethodGet, Path: "/pix/{e2eid}/devolucao/{id}", Success: http.StatusOK, Handle: s.handleRefundGet},
		// Spec "POST /api/pix/refund-in/{id}": 201; deadline exceeded and a parent
		// that is not a receipt are 400 here; an unknown parent 404.
		{Name: "refundin.create", Method: http.MethodPost, Path: "/api/pix/refund-in/{id}", Success: http.StatusCreated, Handle: s.handleRefundInCreate,
			overrides: map[pix.Code]int{pix.CodeRefundDeadlineExpired: http.StatusBadRequest, pix.CodeRefundNotAReceipt: http.StatusBadRequest}},
		{Name: "med.list", Method: http.MethodGet, Path: "/api/med", Success: http.StatusOK, Handle: s.handleMEDList},
		{Name: "transactions.bykey", Method: http.MethodGet, Path: "/api/pix/transactions/pix-key/{pixKey}", Success: http.StatusOK, Handle: s.handleTransactionsByKey},
		{Name: "transactions.list", Method: http.MethodGet, Path: "/api/transactions", Success: http.StatusOK, Handle: s.handleTransactionsList},
		{Name: "webhooks.create", Method: http.MethodPost, Path: "/api/webhooks", Success: http.StatusOK, Handle: s.handleWebhooksCreate},
		{Name: "webhooks.list", Method: http.MethodGet, Path: "/api/webhooks", Success: http.StatusOK, Handle: s.handleWebhooksList},
		{Name: "webhooks.resend", Method: http.MethodPost, Path: "/api/resend-webhook/{transactionIdentifier}", Success: http.StatusOK, Handle: s.handleWebhookResend},

		{Name: "health", Method: http.MethodGet, Path: "/healthz", Success: http.StatusOK, Public: true, Handle: s.handleHealth},
	}
}

// handleHealth answers GET /healthz: status ok and, when the server knows
// it, its version.
func (s *Server) handleHealth(*http.Request) (any, error) {
	if s.version != "" {
		return map[string]string{"status": "ok", "version": s.version}, nil
	}
	return map[string]string{"status": "ok"}, nil
}

// unmatchedRoute is the route template of a request no route matched (the
// metrics label, the journal's route).
const unmatchedRoute = "(unmatched)"

// handleUnmatched answers a path no route matches: 401 without a valid token
// (so unknown paths reveal nothing to anonymous callers), else 404 or 405.
// The 404 names the nearest routes and what differs, the 405 the methods the
// path allows (also in Allow); under /_sandbox a 405 names them only with
// the admin token when one is configured, as the 404 is answered only then.
func (s *Server) handleUnmatched(k pix.Kind) HandlerFunc {
	return func(r *http.Request) (any, error) {
		sandbox := isSandboxPath(r.URL.Path)
		if !sandbox {
			if _, err := s.authenticate(r); err != nil {
				return nil, err
			}
		}
		misses := s.nearMissesOf(r)
		path := pix.Clip(r.URL.Path, 200)
		if k == pix.KindMethodNotAllowed {
			msg := "method " + r.Method + " is not allowed on " + path
			if allowed := strings.Join(allowedMethods(misses), ", "); allowed != "" {
				setHeader(r, "Allow", allowed)
				msg += "; allowed methods: " + allowed
			}
			return nil, pix.Errorf(k, pix.CodeNotFound, "%s", msg)
		}
		msg := "no route " + r.Method + " " + path
		if len(misses) > 0 {
			msg += "; " + nearMissClause(misses)
		}
		return nil, pix.Errorf(k, pix.CodeNotFound, "%s", msg)
	}
}
