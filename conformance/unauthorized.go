package conformance

import (
	"context"
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
)

// protectedRoute is a route that requires a bearer token, with a plausible
// request so that only the token can be at fault.
type protectedRoute struct {
	method string
	// template is the route as the specification writes it.
	template string
	// path returns a concrete path for the spec.
	path func(f *framework.Framework) string
	// body returns a plausible JSON body, or nil.
	body func(f *framework.Framework) []byte
	// headers returns extra request headers, or nil.
	headers func(f *framework.Framework) http.Header
	res     string
}

// String returns the route as the specification writes it, e.g. "PUT /cob/{txid}".
func (r protectedRoute) String() string { return r.method + " " + r.template }

// contract returns the route in the contract's route table, which says its
// family, its error shape and whether the specification lists it.
func (r protectedRoute) contract() *contract.Route {
	rt, _ := contract.Match(r.method, r.template)
	if rt == nil || rt.String() != r.String() {
		panic("conformance: " + r.String() + " is not in the contract's route table")
	}
	return rt
}

// bacen marks the Central Bank-compatible routes.
func (r protectedRoute) bacen() bool { return r.contract().Family == contract.CentralBank }

// extended marks the routes answering in the extended error shape.
func (r protectedRoute) extended() bool { return r.contract().Shape == contract.ExtendedShape }

// choice marks the routes added from the Central Bank reference, not in the
// specification.
func (r protectedRoute) choice() bool { return r.contract().Reference }

// labels returns the Ginkgo labels of the route's checks.
func (r protectedRoute) labels() ginkgo.Labels {
	l := ginkgo.Labels{framework.LabelSpec}
	if r.choice() {
		l = ginkgo.Labels{framework.LabelSandboxChoice}
	}
	family := framework.FamilyStd
	if r.bacen() {
		family = framework.FamilyBacen
	}
	l = append(l, family...)
	return append(l, framework.Res(r.res)...)
}

// Plausible path parameters: well-formed, never created.
const (
	sampleE2EID = "E12345678202401011200abcdefghijk" // 32 alphanumerics, Central Bank form
	sampleCPF   = "12345678909"                      // a CPF with valid check digits
)

func fixedPath(p string) func(*framework.Framework) string {
	return func(*framework.Framework) string { return p }
}

func jsonBody(format string, args ...any) func(*framework.Framework) []byte {
	return func(*framework.Framework) []byte { return fmt.Appendf(nil, format, args...) }
}

// txidPath returns /cob/<txid> with a fresh 33-character txid.
func txidPath(f *framework.Framework) string { return "/cob/" + f.UniqueID("conformancetx") }

// refundPath returns /pix/<e2eid>/devolucao/<id> with a fresh id.
func refundPath(f *framework.Framework) string {
	return "/pix/" + sampleE2EID + "/devolucao/" + f.UniqueID("dev")
}

// protectedRoutes lists every protected route of the specification
// ("Endpoints": all endpoints except the token endpoint require the bearer
// token) and the three routes added from the Central Bank reference.
var protectedRoutes = []protectedRoute{
	{method: http.MethodGet, template: "/accounts/balances", path: fixedPath("/accounts/balances"), res: "balance"},
	{method: http.MethodGet, template: "/balance", path: fixedPath("/balance"), res: "balance"},
	{method: http.MethodGet, template: "/api/balance", path: fixedPath("/api/balance"), res: "balance"},
	{
		method: http.MethodPost, template: "/dict/pix", path: fixedPath("/dict/pix"), res: "transfer",
		body: jsonBody(`{"pixKey":%q,"priority":"NORM","description":"conformance","payment":{"currency":"BRL","amount":1.00}}`, sampleCPF),
		headers: func(*framework.Framework) http.Header {
			return http.Header{"X-Idempotency-Key": {framework.UUIDv4()}}
		},
	},
	{
		method: http.MethodPost, template: "/api/pix/cash-out", path: fixedPath("/api/pix/cash-out"), res: "cash-out",
		body: func(f *framework.Framework) []byte {
			return fmt.Appendf(nil, `{"value":1.00,"externalId":%q,"description":"conformance","details":{"key":%q,"keyType":"DOCUMENT","name":"Fulano de Tal","document":%q}}`,
				f.UniqueID("ext"), sampleCPF, sampleCPF)
		},
	},
	{
		method: http.MethodPost, template: "/api/pix/cash-in", path: fixedPath("/api/pix/cash-in"), res: "cash-in",
		body: func(f *framework.Framework) []byte {
			return fmt.Appendf(nil, `{"transaction":{"value":10.00,"description":"conformance","externalId":%q},"payer":{"fullName":"Fulano de Tal","document":%q}}`,
				f.UniqueID("ext"), sampleCPF)
		},
	},
	{
		method: http.MethodPut, template: "/cob/{txid}", path: txidPath, res: "cob",
		body: jsonBody(`{"calendario":{"expiracao":3600},"valor":{"original":"10.00"},"chave":%q,"solicitacaoPagador":"conformance"}`, sampleCPF),
	},
	{
		method: http.MethodPut, template: "/pix/{e2eid}/devolucao/{id}", path: refundPath, res: "refund",
		body: jsonBody(`{"valor":"1.00","natureza":"ORIGINAL","descricao":"conformance"}`),
	},
	{
		method: http.MethodPost, template: "/api/pix/refund-in/{id}", path: fixedPath("/api/pix/refund-in/123456"), res: "refund-in",
		body: jsonBody(`{"refundValue":1.00,"reason":"conformance"}`),
	},
	{method: http.MethodGet, template: "/api/med", path: fixedPath("/api/med?page=1&pageSize=20"), res: "med"},
	{method: http.MethodGet, template: "/api/pix/transactions/pix-key/{pixKey}", path: fixedPath("/api/pix/transactions/pix-key/" + sampleCPF), res: "transactions"},
	{method: http.MethodGet, template: "/api/transactions", path: fixedPath("/api/transactions?page=1&size=20"), res: "transactions"},
	{
		method: http.MethodPost, template: "/api/webhooks", path: fixedPath("/api/webhooks"), res: "webhooks",
		body: jsonBody(`{"url":"https://example.com/pix/hooks","eventType":"cash_in"}`),
	},
	{method: http.MethodGet, template: "/api/webhooks", path: fixedPath("/api/webhooks"), res: "webhooks"},
	{
		method: http.MethodPost, template: "/api/resend-webhook/{transactionIdentifier}", path: fixedPath("/api/resend-webhook/123456"), res: "webhooks",
		body: jsonBody(`{"url":"https://example.com/pix/hooks"}`),
	},
	{method: http.MethodGet, template: "/cob/{txid}", path: txidPath, res: "cob"},
	{
		method: http.MethodPatch, template: "/cob/{txid}", path: txidPath, res: "cob",
		body: jsonBody(`{"solicitacaoPagador":"conformance"}`),
	},
	{method: http.MethodGet, template: "/pix/{e2eid}/devolucao/{id}", path: refundPath, res: "refund"},
}

// badToken is one way of presenting a bearer token the target must refuse.
type badToken struct {
	desc  string
	token func(ctx context.Context, f *framework.Framework) string
}

var badTokens = []badToken{
	{desc: "without an Authorization header", token: func(context.Context, *framework.Framework) string { return "" }},
	{desc: "with a bearer token that is not a JWT", token: func(context.Context, *framework.Framework) string { return codec.MalformedToken }},
	{desc: "with a token re-signed by another key", token: func(ctx context.Context, f *framework.Framework) string {
		ginkgo.GinkgoHelper()
		return alteredToken(ctx, f, func(tok string) (string, error) { return codec.ResignHS256(tok, codec.RandomKey()) })
	}},
	{desc: `with an "alg":"none" token`, token: func(ctx context.Context, f *framework.Framework) string {
		ginkgo.GinkgoHelper()
		return alteredToken(ctx, f, codec.AlgNone)
	}},
}

// alteredToken returns the spec's token changed by alter. A run whose token
// is not a JWT (-token or -token-command with an opaque token, -auth none)
// has no JWT to alter: the check is skipped, saying so.
func alteredToken(ctx context.Context, f *framework.Framework, alter func(string) (string, error)) string {
	ginkgo.GinkgoHelper()
	tok := f.Token(ctx)
	t, err := alter(tok)
	if err != nil && f.Account == nil && f.Config.Auth != framework.AuthTokenRoute {
		ginkgo.Skip("the run's token (-auth " + f.Config.Auth + ") is not a JWT to alter: " + err.Error())
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return t
}

// callProtected sends the route's plausible request with token.
func callProtected(ctx context.Context, f *framework.Framework, r protectedRoute, token string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	var body []byte
	if r.body != nil {
		body = r.body(f)
	}
	var h http.Header
	if r.headers != nil {
		h = r.headers(f)
	}
	return f.Do(ctx, r.method, r.path(f), token, body, h)
}

// expectUnauthorized checks a 401, with code HTTP_ERROR on the routes of the
// cash-out and cash-in table. The route family's error shape is checked on
// its own (errors/minimal-shape, errors/extended-shape).
func expectUnauthorized(resp *apiclient.Response, r protectedRoute) {
	ginkgo.GinkgoHelper()
	gomega.Expect(resp).To(framework.HaveStatus(http.StatusUnauthorized))
	if r.extended() {
		gomega.Expect(resp).To(framework.HaveErrorCode("HTTP_ERROR"))
	}
}

var _ = ginkgo.Describe("Protected routes", framework.Res("auth"), func() {
	f := framework.New("unauthorized")

	/*
		Check: unauthorized/<route>/<token fault>
		Spec: "Endpoints" (every endpoint but the token endpoint requires Authorization: Bearer); "Authentication", rule 6; "Errors > Shapes"; "Errors > Cash-out and cash-in codes", 401 HTTP_ERROR; "Errors > Central Bank-compatible routes", 401
		Description: Every protected route, sent a plausible request without a token, with a token
		that is not a JWT, with a token re-signed by another key, or with an "alg":"none" token, MUST
		answer 401, with code HTTP_ERROR on POST /api/pix/cash-out and POST /api/pix/cash-in (the
		error shapes are checked by errors/*-shape). The three routes added from the Central
		Bank reference (GET /cob/{txid}, PATCH /cob/{txid}, GET /pix/{e2eid}/devolucao/{id}) are
		sandbox choices, labelled sandbox-choice.
	*/
	table := []any{func(ctx ginkgo.SpecContext, r protectedRoute, bt badToken) {
		expectUnauthorized(callProtected(ctx, f, r, bt.token(ctx, f)), r)
	}}
	for _, r := range protectedRoutes {
		for _, bt := range badTokens {
			table = append(table, ginkgo.Entry(fmt.Sprintf("%s %s", r, bt.desc), r.labels(), r, bt))
		}
	}
	ginkgo.DescribeTable("answer 401 to a request without a valid token", table...)

	/*
		Check: unauthorized/expired-token
		Spec: "Authentication", rules 2 and 6 (valid 1800 seconds; 401 when expired); "Errors > Shapes"
		Sandbox: POST /_sandbox/clock/advance
		Description: A token that GET /accounts/balances accepted MUST, 1801 seconds later on the
		simulation clock, be answered 401 on every protected route.
	*/
	framework.SandboxIt("answer 401 on every protected route once the token has expired", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		tok := f.Token(ctx)
		f.Needs(ctx, "GET /accounts/balances")
		gomega.Expect(f.Do(ctx, http.MethodGet, "/accounts/balances", tok, nil, nil)).To(framework.HaveSuccessStatus())
		_, err := f.Sandbox.Advance(ctx, 1801)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, r := range protectedRoutes {
			ginkgo.By(r.String())
			expectUnauthorized(callProtected(ctx, f, r, tok), r)
		}
	})
})
