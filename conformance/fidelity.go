package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// rawPost sends body exactly as given (invalid UTF-8, duplicated keys) to a
// protected route with the spec's token.
func rawPost(ctx context.Context, f *framework.Framework, path string, body []byte, h http.Header) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, path, f.Token(ctx), body, h)
}

// expectMinimalNaming checks a minimal-shape 400 whose message starts with
// field.
func expectMinimalNaming(r *apiclient.Response, field string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
	gomega.Expect(r).To(framework.HaveMinimalErrorShape())
	gomega.Expect(r).To(framework.HaveJSONField("message", gomega.HavePrefix(field+" ")))
}

// clockToSaoPauloNight sets a sandbox's clock forward to the next 23:30Z
// (20:30 in São Paulo, in the night window) and, when the spec ends, on to
// 12:00Z the next day (09:00 in São Paulo). The spec must be ginkgo.Serial.
func clockToSaoPauloNight(ctx context.Context, f *framework.Framework) {
	ginkgo.GinkgoHelper()
	clk, err := f.Sandbox.Clock(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	now := clk.Now.UTC()
	night := time.Date(now.Year(), now.Month(), now.Day(), 23, 30, 0, 0, time.UTC)
	if !night.After(now) {
		night = night.AddDate(0, 0, 1)
	}
	_, err = f.Sandbox.SetClock(ctx, night)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	f.ForgetToken() // a token taken before the move may have expired on the way
	ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
		_, err := f.Sandbox.SetClock(ctx, night.Add(12*time.Hour+30*time.Minute)) // 12:00Z, 09:00 in São Paulo
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "moving the clock on to the next morning")
	})
}

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-fidelity")

	/*
		Check: cash-out/every-invalid-field
		Spec: "Errors > Shapes", item 2 (message … one per invalid field); "Errors > Cash-out and cash-in codes" (400 HTTP_ERROR: body validation; message lists each problem)
		Description: A cash-out whose value is a string, externalId a number and details.key a
		boolean (three wrong JSON types), with a description of 141 characters and details.keyType
		CPF (two invalid values), MUST be answered with one 400 HTTP_ERROR in the extended shape
		whose message is an array of exactly five strings, one naming each of value, externalId,
		details.key, description and details.keyType.
	*/
	framework.SpecIt("lists every invalid field, wrong JSON types and bad values together, in one 400 HTTP_ERROR", func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "10.00", func(m, details map[string]any) {
			m["value"], m["externalId"], m["description"] = "10.00", 5, strings.Repeat("d", 141)
			details["key"], details["keyType"] = true, "CPF"
		})
		r := postCashOut(ctx, f, m, "")
		expectCashOutError(r, "HTTP_ERROR")
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.HaveLen(5)), "one message per invalid field")
		for _, field := range []string{"value", "externalId", "details.key", "description", "details.keyType"} {
			gomega.Expect(r).To(framework.HaveJSONField("message", gomega.ContainElement(gomega.HavePrefix(field+" "))), "a message names %s", field)
		}
	})

	/*
		Check: cash-out/invalid-utf8
		Gap G-03: a body that is not valid UTF-8 is refused with 400 naming the field (docs/spec-gaps.md), not decoded with U+FFFD
		Description: A cash-out whose externalId holds the byte 0xFF MUST be answered 400 HTTP_ERROR
		in the extended shape with a message naming externalId.
	*/
	framework.SandboxChoiceIt("refuses a body that is not valid UTF-8 with 400 naming the field", func(ctx ginkgo.SpecContext) {
		body := encodeJSON(cashOutRequest(f, "10.00", func(m, _ map[string]any) { m["externalId"] = "ext-MARK" }))
		body = bytes.Replace(body, []byte("MARK"), []byte{'a', 0xff, 'b'}, 1)
		r := rawPost(ctx, f, cashOutPath, body, nil)
		expectCashOutError(r, "HTTP_ERROR")
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.ContainElement(gomega.HavePrefix("externalId "))))
	})

	/*
		Check: cash-out/duplicate-key
		Gap G-03: a key given twice is refused with 400 naming it (docs/spec-gaps.md), not "the last wins"
		Description: A cash-out body giving "value" twice (1.00, then 500.00) MUST be answered 400
		HTTP_ERROR in the extended shape with a message naming value.
	*/
	framework.SandboxChoiceIt("refuses a body with a key given twice with 400 naming the key", func(ctx ginkgo.SpecContext) {
		body := encodeJSON(cashOutRequest(f, "1.00"))
		body = bytes.Replace(body, []byte("{"), []byte(`{"value":500.00,`), 1)
		r := rawPost(ctx, f, cashOutPath, body, nil)
		expectCashOutError(r, "HTTP_ERROR")
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.ContainElement(gomega.HavePrefix("value "))))
	})

	/*
		Check: cash-out/webhook-key-as-sent
		Gap G-28: the CashOut webhook's pixKey is details.key exactly as the client sent it (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: Cash-outs to the PHONE key 11987654321 and to a RANDOM key without hyphens MUST,
		once settled, send CashOut webhooks whose pixKey is 11987654321 and the key without hyphens:
		the key as sent, not the DICT's +55 or hyphenated form.
	*/
	framework.SandboxIt("echoes details.key as sent in the CashOut webhook's pixKey", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		for keyType, key := range map[string]string{"PHONE": "11987654321", "RANDOM": strings.ReplaceAll(framework.UUIDv4(), "-", "")} {
			m := cashOutRequest(f, "1.00", func(_, details map[string]any) { details["keyType"], details["key"] = keyType, key })
			acceptCashOut(ctx, f, m, "")
			d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
			gomega.Expect(d).To(framework.HaveJSONField("pixKey", key), "pixKey of the %s cash-out", keyType)
		}
	})
})

var _ = ginkgo.Describe("POST /dict/pix", framework.Res("transfer"), framework.FamilyBacen, func() {
	f := framework.New("transfer-fidelity", framework.WithBalance("10000.00"))

	/*
		Check: transfer/night-limit
		Spec: "Errors > Cash-out and cash-in codes" (night operation (20:00 to 06:00) above reduced limit); "Errors > Central Bank-compatible routes" (POST /dict/pix 422: business refusals)
		Gap G-24: the limits bind every PIX the account sends, POST /dict/pix included, refused there with 422 (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/clock {"now":"<day>T23:30:00Z"} (20:30 in São Paulo); PUT /_sandbox/accounts/{id}/settings {"nightLimit":1000.00}
		Description: At 20:30 in São Paulo with a night limit of 1,000.00, a transfer of 5,000.00
		MUST be answered 422 in the minimal error shape, available MUST not change, and a transfer of
		1,000.00 MUST be accepted. Afterwards the clock is moved on to 09:00 in São Paulo.
	*/
	framework.SandboxIt("rejects a transfer above the night limit at 20:30 in São Paulo with 422", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		clockToSaoPauloNight(ctx, f)
		putSettings(ctx, f, sandbox.SettingsUpdate{NightLimit: "1000.00"})
		dest := transferDestination(ctx, f)
		before := f.Balance(ctx)
		r := postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, "5000.00"), "")
		expectRejected(r, http.StatusUnprocessableEntity)
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.ContainSubstring("night limit")))
		expectBalance(f.Balance(ctx), before, "after the refusal")
		acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, "1000.00"), "")
	})

	/*
		Check: transfer/limits-shared-with-cash-out
		Spec: "Errors > Cash-out and cash-in codes" (per-transaction limit; daily accumulated amount above daily limit)
		Gap G-24: POST /dict/pix and cash-out count toward one daily total; a transfer above a limit is 422 (docs/spec-gaps.md)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"perTransactionLimit":10.00, "dailyLimit":15.00}
		Description: With a per-transaction limit of 10.00 and a daily limit of 15.00, a transfer of
		10.01 MUST be answered 422 (minimal shape); after a cash-out of 10.00 a transfer of 5.01 MUST
		be answered 422, one of 5.00 MUST be accepted, and then a cash-out of 0.01 MUST be answered
		400 PIX_DAILY_LIMIT_EXCEEDED.
	*/
	framework.SandboxIt("counts transfers and cash-outs toward one daily limit", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{PerTransactionLimit: "10.00", DailyLimit: "15.00"})
		dest := transferDestination(ctx, f)
		expectRejected(postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, "10.01"), ""), http.StatusUnprocessableEntity)
		acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "")
		expectRejected(postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, "5.01"), ""), http.StatusUnprocessableEntity)
		acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, "5.00"), "")
		expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, "0.01"), ""), "PIX_DAILY_LIMIT_EXCEEDED")
	})

	/*
		Check: transfer/strict-input
		Gap G-03: invalid UTF-8 and a key given twice are refused with 400 naming the field (docs/spec-gaps.md)
		Description: A transfer whose description holds the byte 0xFF, and one giving pixKey twice,
		MUST each be answered 400 in the minimal error shape with a message starting with the
		field's name (description, pixKey).
	*/
	framework.SandboxChoiceIt("refuses invalid UTF-8 and a key given twice with 400 naming the field", func(ctx ginkgo.SpecContext) {
		body := transferBody(wellFormedKey(f), transferAmount, func(m map[string]any) { m["description"] = "MARK" })
		bad := bytes.Replace(body, []byte("MARK"), []byte{0xc3, 'x'}, 1)
		expectMinimalNaming(rawPost(ctx, f, transferPath, bad, transferHeaders(framework.UUIDv4(), "")), "description")
		dup := bytes.Replace(body, []byte("{"), []byte(`{"pixKey":"pix@bcb.gov.br",`), 1)
		expectMinimalNaming(rawPost(ctx, f, transferPath, dup, transferHeaders(framework.UUIDv4(), "")), "pixKey")
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-in", framework.Res("cash-in"), framework.FamilyStd, func() {
	f := framework.New("cash-in-fidelity")

	/*
		Check: cash-in/receive-webhook
		Spec: "What the service does", balance effects (PIX in: on settlement a RECEIVE webhook with status LIQUIDATED is sent); "Versioning" (webhook payloads are the V2 envelope); "Events > Envelope V2", RECEIVE row
		Gap G-38: data.id is the charge's transactionId and data.txId the charge's own txid (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/webhook-targets (cash_in); POST /_sandbox/payments {transactionId, payer}; GET /_sandbox/transactions/{id} (txId)
		Description: Once a charge of 25.00 is paid, its cash_in target MUST receive a V2 envelope
		with type RECEIVE and data holding id (a JSON number equal to the charge's transactionId),
		txId (the charge's txid), status LIQUIDATED, payment.amount "25.00" (a string) and
		payment.currency BRL, endToEndId equal to the payment's, debtorAccount.name the payer's
		name and debtorAccount.document the payer's document masked.
	*/
	framework.SandboxIt("sends a V2 RECEIVE webhook with status LIQUIDATED when a charge is paid", framework.Spec, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		payer := externalPayer(ctx, f)
		res := pay(ctx, f, sandbox.PaymentRequest{TransactionID: c.id, Payer: payer})
		txid := transaction(ctx, f, c.id).TxID
		d := awaitWebhook(ctx, f, f.Webhooks, false, "data.txId", txid)
		gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(d).To(framework.HaveJSONField("data.id", json.Number(c.id)))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", "25.00"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.currency", "BRL"))
		gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", res.EndToEndID))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.name", payer.Name))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.document", gomega.Not(gomega.Equal(payer.Document))), "the document is masked")
	})

	/*
		Check: cash-in/receive-expired
		Gap G-38: a charge that expires unpaid sends RECEIVE with status ERROR, errorCode PAYMENT_EXPIRED and endToEndId null (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/webhook-targets (cash_in); POST /_sandbox/clock/advance
		Description: A charge with expirationTime 30 left unpaid MUST, 30 seconds later, send its
		cash_in target a RECEIVE envelope with data.status ERROR, data.errorCode PAYMENT_EXPIRED, a
		non-empty data.errorMessage and data.endToEndId null.
	*/
	framework.SandboxIt("sends RECEIVE with status ERROR when a charge expires unpaid", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 30 }), "")
		txid := transaction(ctx, f, c.id).TxID
		d := awaitWebhookAfter(ctx, f, f.Webhooks, 30*time.Second, "data.txId", txid)
		gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "ERROR"))
		gomega.Expect(d).To(framework.HaveJSONField("data.errorCode", "PAYMENT_EXPIRED"))
		gomega.Expect(d).To(framework.HaveJSONField("data.errorMessage", nonEmptyString()))
		gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", nil))
	})
})

var _ = ginkgo.Describe("Webhook deliveries", framework.Res("webhooks"), func() {
	f := framework.New("webhook-fidelity")

	/*
		Check: webhooks/signed-wall-clock
		Gap G-30: webhook-timestamp is the wall-clock time of the attempt in every clock mode, so Standard Webhooks libraries verify it with their 5-minute tolerance; X-Pixsandbox-Simulation-Time carries the simulation time (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/webhook-targets with a secret; POST /_sandbox/clock/advance (1 hour, then the settlement)
		Description: After the clock is advanced by one hour, a signed CashOut delivery MUST carry a
		valid v1 signature, a webhook-timestamp within 5 minutes of the receiver's wall clock at
		arrival, and an X-Pixsandbox-Simulation-Time in ISO 8601 at or after the simulation time
		before the cash-out.
	*/
	framework.SandboxIt("signs the wall-clock time in webhook-timestamp after a clock advance, the simulation time in its own header", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		secret := framework.NewWebhookSecret()
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, secret)
		clk, err := f.Sandbox.Advance(ctx, 3600)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m := cashOutRequest(f, "1.00")
		acceptCashOut(ctx, f, m, "")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		gomega.Expect(d.VerifySignature(secret)).To(gomega.Succeed())
		ts, err := strconv.ParseInt(d.Header.Get(framework.HeaderWebhookTimestamp), 10, 64)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "webhook-timestamp %q", d.Header.Get(framework.HeaderWebhookTimestamp))
		gomega.Expect(time.Unix(ts, 0)).To(gomega.BeTemporally("~", d.ReceivedAt, 5*time.Minute), "webhook-timestamp against the receiver's wall clock")
		sim, err := apiclient.ParseISO8601(d.Header.Get("X-Pixsandbox-Simulation-Time"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "X-Pixsandbox-Simulation-Time")
		gomega.Expect(sim).To(gomega.BeTemporally(">=", clk.Now.Truncate(time.Millisecond)), "simulation time of the delivery")
	})

	/*
		Check: webhooks/resend-by-transaction-uuid
		Gap G-55: the resend route accepts the UUID transactionId of the cash-out response, the identifier that response gives (docs/spec-gaps.md)
		Sandbox: POST /_sandbox/clock/advance
		Description: Resending a settled cash-out by the transactionId its 201 response gave, with
		the body url of the receiver, MUST be answered 200 with statusCode 2xx, and the receiver MUST
		get the cash-out's webhook again.
	*/
	framework.SandboxIt("resends by the cash-out response's transactionId", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "1.00")
		id := acceptCashOut(ctx, f, m, "")
		f.AwaitSettlement(ctx, func(g gomega.Gomega) {
			tx, err := f.Sandbox.Transaction(ctx, id)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(tx.Status).To(gomega.Equal("CONFIRMED"))
		})
		expectResent(resendAs(ctx, f, f.Token(ctx), id, resendBody(f.Webhooks.URL())))
		awaitWebhook(ctx, f, f.Webhooks, false, "externalId", externalID(m))
	})
})

var _ = ginkgo.Describe("GET /api/transactions", framework.Res("transactions"), framework.FamilyStd, func() {
	f := framework.New("transactions-fidelity")

	/*
		Check: transactions/processed-at-pending
		Spec: "Resources > Transaction listing item" (processedAt: string, ISO 8601)
		Gap G-53: while an item is Pendente its processedAt equals createdAt, never null (docs/spec-gaps.md)
		Sandbox: X-Sandbox-Scenario: SETTLEMENT_PENDING (the cash-out stays pending)
		Description: A pending cash-out MUST be listed by GET /api/transactions?externalId= as
		Pendente with processedAt an ISO 8601 string equal to its createdAt.
	*/
	framework.SandboxIt("gives a pending item processedAt as an ISO 8601 string, its createdAt", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "1.00")
		acceptCashOut(ctx, f, m, "SETTLEMENT_PENDING")
		items := dataItems(listAs(ctx, f, f.Token(ctx), withQuery(transactionsPath, "externalId="+url.QueryEscape(externalID(m)))))
		gomega.Expect(items).To(gomega.HaveLen(1))
		gomega.Expect(items[0]).To(framework.HaveJSONField("status", labelPendente))
		gomega.Expect(items[0]).To(framework.HaveJSONField("processedAt", framework.BeISO8601()))
		gomega.Expect(items[0]["processedAt"]).To(gomega.Equal(items[0]["createdAt"]))
	})

	/*
		Check: transactions/interval-message
		Spec: "Endpoints > GET /api/transactions" (max interval 31 days; 400)
		Gap G-53: the 400 names the field in a sentence (docs/spec-gaps.md)
		Description: An interval of 32 days MUST be answered 400 in the minimal error shape whose
		message is a sentence starting with "endDate must".
	*/
	framework.SandboxChoiceIt("names endDate in a sentence when the interval exceeds 31 days", func(ctx ginkgo.SpecContext) {
		r := f.Do(ctx, http.MethodGet, withQuery(transactionsPath, "startDate=2026-02-01&endDate=2026-03-05"), f.Token(ctx), nil, nil)
		expectMinimalNaming(r, "endDate")
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.HavePrefix("endDate must ")))
	})
})
