package conformance

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

var _ = ginkgo.Describe("Sandbox webhook secret rotation", framework.Res("sandbox-rotation"), framework.Sandbox, func() {
	f := framework.New("sandbox-rotation")

	// rotate posts a rotation of path's target or listener with body (nil:
	// none) and returns the answer.
	rotate := func(ctx ginkgo.SpecContext, path string, body any) *apiclient.Response {
		ginkgo.GinkgoHelper()
		r, err := f.Sandbox.Do(ctx, http.MethodPost, path+"/rotate-secret", body)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return r
	}
	// newSecret reads the secret of a rotation's 200 answer.
	newSecret := func(r *apiclient.Response) string {
		ginkgo.GinkgoHelper()
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		s, _ := r.Field("secret")
		secret, _ := s.(string)
		gomega.Expect(secret).To(gomega.HavePrefix(framework.WebhookSecretPrefix), "secret in %s", r)
		return secret
	}
	// settledDelivery makes a cash-out of the spec's account, lets it settle
	// and returns its CashOut delivery to the suite's receiver.
	settledDelivery := func(ctx ginkgo.SpecContext) framework.Delivery {
		ginkgo.GinkgoHelper()
		m := cashOutRequest(f, "10.00")
		acceptCashOut(ctx, f, m, "")
		return awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
	}

	/*
		Check: sandbox/rotate-secret-overlap
		Gap G-67: rotating a target's signing secret keeps the old one signing for an overlap of wall time (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/webhook-targets (cash_out, with a secret); POST /_sandbox/webhook-targets/{id}/rotate-secret; POST /_sandbox/clock/advance
		Description: After POST /_sandbox/webhook-targets/{id}/rotate-secret {"overlap":"1h"} answers
		200 with a new whsec_ secret and previousSecretExpiresAt, a delivery to the target MUST carry
		two v1 signatures in one webhook-signature header, the new secret's first, and MUST verify
		with the old secret and with the new one. After a second rotation with {"overlap":0}, a
		delivery MUST carry one v1 signature that verifies with the newest secret only.
	*/
	framework.SandboxIt("signs with both secrets during a rotation's overlap, with the new one alone after it", framework.SandboxChoice,
		ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
			old := framework.NewWebhookSecret()
			tg, err := f.Sandbox.RegisterWebhookTarget(ctx, sandbox.WebhookTargetOptions{
				AccountID: f.Identity.ID, URL: f.Webhooks.URL(), EventType: eventCashOut, Secret: old})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			path := "/_sandbox/webhook-targets/" + string(tg.ID)

			r := rotate(ctx, path, map[string]any{"overlap": "1h"})
			fresh := newSecret(r)
			gomega.Expect(fresh).NotTo(gomega.Equal(old))
			gomega.Expect(r).To(framework.HaveJSONField("signed", true))
			until, ok := r.Field("previousSecretExpiresAt")
			gomega.Expect(ok && until != nil).To(gomega.BeTrue(), "previousSecretExpiresAt in %s", r)

			d := settledDelivery(ctx)
			sigs := strings.Fields(d.Header.Get(framework.HeaderWebhookSignature))
			gomega.Expect(sigs).To(gomega.HaveLen(2), "webhook-signature %q during the overlap", d.Header.Get(framework.HeaderWebhookSignature))
			gomega.Expect(d.VerifySignature(old)).To(gomega.Succeed(), "the old secret verifies during the overlap")
			gomega.Expect(d.VerifySignature(fresh)).To(gomega.Succeed(), "the new secret verifies during the overlap")
			alone := d.Header.Clone()
			alone.Set(framework.HeaderWebhookSignature, sigs[0])
			gomega.Expect(framework.VerifyWebhookSignature(fresh, alone, d.Body)).To(gomega.Succeed(), "the first signature is the new secret's")

			newest := newSecret(rotate(ctx, path, map[string]any{"overlap": 0}))
			d = settledDelivery(ctx)
			gomega.Expect(strings.Fields(d.Header.Get(framework.HeaderWebhookSignature))).To(gomega.HaveLen(1), "one signature with no overlap")
			gomega.Expect(d.VerifySignature(newest)).To(gomega.Succeed())
			gomega.Expect(d.VerifySignature(fresh)).NotTo(gomega.Succeed(), "the replaced secret no longer verifies")
		})

	/*
		Check: sandbox/rotate-secret-errors
		Sandbox: POST /_sandbox/webhook-targets/{id}/rotate-secret, POST /_sandbox/listeners/{id}/rotate-secret (Gap G-67)
		Description: Rotating an unknown target or listener MUST answer 404; an overlap beyond 7 days,
		a negative one or one that is not a duration MUST answer 400 in the minimal shape with a
		message naming overlap; a secret that is not whsec_ MUST answer 400 naming secret.
	*/
	framework.SandboxIt("refuses an unknown target or listener and a bad overlap or secret", func(ctx ginkgo.SpecContext) {
		gomega.Expect(rotate(ctx, "/_sandbox/webhook-targets/999999999", nil)).To(framework.HaveStatus(http.StatusNotFound))
		gomega.Expect(rotate(ctx, "/_sandbox/listeners/lst_0000000000000000", nil)).To(framework.HaveStatus(http.StatusNotFound))

		tg, err := f.Sandbox.RegisterWebhookTarget(ctx, sandbox.WebhookTargetOptions{
			AccountID: f.Identity.ID, URL: f.Webhooks.URL() + "/rotation-errors", EventType: eventCashIn})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		path := "/_sandbox/webhook-targets/" + string(tg.ID)
		for _, body := range []map[string]any{{"overlap": "8d"}, {"overlap": "169h"}, {"overlap": json.Number("-1")}, {"overlap": true}, {"secret": "whsec_x"}} {
			r := rotate(ctx, path, body)
			gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest), "body %v", body)
			gomega.Expect(r).To(framework.HaveMinimalErrorShape())
			for field := range body {
				gomega.Expect(messageText(r)).To(gomega.ContainSubstring(field), "body %v", body)
			}
		}
	})

	/*
		Check: sandbox/rotate-secret-listener
		Sandbox: POST /_sandbox/listeners, POST /_sandbox/listeners/{id}/rotate-secret, POST /_sandbox/listeners/{id}/renew (Gap G-67)
		Description: Rotating a listener's secret MUST answer 200 with a new whsec_ secret that
		differs from the one its creation answered; its renewal MUST then answer the new secret.
	*/
	framework.SandboxIt("rotates a listener's secret", func(ctx ginkgo.SpecContext) {
		r, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/listeners", map[string]any{
			"accountId": json.Number(f.Identity.ID), "url": f.Webhooks.URL() + "/rotation-listener", "events": []string{"cash_in"}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		var l struct {
			ID     string `json:"id"`
			Secret string `json:"secret"`
		}
		gomega.Expect(json.Unmarshal(r.Body, &l)).To(gomega.Succeed())
		ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
			_, err := f.Sandbox.Do(ctx, http.MethodDelete, "/_sandbox/listeners/"+l.ID, nil)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		})

		fresh := newSecret(rotate(ctx, "/_sandbox/listeners/"+l.ID, map[string]any{"overlap": 3600}))
		gomega.Expect(fresh).NotTo(gomega.Equal(l.Secret))
		renewed, err := f.Sandbox.Do(ctx, http.MethodPost, "/_sandbox/listeners/"+l.ID+"/renew", nil)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(renewed).To(framework.HaveJSONField("secret", fresh))
	})
})
