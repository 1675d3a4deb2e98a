package conformance

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
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

// probeRequest is the request that probes one route: its path and body.
type probeRequest struct {
	path func() string
	body string
}

// probeRequests gives every route of the contract's route table
// (contract.Routes) its probe; the table says which routes there are.
func probeRequests() map[string]probeRequest {
	txid := func() string { return "/cob/" + uniqueID("conformanceprobe") }
	refund := func() string { return "/pix/" + sampleE2EID + "/devolucao/" + uniqueID("probe") }
	return map[string]probeRequest{
		"POST " + apiclient.TokenPath:                      {constPath(apiclient.TokenPath), "{}"},
		"GET /balance":                                     {constPath("/balance"), ""},
		"GET /api/balance":                                 {constPath("/api/balance"), ""},
		"GET /accounts/balances":                           {constPath("/accounts/balances"), ""},
		"POST /dict/pix":                                   {constPath("/dict/pix"), "{}"},
		"POST /api/pix/cash-out":                           {constPath("/api/pix/cash-out"), "{}"},
		"POST /api/pix/cash-in":                            {constPath("/api/pix/cash-in"), "{}"},
		"PUT /cob/{txid}":                                  {txid, "{}"},
		"GET /cob/{txid}":                                  {txid, ""},
		"PATCH /cob/{txid}":                                {txid, "{}"},
		"PUT /pix/{e2eid}/devolucao/{id}":                  {refund, "{}"},
		"GET /pix/{e2eid}/devolucao/{id}":                  {refund, ""},
		"POST /api/pix/refund-in/{id}":                     {func() string { return "/api/pix/refund-in/" + uniqueID("probe") }, "{}"},
		"GET /api/med":                                     {constPath("/api/med"), ""},
		"GET /api/pix/transactions/pix-key/{pixKey}":       {constPath("/api/pix/transactions/pix-key/" + sampleCPF), ""},
		"GET /api/transactions":                            {constPath("/api/transactions"), ""},
		"POST /api/webhooks":                               {constPath("/api/webhooks"), "{}"},
		"GET /api/webhooks":                                {constPath("/api/webhooks"), ""},
		"POST /api/resend-webhook/{transactionIdentifier}": {func() string { return "/api/resend-webhook/" + uniqueID("probe") }, "{}"},
	}
}

// routeProbes returns one probe per route of the contract's route table, in
// its order. The two standard balance routes share a container, so each
// names its own checks in it.
func routeProbes() []framework.RouteProbe {
	reqs := probeRequests()
	var probes []framework.RouteProbe
	for _, rt := range contract.Routes() {
		pr, ok := reqs[rt.String()]
		if !ok {
			panic("conformance: no probe request for " + rt.String() + " of the contract's route table")
		}
		delete(reqs, rt.String())
		p := probe(rt.String(), pr.path, pr.body)
		p.Public = rt.Public
		if rt.Template == "/balance" || rt.Template == "/api/balance" {
			p.Checks = framework.Pattern(`^(GET /balance and GET /api/balance ` + regexp.QuoteMeta(rt.String()) + `|` + regexp.QuoteMeta(unauthorizedCheck+rt.String()) + `) `)
		}
		probes = append(probes, p)
	}
	if len(reqs) > 0 {
		panic(fmt.Sprintf("conformance: probe requests for %d routes the contract's route table lacks: %v", len(reqs), reqs))
	}
	return probes
}
