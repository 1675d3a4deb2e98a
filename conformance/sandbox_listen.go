package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

var _ = ginkgo.Describe("Sandbox listeners", framework.Res("sandbox-listeners"), framework.Sandbox, func() {
	f := framework.New("sandbox-listeners")

	/*
		Check: sandbox/listener-lifecycle
		Sandbox: POST /_sandbox/listeners, DELETE /_sandbox/listeners/{id}
		Description: POST /_sandbox/listeners for the spec's account, the event cash_out and the suite's
		receiver MUST answer 201 with an id, a whsec_ secret and one target; the account's webhook
		targets MUST then include it; DELETE /_sandbox/listeners/{id} MUST answer 200 with
		targetsRemoved 1 and the target MUST be gone; a second DELETE MUST answer 404.
	*/
	framework.SandboxIt("registers and removes a listener's targets", func(ctx ginkgo.SpecContext) {
		url := f.Webhooks.URL() + "/listener"
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/listeners", map[string]any{
			"accountId": json.Number(f.Identity.ID), "url": url, "events": []string{"cash_out"}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		var l struct {
			ID      string `json:"id"`
			Secret  string `json:"secret"`
			Targets []any  `json:"targets"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &l)).To(gomega.Succeed())
		gomega.Expect(l.Secret).To(gomega.HavePrefix("whsec_"))
		gomega.Expect(l.Targets).To(gomega.HaveLen(1))

		targets := func() string {
			t, err := f.Sandbox.Do(ctx, http.MethodGet, "/_sandbox/webhook-targets?accountId="+f.Identity.ID, nil)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(t).To(framework.HaveStatus(http.StatusOK))
			return string(t.Body)
		}
		gomega.Expect(targets()).To(gomega.ContainSubstring(url))

		d, err := f.Sandbox.Do(ctx, http.MethodDelete, "/_sandbox/listeners/"+l.ID, nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(d).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(d).To(framework.HaveJSONField("targetsRemoved", json.Number("1")))
		gomega.Expect(strings.Contains(targets(), url)).To(gomega.BeFalse(), "the listener's target is gone")

		again, err := f.Sandbox.Do(ctx, http.MethodDelete, "/_sandbox/listeners/"+l.ID, nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(again).To(framework.HaveStatus(http.StatusNotFound))
	})
})
