package contract

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Shape is one of the contract's three error shapes ("Errors > Shapes").
type Shape int

const (
	// MinimalShape: statusCode, message, error. Every route but the two below.
	MinimalShape Shape = iota
	// TokenShape: the token endpoint's shape (item 1).
	TokenShape
	// ExtendedShape: cash-out and cash-in (item 2).
	ExtendedShape
)

// String names the shape as docs and findings do.
func (s Shape) String() string {
	switch s {
	case TokenShape:
		return "token error shape"
	case ExtendedShape:
		return "extended error shape"
	}
	return "minimal error shape"
}

// Family is a route family ("What the service does").
type Family string

const (
	// Standard routes live under /api/... (and GET /balance).
	Standard Family = "standard"
	// CentralBank routes are the Central Bank-compatible ones.
	CentralBank Family = "central-bank"
)

// pathParam is the format rule of one path parameter.
type pathParam struct {
	name   string
	format format
	minLen int
	maxLen int
}

// Route is one route of the contract: what it may answer and what its
// bodies hold.
type Route struct {
	Name     string
	Method   string
	Template string
	// Section is the heading of the route's endpoint.
	Section string
	Family  Family
	Shape   Shape
	// Public routes take no bearer token (the token endpoint).
	Public bool
	// Reference routes are not in the contract's endpoint list but named by
	// the Central Bank-compatible family (GET and PATCH /cob/{txid}, GET
	// /pix/{e2eid}/devolucao/{id}): their resources are the contract's, their
	// statuses are not judged.
	Reference bool
	// Success lists the success statuses the contract states; nil means
	// "Success status code: not shown" (any 2xx).
	Success []int
	// Errors lists the error statuses the contract gives the route (401 is
	// added for every protected route, "Authentication" rule 6).
	Errors []int
	// StatusNotShown: the contract shows no statuses for the route.
	StatusNotShown bool
	// Codes maps each machine code of the route's error shape to its
	// statuses (token and extended shapes; the minimal shape has no code).
	Codes map[string][]int

	response   []field
	request    []field
	bodyNeeded bool // the route takes a JSON body (POST/PUT with a body table)
	query      []field
	params     []pathParam
	tsegs      []string // Template split at "/", once (init)
}

func init() {
	for _, r := range routes {
		r.tsegs = strings.Split(r.Template, "/")
	}
}

// CodeStatuses returns the statuses the contract gives code on the route, and
// whether it lists the code for the route at all (the token and extended
// shapes carry codes; the minimal shape has none).
func (r *Route) CodeStatuses(code string) ([]int, bool) {
	statuses, listed := r.Codes[code]
	return statuses, listed
}

// String is the route as the contract writes it: "PUT /cob/{txid}".
func (r *Route) String() string { return r.Method + " " + r.Template }

// allowed reports whether status is one the route may answer.
func (r *Route) allowed(status int) bool {
	if r.StatusNotShown || r.Reference {
		return true
	}
	if status >= 200 && status <= 299 && (r.Success == nil || slices.Contains(r.Success, status)) {
		return true
	}
	return slices.Contains(r.Errors, status) || (!r.Public && status == http.StatusUnauthorized)
}

// allowedText lists the statuses the route may answer.
func (r *Route) allowedText() string {
	var parts []string
	if r.Success == nil {
		parts = append(parts, "a 2xx")
	}
	for _, s := range r.Success {
		parts = append(parts, strconv.Itoa(s))
	}
	errs := slices.Clone(r.Errors)
	if !r.Public && !slices.Contains(errs, http.StatusUnauthorized) {
		errs = append(errs, http.StatusUnauthorized)
	}
	slices.Sort(errs)
	for _, s := range errs {
		parts = append(parts, strconv.Itoa(s))
	}
	return strings.Join(parts, ", ")
}

var tokenCodes = map[string][]int{
	"PUB_CERT_HEADER_MISSING": {400}, "PUB_CERT_MALFORMED_PEM": {400}, "PUB_REQUEST_BODY_INVALID": {400},
	"PUB_CERT_NOT_YET_VALID": {401}, "PUB_CERT_EXPIRED": {401}, "PUB_CERT_NOT_REGISTERED": {401}, "PUB_INVALID_CREDENTIALS": {401},
	"PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT": {403}, "PUB_AUTH_UPSTREAM_ERROR": {502}, "PUB_AUTH_UPSTREAM_UNAVAILABLE": {503},
}

var extendedCodes = map[string][]int{
	"HTTP_ERROR": {400, 401, 500}, "PIX_INSUFFICIENT_BALANCE": {400}, "PIX_TRANSACTION_LIMIT_EXCEEDED": {400},
	"PIX_DAILY_LIMIT_EXCEEDED": {400}, "PIX_NIGHT_LIMIT_EXCEEDED": {400}, "PIX_INVALID_AMOUNT": {400},
	"PIX_INVALID_PIX_KEY": {400}, "PIX_DUPLICATE_EXTERNAL_ID": {400}, "PROVIDER_EXPIRATION_BELOW_MINIMUM": {400},
}

var (
	txidParam   = pathParam{name: "txid", format: fTxid}
	e2eidParam  = pathParam{name: "e2eid", format: fAlnum32}
	refundParam = pathParam{name: "id", minLen: 1, maxLen: 35}
)

// routes is the route table: every route of "Endpoints" and the three the
// Central Bank-compatible family names from its reference. The conformance
// suite probes them in this order (conformance/routes.go).
var routes = []*Route{
	{Name: "auth.token", Method: http.MethodPost, Template: "/api/auth/token", Section: "Endpoints > POST /api/auth/token", Family: Standard,
		Shape: TokenShape, Public: true, Success: []int{201}, Errors: []int{400, 401, 403, 502, 503}, Codes: tokenCodes,
		response: tokenResponse, request: tokenRequest, bodyNeeded: true},
	{Name: "balance.get", Method: http.MethodGet, Template: "/balance", Section: secStdBal, Family: Standard,
		StatusNotShown: true, response: standardBalanceResponse},
	{Name: "balance.get.api", Method: http.MethodGet, Template: "/api/balance", Section: secStdBal, Family: Standard,
		StatusNotShown: true, response: standardBalanceResponse},
	{Name: "balance.bacen", Method: http.MethodGet, Template: "/accounts/balances", Section: "Endpoints > GET /accounts/balances", Family: CentralBank,
		Errors: []int{401}, response: balanceResponse},
	{Name: "transfer.create", Method: http.MethodPost, Template: "/dict/pix", Section: secDict, Family: CentralBank,
		Errors: []int{400, 401, 422}, response: transferResponse, request: transferRequest, bodyNeeded: true},
	{Name: "cashout.create", Method: http.MethodPost, Template: "/api/pix/cash-out", Section: secCashOut, Family: Standard,
		Shape: ExtendedShape, Success: []int{201}, Errors: []int{400, 401}, Codes: extendedCodes,
		response: cashOutResponse, request: cashOutRequest, bodyNeeded: true},
	{Name: "cashin.create", Method: http.MethodPost, Template: "/api/pix/cash-in", Section: secCashIn, Family: Standard,
		Shape: ExtendedShape, Success: []int{201}, Errors: []int{400, 401, 500}, Codes: extendedCodes,
		response: cashInResponse, request: cashInRequest, bodyNeeded: true},
	{Name: "cob.put", Method: http.MethodPut, Template: "/cob/{txid}", Section: secCob, Family: CentralBank,
		Errors: []int{400, 401, 409}, response: cobCreated, request: cobRequest, bodyNeeded: true, params: []pathParam{txidParam}},
	{Name: "cob.get", Method: http.MethodGet, Template: "/cob/{txid}", Section: ResCob + " (GET, from the Central Bank reference)", Family: CentralBank,
		Reference: true, response: cobResponse},
	{Name: "cob.patch", Method: http.MethodPatch, Template: "/cob/{txid}", Section: ResCob + " (PATCH, from the Central Bank reference)", Family: CentralBank,
		Reference: true, response: cobResponse},
	{Name: "refund.put", Method: http.MethodPut, Template: "/pix/{e2eid}/devolucao/{id}", Section: secRefund, Family: CentralBank,
		Errors: []int{400, 401, 404, 422}, response: refundResponse, request: refundRequest, bodyNeeded: true,
		params: []pathParam{e2eidParam, refundParam}},
	{Name: "refund.get", Method: http.MethodGet, Template: "/pix/{e2eid}/devolucao/{id}", Section: ResRefund + " (GET, from the Central Bank reference)", Family: CentralBank,
		Reference: true, response: refundResponse},
	{Name: "refundin.create", Method: http.MethodPost, Template: "/api/pix/refund-in/{id}", Section: secRefundIn, Family: Standard,
		Success: []int{201}, Errors: []int{400, 401, 404, 500}, response: refundInResponse, request: refundInRequest, bodyNeeded: true},
	{Name: "med.list", Method: http.MethodGet, Template: "/api/med", Section: secMEDRoute, Family: Standard,
		Success: []int{200}, Errors: []int{400, 401, 429, 500}, response: medListResponse, query: medQuery},
	{Name: "transactions.bykey", Method: http.MethodGet, Template: "/api/pix/transactions/pix-key/{pixKey}",
		Section: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}", Family: Standard,
		Success: []int{200}, Errors: []int{400, 401}, response: keyListingResponse,
		query: listingQuery("Endpoints > GET /api/pix/transactions/pix-key/{pixKey}", "1000")},
	{Name: "transactions.list", Method: http.MethodGet, Template: "/api/transactions", Section: "Endpoints > GET /api/transactions", Family: Standard,
		Success: []int{200}, Errors: []int{400, 401}, response: listingResponse, query: listingQuery("Endpoints > GET /api/transactions", "100")},
	{Name: "webhooks.create", Method: http.MethodPost, Template: "/api/webhooks", Section: secWebhooks, Family: Standard,
		Success: []int{200}, Errors: []int{400, 401, 404, 500}, response: webhookCreateResponse, request: webhookCreateRequest},
	{Name: "webhooks.list", Method: http.MethodGet, Template: "/api/webhooks", Section: secWebhooksG, Family: Standard,
		Success: []int{200}, Errors: []int{401, 404}, response: webhookListResponse},
	{Name: "webhooks.resend", Method: http.MethodPost, Template: "/api/resend-webhook/{transactionIdentifier}", Section: secResend, Family: Standard,
		Success: []int{200}, Errors: []int{400, 401, 404, 429}, response: resendResponse, request: resendRequest},
}

// Routes returns the route table.
func Routes() []*Route { return slices.Clone(routes) }

// Match returns the route of method and path (decoded) and its path
// parameters, or nil when the exchange is not on a route of the contract.
func Match(method, path string) (*Route, map[string]string) {
	segs := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for _, r := range routes {
		if r.Method != method {
			continue
		}
		if params, ok := matchTemplate(r.tsegs, segs); ok {
			return r, params
		}
	}
	return nil, nil
}

func matchTemplate(tsegs, segs []string) (map[string]string, bool) {
	if len(tsegs) != len(segs) {
		return nil, false
	}
	var params map[string]string
	for i, t := range tsegs {
		if name, ok := strings.CutPrefix(t, "{"); ok {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[strings.TrimSuffix(name, "}")] = segs[i]
			continue
		}
		if t != segs[i] {
			return nil, false
		}
	}
	return params, true
}
