package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// Statuses of "Resources > Refund-in (response)".
var refundInStatuses = []any{"PENDING", "CONFIRMED", "ERROR"}

// refundInReason is the reason of the suite's refund-in requests.
const refundInReason = "conformance refund-in"

// refundInPath returns the refund-in route of the original transaction id.
func refundInPath(id string) string { return "/api/pix/refund-in/" + url.PathEscape(id) }

// refundInBody returns a valid POST /api/pix/refund-in/{id} body for value
// (decimal text, sent as a JSON number) with a reason and a fresh externalId,
// changed by mods.
func refundInBody(f *framework.Framework, value string, mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{"refundValue": json.Number(value), "reason": refundInReason, "externalId": newRefundID(f)}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// postRefundInAs sends POST /api/pix/refund-in/{id} with token.
func postRefundInAs(ctx context.Context, f *framework.Framework, token, id string, m map[string]any, scenario string) *framework.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, refundInPath(id), token, encodeJSON(m), withScenario(nil, scenario))
}

// postRefundIn sends POST /api/pix/refund-in/{id} with the spec's token.
func postRefundIn(ctx context.Context, f *framework.Framework, id string, m map[string]any, scenario string) *framework.Response {
	ginkgo.GinkgoHelper()
	return postRefundInAs(ctx, f, f.Token(ctx), id, m, scenario)
}

// createRefundIn sends a refund-in that must be answered 201 and returns the
// response.
func createRefundIn(ctx context.Context, f *framework.Framework, id string, m map[string]any) *framework.Response {
	ginkgo.GinkgoHelper()
	r := postRefundIn(ctx, f, id, m, "")
	gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	return r
}

// unknownParentID returns a transaction id no PIX of the account has, in the
// form of the configured one: a fresh UUID when -refund-transaction-id is a
// UUID, else a large number.
func unknownParentID(f *framework.Framework) string {
	if id := f.Config.RefundTransactionID; id != "" && len(id) == 36 && id[8] == '-' {
		return framework.UUIDv4()
	}
	return "987654321987"
}

var _ = ginkgo.Describe("POST /api/pix/refund-in/{id}", framework.Res("refund-in"), framework.FamilyStd, func() {
	f := framework.New("refund-in")

	/*
		Check: refund-in/body-invalid
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (refundValue number, required, min 0.01; 400 invalid data, invalid value); "Number conventions" (up to 2 decimal places, minimum 0.01)
		Description: A refund-in of a PIX the account received whose body has no refundValue, a
		refundValue of 0, or a refundValue of 0.001 MUST be answered 400.
	*/
	ginkgo.DescribeTable("rejects with 400 a body",
		func(ctx ginkgo.SpecContext, mod func(m map[string]any)) {
			p := refundableParent(ctx, f)
			r := postRefundIn(ctx, f, p.txID, refundInBody(f, refundUnit, mod), "")
			gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
		},
		ginkgo.Entry("without refundValue", framework.Spec, func(m map[string]any) { delete(m, "refundValue") }),
		ginkgo.Entry("with refundValue 0", framework.Spec, func(m map[string]any) { m["refundValue"] = json.Number("0") }),
		ginkgo.Entry("with refundValue 0.001", framework.Spec, func(m map[string]any) { m["refundValue"] = json.Number("0.001") }),
	)

	/*
		Check: refund-in/unknown-parent
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (404 parent transaction not found)
		Description: A valid refund-in of a transaction id the account never had MUST be answered
		404.
	*/
	framework.SpecIt("rejects a parent transaction that does not exist with 404", func(ctx ginkgo.SpecContext) {
		r := postRefundIn(ctx, f, unknownParentID(f), refundInBody(f, refundUnit), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusNotFound))
	})

	/*
		Check: refund-in/created
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (response 201: the refund-in resource); "Resources > Refund-in (response)" (transactionId string; externalId; status PENDING, CONFIRMED, ERROR; refundValue number; providerTransactionId string; generateTime ISO 8601)
		Description: A refund-in of 0.01 of a PIX the account received, with a reason and an
		externalId, MUST be answered 201 with transactionId a non-empty string, externalId
		echoed, status PENDING, CONFIRMED or ERROR, refundValue the JSON number 0.01,
		providerTransactionId a non-empty string and generateTime in ISO 8601.
	*/
	framework.SpecIt("accepts a refund with 201 and the refund-in resource", func(ctx ginkgo.SpecContext) {
		p := refundableParent(ctx, f)
		m := refundInBody(f, refundUnit)
		r := createRefundIn(ctx, f, p.txID, m)
		nonEmpty := nonEmptyString()
		gomega.Expect(r).To(framework.HaveJSONField("transactionId", nonEmpty))
		gomega.Expect(r).To(framework.HaveJSONField("externalId", m["externalId"]))
		gomega.Expect(r).To(framework.HaveJSONField("status", gomega.BeElementOf(refundInStatuses...)))
		gomega.Expect(r).To(framework.HaveJSONNumber("refundValue"))
		gomega.Expect(r).To(framework.HaveJSONField("refundValue", json.Number(refundUnit)))
		gomega.Expect(r).To(framework.HaveJSONField("providerTransactionId", nonEmpty))
		gomega.Expect(r).To(framework.HaveJSONField("generateTime", framework.BeISO8601()))
	})

	/*
		Check: refund-in/sum-rule
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (refundValue may be partial; 400 invalid value); "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (the sum of all refunds of one PIX must not exceed the original amount); "Limits", refund sum row
		Description: Of a PIX of 100.00 received for this check alone, refund-ins of 60.00 and
		then 40.00 naming its transaction id MUST each be answered 201, and a further refund-in of
		0.01 MUST be answered 400.
	*/
	framework.SpecIt("accepts refunds up to the PIX's amount and refuses one centavo more with 400", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "100.00")
		createRefundIn(ctx, f, p.txID, refundInBody(f, "60.00"))
		createRefundIn(ctx, f, p.txID, refundInBody(f, "40.00"))
		gomega.Expect(postRefundIn(ctx, f, p.txID, refundInBody(f, "0.01"), "")).To(framework.HaveStatus(http.StatusBadRequest))
	})

	/*
		Check: refund-in/external-id
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (externalId corresponds to the id path parameter of the Central Bank-compatible refund route)
		Gap G-44: one refund model for both routes: externalId is the refund's id (32 hex characters when absent), transactionId the REFUND_IN transaction's number, providerTransactionId the rtrId, status EM_PROCESSAMENTO ↔ PENDING; {id} is the original's number or UUID
		Sandbox: POST /_sandbox/pix-in; GET /_sandbox/transactions/{id} (the original's UUID)
		Description: A refund-in of 2.00 with externalId X MUST be answered with status PENDING and
		a numeric transactionId, and GET /pix/{e2eid}/devolucao/X MUST read id X, rtrId equal to
		providerTransactionId, valor "2.00" and status EM_PROCESSAMENTO; a refund-in of 1.00
		without externalId naming the original by its UUID MUST be answered with an externalId of
		32 lowercase hexadecimal characters, readable the same way.
	*/
	framework.SandboxIt("makes the refund readable on the Central Bank route under its externalId", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		m := refundInBody(f, "2.00")
		ext, _ := m["externalId"].(string)
		r := createRefundIn(ctx, f, p.txID, m)
		gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
		gomega.Expect(r).To(framework.HaveJSONField("transactionId", gomega.MatchRegexp(`^[0-9]+$`)))
		g := getRefundAs(ctx, f, f.Token(ctx), p.e2e, ext)
		gomega.Expect(g).To(framework.HaveJSONField("id", ext))
		gomega.Expect(g).To(framework.HaveJSONField("rtrId", stringField(r, "providerTransactionId")))
		gomega.Expect(g).To(framework.HaveJSONField("valor", "2.00"))
		gomega.Expect(g).To(framework.HaveJSONField("status", refundEmProcessamento))

		uuid := transaction(ctx, f, p.txID).TransactionID
		gomega.Expect(uuid).To(gomega.MatchRegexp(uuidPattern), "UUID of transaction %s", p.txID)
		r = createRefundIn(ctx, f, uuid, refundInBody(f, "1.00", func(m map[string]any) { delete(m, "externalId") }))
		gen := stringField(r, "externalId")
		gomega.Expect(gen).To(gomega.MatchRegexp(`^[0-9a-f]{32}$`), "the generated externalId")
		gomega.Expect(getRefundAs(ctx, f, f.Token(ctx), p.e2e, gen)).To(framework.HaveJSONField("valor", "1.00"))
	})

	/*
		Check: refund-in/failure
		Spec: "Resources > Refund-in (response)" (status PENDING, CONFIRMED, ERROR); "States and transitions > Refund (devolucao)" (EM_PROCESSAMENTO → NAO_REALIZADO when processing fails)
		Gap G-44: one refund model for both routes (PENDING ↔ EM_PROCESSAMENTO), readable under its externalId
		Sandbox: X-Sandbox-Scenario: REFUND_FAILURE on POST /api/pix/refund-in/{id}; POST /_sandbox/clock/advance
		Description: A refund-in of 6.00 carrying REFUND_FAILURE MUST be answered 201 with status
		PENDING; once processed, GET /pix/{e2eid}/devolucao/{externalId} MUST read NAO_REALIZADO
		with a non-empty motivo, and available and blocked MUST be back to their values before it.
	*/
	framework.SandboxIt("ends a REFUND_FAILURE refund-in NAO_REALIZADO and returns the hold", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		before := f.Balance(ctx)
		m := refundInBody(f, "6.00")
		r := postRefundIn(ctx, f, p.txID, m, "REFUND_FAILURE")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
		ext, _ := m["externalId"].(string)
		got := awaitRefundStatus(ctx, f, f.Token(ctx), p.e2e, ext, refundNaoRealizado, true)
		gomega.Expect(got).To(framework.HaveJSONField("motivo", nonEmptyString()))
		expectBalance(f.Balance(ctx), before, "after the refund failed")
	})

	/*
		Check: refund-in/shared-sum
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (the sum of all refunds of one PIX must not exceed the original amount)
		Gap G-44: one running total per PIX enforces the sum rule for both routes
		Sandbox: POST /_sandbox/pix-in
		Description: Of a PIX of 100.00, a refund of 60.00 through PUT /pix/{e2eid}/devolucao/{id}
		and one of 40.00 through refund-in MUST be accepted; a further 0.01 MUST then be refused
		with 400 on both routes.
	*/
	framework.SandboxIt("counts refunds of both routes against one sum", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "100.00")
		createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("60.00"), "")
		createRefundIn(ctx, f, p.txID, refundInBody(f, "40.00"))
		gomega.Expect(postRefundIn(ctx, f, p.txID, refundInBody(f, "0.01"), "")).To(framework.HaveStatus(http.StatusBadRequest))
		expectRefundRejected(putRefund(ctx, f, p.e2e, newRefundID(f), refundBody("0.01"), ""), http.StatusBadRequest)
	})

	/*
		Check: refund-in/not-a-receipt
		Spec: "Endpoints > POST /api/pix/refund-in/{id}" (404 parent transaction not found)
		Gap G-44: a parent that is not a receipt is 400 on refund-in (the spec lists "transaction not found" among its 400s); another account's transaction is unknown (404)
		Sandbox: POST /api/pix/cash-out (a PIX the account sends); a second account from POST /_sandbox/accounts receiving a PIX by POST /_sandbox/pix-in
		Description: A refund-in naming the transactionId of a cash-out the account sent MUST be
		answered 400, and one naming a PIX another account received MUST be answered 404.
	*/
	framework.SandboxIt("answers 400 for a parent that is not a receipt and 404 for another account's PIX", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		sent := acceptCashOut(ctx, f, cashOutRequest(f, "1.00"), "")
		gomega.Expect(postRefundIn(ctx, f, sent, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusBadRequest), "a cash-out as parent")

		other, err := f.Sandbox.CreateAccount(ctx, framework.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		theirs := receivePIXAs(ctx, f, other, refundPIXAmount, nil)
		gomega.Expect(postRefundIn(ctx, f, theirs.txID, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusNotFound), "another account's PIX as parent")
	})
})
