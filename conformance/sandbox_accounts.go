package conformance

import (
	"encoding/json"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

var _ = ginkgo.Describe("Sandbox accounts", framework.Res("sandbox-accounts"), framework.Sandbox, func() {
	f := framework.New("sandbox-accounts", framework.WithBalance("12.34"))

	type listedAccount struct {
		ID        sandbox.ID `json:"id"`
		ClientIDs []string   `json:"clientIds"`
		Balance   struct {
			Gross   json.Number `json:"grossBalance"`
			Blocked json.Number `json:"blockedBalance"`
			Net     json.Number `json:"netBalance"`
		} `json:"balance"`
	}
	// listed returns the entry of GET /_sandbox/accounts for the spec's account.
	listed := func(ctx ginkgo.SpecContext) *listedAccount {
		ginkgo.GinkgoHelper()
		r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/accounts", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		var body struct {
			Accounts []listedAccount `json:"accounts"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &body)).To(gomega.Succeed())
		for i, a := range body.Accounts {
			if a.ID == f.Account.ID {
				return &body.Accounts[i]
			}
		}
		return nil
	}

	/*
		Check: sandbox/accounts-list
		Sandbox: GET /_sandbox/accounts
		Description: GET /_sandbox/accounts MUST answer 200 with every account, the spec's own among
		them with its clientId and its standard balance (grossBalance, blockedBalance, netBalance).
	*/
	framework.SandboxIt("lists every account with its client ids and balance", func(ctx ginkgo.SpecContext) {
		a := listed(ctx)
		gomega.Expect(a).NotTo(gomega.BeNil(), "the spec's account %s is not listed", f.Account.ID)
		gomega.Expect(a.ClientIDs).To(gomega.ContainElement(f.Account.ClientID))
		gomega.Expect(a.Balance.Net).To(gomega.Equal(json.Number("12.34")), "netBalance")
		gomega.Expect(a.Balance.Blocked).To(gomega.BeElementOf(json.Number("0"), json.Number("0.00")), "blockedBalance")
		gomega.Expect(a.Balance.Gross).To(gomega.Equal(json.Number("12.34")), "grossBalance")
	})

	/*
		Check: sandbox/accounts-token
		Sandbox: POST /_sandbox/accounts/{id}/token
		Description: POST /_sandbox/accounts/{id}/token MUST answer 201 with access_token, token_type
		Bearer and expires_in 1800, and the token MUST be accepted by GET /api/balance for that
		account; an unknown account MUST answer 404.
	*/
	framework.SandboxIt("issues a token for an account without its credentials", func(ctx ginkgo.SpecContext) {
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/accounts/"+f.Account.ID.String()+"/token", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("token_type", "Bearer"))
		gomega.Expect(r).To(framework.HaveJSONField("expires_in", 1800))
		tok := stringField(r, "access_token")
		bal := f.Do(ctx, http.MethodGet, "/api/balance", tok, nil, nil)
		gomega.Expect(bal).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(bal).To(framework.HaveJSONField("netBalance", 12.34))

		r, err = f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/accounts/987654321/token", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusNotFound))
	})

	/*
		Check: sandbox/reset
		Sandbox: POST /_sandbox/reset
		Description: POST /_sandbox/reset MUST answer 200 and drop every account created since the
		start: the spec's account MUST no longer be listed and its token MUST get 401 on
		GET /api/balance, while the fixture account 1 MUST be listed again. Runs only with
		-allow-reset, as it drops every record of the target.
	*/
	framework.SandboxIt("drops what was created and keeps the fixtures", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		if !f.Config.AllowReset && !framework.InWorkspace() {
			ginkgo.Skip("-allow-reset not given: the reset drops every record of the target")
		}
		tok := f.Token(ctx)
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", tok, nil, nil)).To(framework.HaveStatus(http.StatusOK))
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/reset", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(listed(ctx)).To(gomega.BeNil(), "the spec's account survived the reset")
		gomega.Expect(f.Do(ctx, http.MethodGet, "/api/balance", tok, nil, nil)).To(framework.HaveStatus(http.StatusUnauthorized))
		fixture, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/accounts/1", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(fixture).To(framework.HaveStatus(http.StatusOK))
	})
})
