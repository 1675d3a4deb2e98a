package conformance

import (
	"context"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// standardBalanceRoutes are the two spellings of the standard balance route
// ("What the service does": GET /balance, also written GET /api/balance).
var standardBalanceRoutes = []string{"/balance", "/api/balance"}

// consistentBalances reads GET /accounts/balances, then path, then
// GET /accounts/balances again, until both Central Bank readings agree (the
// account did not move in between), and returns the agreed reading and the
// standard route's response.
func consistentBalances(ctx context.Context, f *framework.Framework, token, path string) (bacenBalance, *apiclient.Response) {
	ginkgo.GinkgoHelper()
	var first, second bacenBalance
	var std *apiclient.Response
	f.Needs(ctx, "GET "+path)
	for range 3 {
		first = readBacenBalance(ctx, f, token)
		std = f.Do(ctx, http.MethodGet, path, token, nil, nil)
		second = readBacenBalance(ctx, f, token)
		if first == second {
			break
		}
	}
	gomega.Expect(second).To(gomega.Equal(first), "GET /accounts/balances kept changing around GET %s", path)
	return first, std
}

var _ = ginkgo.Describe("GET /accounts/balances", framework.Res("balance"), framework.FamilyBacen, func() {
	f := framework.New("balance")

	/*
		Check: balance/bacen-shape
		Spec: "Resources > Balance (Central Bank-compatible)"; "Endpoints > GET /accounts/balances"
		Description: GET /accounts/balances MUST answer 2xx with data holding exactly one item whose
		eventDate is ISO 8601 and whose balanceAmount has JSON numbers available >= 0, blocked >= 0
		and overdraft == 0 (not implemented).
	*/
	framework.SpecIt("returns one balance item with eventDate, available, blocked and overdraft 0", func(ctx ginkgo.SpecContext) {
		r := f.Do(ctx, http.MethodGet, "/accounts/balances", f.Token(ctx), nil, nil)
		gomega.Expect(r).To(framework.HaveSuccessStatus())
		gomega.Expect(r).To(framework.HaveJSONField("data", gomega.HaveLen(1)))
		gomega.Expect(r).To(framework.HaveJSONField("data[0].eventDate", framework.BeISO8601()))
		for _, p := range []string{"available", "blocked", "overdraft"} {
			gomega.Expect(r).To(framework.HaveJSONNumber("data[0].balanceAmount." + p))
		}
		gomega.Expect(r).To(framework.HaveJSONField("data[0].balanceAmount.overdraft", 0))
		gomega.Expect(centsField(r, "data[0].balanceAmount.available")).To(gomega.BeNumerically(">=", 0), "available")
		gomega.Expect(centsField(r, "data[0].balanceAmount.blocked")).To(gomega.BeNumerically(">=", 0), "blocked")
	})

	/*
		Check: balance/bacen-status
		Gap G-07: success status code of GET /accounts/balances is "not shown" (docs/spec-gaps.md); the sandbox answers 200
		Description: GET /accounts/balances MUST answer exactly 200.
	*/
	framework.SandboxChoiceIt("answers 200", func(ctx ginkgo.SpecContext) {
		r := f.Do(ctx, http.MethodGet, "/accounts/balances", f.Token(ctx), nil, nil)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	})
})

var _ = ginkgo.Describe("GET /balance and GET /api/balance", framework.Res("balance"), framework.FamilyStd, func() {
	f := framework.New("balance")

	for _, path := range standardBalanceRoutes {
		/*
			Check: balance/standard-mapping
			Spec: "Resources > Balance (Central Bank-compatible)", mapping to the standard balance; "What the service does" (number conventions)
			Description: GET /balance and GET /api/balance MUST answer 2xx with grossBalance,
			blockedBalance and netBalance as JSON numbers with at most 2 decimals, where
			grossBalance == netBalance + blockedBalance, netBalance == available and
			blockedBalance == blocked of GET /accounts/balances read at the same time; consultedAt
			MUST be ISO 8601. Money is compared as integer centavos from the decimal text.
		*/
		framework.SpecIt("GET "+path+" maps the Central Bank balance: gross = net + blocked, net = available", func(ctx ginkgo.SpecContext) {
			bacen, r := consistentBalances(ctx, f, f.Token(ctx), path)
			gomega.Expect(r).To(framework.HaveSuccessStatus())
			for _, p := range []string{"grossBalance", "blockedBalance", "netBalance"} {
				gomega.Expect(r).To(framework.HaveJSONField(p, framework.BeDecimal2Number()))
			}
			gross, blocked, net := centsField(r, "grossBalance"), centsField(r, "blockedBalance"), centsField(r, "netBalance")
			gomega.Expect(brl(gross)).To(gomega.Equal(brl(net+blocked)), "grossBalance == netBalance + blockedBalance")
			gomega.Expect(brl(net)).To(gomega.Equal(brl(bacen.available)), "netBalance == available of GET /accounts/balances")
			gomega.Expect(brl(blocked)).To(gomega.Equal(brl(bacen.blocked)), "blockedBalance == blocked of GET /accounts/balances")
			gomega.Expect(r).To(framework.HaveJSONField("consultedAt", framework.BeISO8601()))
		})
	}
})

var _ = ginkgo.Describe("Balance of a new sandbox account", framework.Res("balance"), func() {
	f := framework.New("balance-opening", framework.WithBalance("1234.56"))

	/*
		Check: balance/opening-balance
		Spec: "Resources > Balance (Central Bank-compatible)"
		Sandbox: POST /_sandbox/accounts {"balance":1234.56}
		Description: An account opened with 1234.56 MUST read available 1234.56 and blocked 0 on
		GET /accounts/balances, and grossBalance 1234.56, netBalance 1234.56 and blockedBalance 0 on
		GET /balance and GET /api/balance.
	*/
	framework.SandboxIt("reads the opening balance 1234.56 on all three balance routes", func(ctx ginkgo.SpecContext) {
		tok := f.Token(ctx)
		b := readBacenBalance(ctx, f, tok)
		gomega.Expect(brl(b.available)).To(gomega.Equal("1234.56"), "available")
		gomega.Expect(brl(b.blocked)).To(gomega.Equal("0.00"), "blocked")
		for _, path := range standardBalanceRoutes {
			r := f.Do(ctx, http.MethodGet, path, tok, nil, nil)
			gomega.Expect(r).To(framework.HaveSuccessStatus())
			gomega.Expect(brl(centsField(r, "grossBalance"))).To(gomega.Equal("1234.56"), "%s grossBalance", path)
			gomega.Expect(brl(centsField(r, "netBalance"))).To(gomega.Equal("1234.56"), "%s netBalance", path)
			gomega.Expect(brl(centsField(r, "blockedBalance"))).To(gomega.Equal("0.00"), "%s blockedBalance", path)
		}
	})
})
