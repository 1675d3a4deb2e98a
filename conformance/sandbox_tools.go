package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

var _ = ginkgo.Describe("Sandbox tools", framework.Res("sandbox-tools"), framework.Sandbox, func() {
	f := framework.New("sandbox-tools", framework.WithoutIdentity())

	/*
		Check: sandbox/check-receiver
		Sandbox: POST /_sandbox/check-receiver (Gap G-59)
		Description: POST /_sandbox/check-receiver with the suite's receiver as url, a custom header
		and the cases transfer and duplicate MUST answer 200 with a report whose transfer case is
		PASS (the receiver answers 200) and whose duplicate case is NOT CHECKED (no callback URL);
		the receiver MUST get a V2 TRANSFER and the duplicate's one event twice with one webhook-id,
		each carrying the custom header and a webhook-signature. A missing url MUST answer 400 in the
		minimal shape, naming url.
	*/
	framework.SandboxIt("checks a webhook receiver and reports per case", framework.Webhook, func(ctx ginkgo.SpecContext) {
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/check-receiver", map[string]any{
			"url": f.Webhooks.URL(), "cases": []string{"transfer", "duplicate"},
			"headers": []map[string]string{{"key": "X-Partner", "value": "conformance"}},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		var rep struct {
			Cases []struct {
				Name   string `json:"name"`
				Result string `json:"result"`
			} `json:"cases"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &rep)).To(gomega.Succeed())
		results := map[string]string{}
		for _, c := range rep.Cases {
			results[c.Name] = c.Result
		}
		gomega.Expect(results).To(gomega.Equal(map[string]string{"transfer": "PASS", "duplicate": "NOT CHECKED"}), "case results in %s", r)

		got := f.Webhooks.Deliveries()
		gomega.Expect(len(got)).To(gomega.BeNumerically(">=", 3), "a TRANSFER, then one event twice")
		ids := map[string]int{}
		sawTransfer := false
		for _, d := range got {
			gomega.Expect(d.Header.Get("X-Partner")).To(gomega.Equal("conformance"), "custom header")
			gomega.Expect(d.Header.Get(framework.HeaderWebhookSignature)).NotTo(gomega.BeEmpty(), "webhook-signature")
			ids[d.Header.Get(framework.HeaderWebhookID)]++
			var body map[string]any
			if json.Unmarshal(d.Body, &body) == nil && body["type"] == "TRANSFER" {
				sawTransfer = true
			}
		}
		gomega.Expect(sawTransfer).To(gomega.BeTrue(), "a V2 TRANSFER was delivered")
		twice := 0
		for _, n := range ids {
			if n == 2 {
				twice++
			}
		}
		gomega.Expect(twice).To(gomega.BeNumerically(">=", 1), "the duplicate case sends one webhook-id twice: %v", ids)

		r, err = f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/check-receiver", map[string]any{"cases": []string{"transfer"}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		gomega.Expect(r).To(framework.HaveMinimalErrorShape())
		gomega.Expect(messageText(r)).To(gomega.ContainSubstring("url"))
	})

	/*
		Check: sandbox/console
		Sandbox: GET /_sandbox/console (Gap G-60)
		Description: GET /_sandbox/console MUST answer 200 with an HTML page (Content-Type text/html)
		whose scripts are served from the same origin under /_sandbox/console/ with a JavaScript
		Content-Type.
	*/
	framework.SandboxIt("serves the web console and its scripts", func(ctx ginkgo.SpecContext) {
		page := f.Do(ctx, http.MethodGet, "/_sandbox/console", "", nil, nil)
		gomega.Expect(page).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(page.Header.Get("Content-Type")).To(gomega.HavePrefix("text/html"))
		html := string(page.Body)
		i := strings.Index(html, `src="/_sandbox/console/`)
		gomega.Expect(i).To(gomega.BeNumerically(">=", 0), "the page loads a script from /_sandbox/console/")
		src := html[i+len(`src="`):]
		src = src[:strings.Index(src, `"`)]
		js := f.Do(ctx, http.MethodGet, src, "", nil, nil)
		gomega.Expect(js).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(js.Header.Get("Content-Type")).To(gomega.ContainSubstring("javascript"))
	})
})
