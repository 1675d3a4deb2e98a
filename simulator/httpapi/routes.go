package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// handlerFunc parses a request, calls the core and returns the response body, or
// an error that the wrapper renders in the route's shape.
type handlerFunc func(r *http.Request) (any, error)

// route is one row of the API surface: its family's error shape, its success
// status and whether it needs a bearer token.
type route struct {
	name    string // <resource>.<action>; used in logs
	method  string
	path    string // mux template; the metrics label
	shape   shape
	success int
	public  bool // no bearer token (token endpoint, health, control plane)
	sandbox bool // /_sandbox: the admin token applies when configured
	// exclusive routes run alone: the wrapper holds Server.resetMu for
	// writing around them, and for reading around every other route.
	exclusive bool
	// noJournal routes are left out of the request journal (its own routes).
	noJournal bool
	// overrides maps codes to statuses where the spec departs from the kind's default.
	overrides map[pix.Code]int
	// handle serves the route; nil answers 501 once authenticated.
	handle handlerFunc
}

// routeTable is the PIX API surface on one screen. Every route of the spec is
// here, plus GET and PATCH /cob/{txid} and GET /pix/{e2eid}/devolucao/{id} from
// the Central Bank reference, so every protected route answers 401 in its
// family's shape from the start; those this version does not serve yet answer
// 501 once authenticated (Gap G-09). docs/openapi.yaml must list every route
// (openapi_test.go).
func (s *Server) routeTable() []*route {
	return []*route{
		// Spec "POST /api/auth/token": response 201; token error shape.
		{name: "auth.token", method: http.MethodPost, path: "/api/auth/token", shape: tokenShape, success: http.StatusCreated, public: true, handle: s.handleAuthToken},

		// Gap G-07: success status of GET /accounts/balances is not shown; 200.
		{name: "balance.bacen", method: http.MethodGet, path: "/accounts/balances", success: http.StatusOK, handle: s.handleBalanceBacen},
		// Spec "What the service does": GET /balance, also written GET /api/balance.
		{name: "balance.get", method: http.MethodGet, path: "/balance", success: http.StatusOK, handle: s.handleBalanceStandard},
		{name: "balance.get.api", method: http.MethodGet, path: "/api/balance", success: http.StatusOK, handle: s.handleBalanceStandard},

		// Gap G-12: success status of POST /dict/pix is not shown; 200. Spec "Errors >
		// Central Bank-compatible routes": insufficient balance is 422 here, and so
		// are the limits, this route's business refusals (Gap G-24).
		{name: "transfer.create", method: http.MethodPost, path: "/dict/pix", success: http.StatusOK, handle: s.handleTransferCreate,
			overrides: map[pix.Code]int{pix.CodePixInsufficientBalance: http.StatusUnprocessableEntity,
				pix.CodePixTransactionLimitExceeded: http.StatusUnprocessableEntity, pix.CodePixDailyLimitExceeded: http.StatusUnprocessableEntity,
				pix.CodePixNightLimitExceeded: http.StatusUnprocessableEntity}},
		// Spec "POST /api/pix/cash-out": response 201; extended error shape.
		{name: "cashout.create", method: http.MethodPost, path: "/api/pix/cash-out", shape: extendedShape, success: http.StatusCreated, handle: s.handleCashOutCreate},
		// Spec "POST /api/pix/cash-in": response 201; extended error shape.
		{name: "cashin.create", method: http.MethodPost, path: "/api/pix/cash-in", shape: extendedShape, success: http.StatusCreated, handle: s.handleCashInCreate},
		// Gap G-12: PUT /cob answers 201 as the Central Bank reference does.
		{name: "cob.put", method: http.MethodPut, path: "/cob/{txid}", success: http.StatusCreated, handle: s.handleCobPut},
		{name: "cob.get", method: http.MethodGet, path: "/cob/{txid}", success: http.StatusOK, handle: s.handleCobGet},
		{name: "cob.patch", method: http.MethodPatch, path: "/cob/{txid}", success: http.StatusOK, handle: s.handleCobPatch},
		// Gap G-12: PUT devolucao answers 201 as the Central Bank reference does. Spec
		// "PUT /pix/{e2eid}/devolucao/{id}": 422 deadline expired.
		{name: "refund.put", method: http.MethodPut, path: "/pix/{e2eid}/devolucao/{id}", success: http.StatusCreated, handle: s.handleRefundPut},
		{name: "refund.get", method: http.MethodGet, path: "/pix/{e2eid}/devolucao/{id}", success: http.StatusOK, handle: s.handleRefundGet},
		// Spec "POST /api/pix/refund-in/{id}": 201; deadline exceeded and a parent
		// that is not a receipt are 400 here; an unknown parent 404.
		{name: "refundin.create", method: http.MethodPost, path: "/api/pix/refund-in/{id}", success: http.StatusCreated, handle: s.handleRefundInCreate,
			overrides: map[pix.Code]int{pix.CodeRefundDeadlineExpired: http.StatusBadRequest, pix.CodeRefundNotAReceipt: http.StatusBadRequest}},
		{name: "med.list", method: http.MethodGet, path: "/api/med", success: http.StatusOK, handle: s.handleMEDList},
		{name: "transactions.bykey", method: http.MethodGet, path: "/api/pix/transactions/pix-key/{pixKey}", success: http.StatusOK, handle: s.handleTransactionsByKey},
		{name: "transactions.list", method: http.MethodGet, path: "/api/transactions", success: http.StatusOK, handle: s.handleTransactionsList},
		{name: "webhooks.create", method: http.MethodPost, path: "/api/webhooks", success: http.StatusOK, handle: s.handleWebhooksCreate},
		{name: "webhooks.list", method: http.MethodGet, path: "/api/webhooks", success: http.StatusOK, handle: s.handleWebhooksList},
		{name: "webhooks.resend", method: http.MethodPost, path: "/api/resend-webhook/{transactionIdentifier}", success: http.StatusOK, handle: s.handleWebhookResend},

		{name: "health", method: http.MethodGet, path: "/healthz", success: http.StatusOK, public: true, handle: s.handleHealth},
	}
}

// handleHealth answers GET /healthz.
func (s *Server) handleHealth(*http.Request) (any, error) {
	return map[string]string{"status": "ok"}, nil
}

// handleUnmatched answers a path no route matches: 401 without a valid token
// (so unknown paths reveal nothing to anonymous callers), else 404 or 405.
func (s *Server) handleUnmatched(k pix.Kind) handlerFunc {
	return func(r *http.Request) (any, error) {
		if !isSandboxPath(r.URL.Path) {
			if _, err := s.authenticate(r); err != nil {
				return nil, err
			}
		}
		if k == pix.KindMethodNotAllowed {
			return nil, pix.Errorf(k, pix.CodeNotFound, "method %s is not allowed on %s", r.Method, truncate(r.URL.Path, 200))
		}
		return nil, pix.Errorf(k, pix.CodeNotFound, "no route %s %s", r.Method, truncate(r.URL.Path, 200))
	}
}
