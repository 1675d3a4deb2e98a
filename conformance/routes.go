package conformance

import (
	"regexp"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Before the first check of a route runs, the framework establishes that the
// target implements the route (framework.RouteProbe): each probe below is a
// well-formed request that changes nothing on the target (a read, or a body
// the route must refuse). The checks of a route the target lacks are reported
// absent, never run, so that "unknown id → 404" cannot pass on a target's
// generic not-found.
func init() {
	framework.RegisterRoutes(routeProbes()...)
}

// unauthorizedCheck is the text that starts the 401 checks of one route.
const unauthorizedCheck = "Protected routes answer 401 to a request without a valid token "

// probe returns the probe of route ("METHOD /template") sending body to the
// paths path returns; its checks are those of the route's container and its
// 401 checks.
func probe(route string, path func() string, body string) framework.RouteProbe {
	method, _, _ := strings.Cut(route, " ")
	p := framework.RouteProbe{
		Route:  route,
		Method: method,
		Path:   path,
		Checks: framework.Pattern(`^(` + regexp.QuoteMeta(route) + `|` + regexp.QuoteMeta(unauthorizedCheck+route) + `) `),
	}
	if body != "" {
		p.Body = []byte(body)
	}
	return p
}

func constPath(p string) func() string { return func() string { return p } }

// uniqueID is framework.Framework.UniqueID outside a spec.
func uniqueID(prefix string) string { return (&framework.Framework{}).UniqueID(prefix) }

func routeProbes() []framework.RouteProbe {
	txid := func() string { return "/cob/" + uniqueID("conformanceprobe") }
	refund := func() string { return "/pix/" + sampleE2EID + "/devolucao/" + uniqueID("probe") }
	token := probe("POST "+apiclient.TokenPath, constPath(apiclient.TokenPath), "{}")
	token.Public = true
	balance := probe("GET /balance", constPath("/balance"), "")
	balance.Checks = framework.Pattern(`^(GET /balance and GET /api/balance GET /balance|` + regexp.QuoteMeta(unauthorizedCheck) + `GET /balance) `)
	apiBalance := probe("GET /api/balance", constPath("/api/balance"), "")
	apiBalance.Checks = framework.Pattern(`^(GET /balance and GET /api/balance GET /api/balance|` + regexp.QuoteMeta(unauthorizedCheck) + `GET /api/balance) `)
	return []framework.RouteProbe{
		token,
		balance,
		apiBalance,
		probe("GET /accounts/balances", constPath("/accounts/balances"), ""),
		probe("POST /dict/pix", constPath("/dict/pix"), "{}"),
		probe("POST /api/pix/cash-out", constPath("/api/pix/cash-out"), "{}"),
		probe("POST /api/pix/cash-in", constPath("/api/pix/cash-in"), "{}"),
		probe("PUT /cob/{txid}", txid, "{}"),
		probe("GET /cob/{txid}", txid, ""),
		probe("PATCH /cob/{txid}", txid, "{}"),
		probe("PUT /pix/{e2eid}/devolucao/{id}", refund, "{}"),
		probe("GET /pix/{e2eid}/devolucao/{id}", refund, ""),
		probe("POST /api/pix/refund-in/{id}", func() string { return "/api/pix/refund-in/" + uniqueID("probe") }, "{}"),
		probe("GET /api/med", constPath("/api/med"), ""),
		probe("GET /api/pix/transactions/pix-key/{pixKey}", constPath("/api/pix/transactions/pix-key/"+sampleCPF), ""),
		probe("GET /api/transactions", constPath("/api/transactions"), ""),
		probe("POST /api/webhooks", constPath("/api/webhooks"), "{}"),
		probe("GET /api/webhooks", constPath("/api/webhooks"), ""),
		probe("POST /api/resend-webhook/{transactionIdentifier}", func() string { return "/api/resend-webhook/" + uniqueID("probe") }, "{}"),
	}
}
