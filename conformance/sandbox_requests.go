package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

var _ = ginkgo.Describe("Sandbox request journal", framework.Res("sandbox-requests"), framework.Sandbox, func() {
	f := framework.New("sandbox-requests")

	/*
		Check: sandbox/request-journal
		Sandbox: GET /_sandbox/requests
		Description: After a token request, GET /_sandbox/requests?path=/api/auth/token MUST list it
		(found by its X-Request-Id) with status 201, its clientSecret, X-SSL-Client-Cert and
		access_token masked as "***", and no trace of the secret or the token; a status filter that is
		not a status MUST answer 400 in the minimal shape naming status.
	*/
	framework.SandboxIt("journals requests with their secrets masked", func(ctx ginkgo.SpecContext) {
		tok, err := f.Client.Token(ctx, f.TokenRequest())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(tok).To(framework.HaveStatus(http.StatusCreated))
		reqID := tok.Header.Get("X-Request-Id")
		access, _ := tok.Field("access_token")

		r, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/requests?path=/api/auth/token&limit=1000", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		var list struct {
			Enabled bool `json:"enabled"`
			Data    []struct {
				RequestID      string            `json:"requestId"`
				Status         int               `json:"status"`
				RequestHeaders map[string]string `json:"requestHeaders"`
				RequestBody    string            `json:"requestBody"`
				ResponseBody   string            `json:"responseBody"`
			} `json:"data"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &list)).To(gomega.Succeed())
		if !list.Enabled {
			ginkgo.Skip("the target keeps no request journal (--journal-size 0)")
		}
		found := false
		for _, e := range list.Data {
			if e.RequestID != reqID {
				continue
			}
			found = true
			gomega.Expect(e.Status).To(gomega.Equal(http.StatusCreated))
			gomega.Expect(e.RequestBody).To(gomega.ContainSubstring(`"clientSecret":"***"`))
			gomega.Expect(e.RequestHeaders).To(gomega.HaveKeyWithValue("X-Ssl-Client-Cert", "***"))
			gomega.Expect(e.ResponseBody).To(gomega.ContainSubstring(`"access_token":"***"`))
			raw, _ := json.Marshal(e)
			gomega.Expect(strings.Contains(string(raw), f.Identity.ClientSecret)).To(gomega.BeFalse(), "the clientSecret shows")
			gomega.Expect(strings.Contains(string(raw), access.(string))).To(gomega.BeFalse(), "the access token shows")
		}
		gomega.Expect(found).To(gomega.BeTrue(), "the journal lists the token request %s", reqID)

		bad, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/requests?status=teapot", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(bad).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(bad).To(framework.HaveMinimalErrorShape())
		gomega.Expect(messageText(bad)).To(gomega.ContainSubstring("status"))
	})
})
