package conformance

import (
	"context"
	"encoding/json"
	"fmt"
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

// webhooksPath is the webhook registration route (POST registers, GET lists).
const webhooksPath = "/api/webhooks"

// resendPrefix starts the resend route; the transaction identifier follows as
// one path segment.
const resendPrefix = "/api/resend-webhook/"

// registrationProbeURL is what the checks of the disabled registration routes
// register (for med_rejected) to learn whether registration is enabled. It
// never resolves (.invalid, RFC 2606), and it is the same on every run, so that
// on a target with registration enabled repeated runs update one registration
// instead of filling the event type's three URLs.
const registrationProbeURL = "https://example.invalid/pixsandbox-conformance/webhook"

// Messages of the sandbox's registration routes (Gap G-56).
const (
	messageRegistrationDisabled = "Webhook registration is currently disabled."
	messageWebhookRegistered    = "Webhook registered."
	messageWebhookUpdated       = "Webhook updated."
)

// resendRateLimit is "Limits": resend webhook, 60 requests per minute.
const resendRateLimit = 60

// blockedHeaderNames are the blocked header names of "Endpoints > POST
// /api/webhooks", written as HTTP writes them: names are case-insensitive.
var blockedHeaderNames = []string{"Host", "Content-Length", "Connection", "Transfer-Encoding", "Content-Type", "User-Agent"}

// Reasons given when a webhook check cannot run.
const (
	skipNoResendTransaction = "no transaction that has sent its webhook: give -resend-transaction " +
		"(PIXSANDBOX_CONFORMANCE_RESEND_TRANSACTION), run against a target with the /_sandbox control plane, " +
		"or let the account have a CONFIRMED transaction in the default window of GET /api/transactions"
	skipRegistrationEnabled = "POST /api/webhooks answered success true: the target has webhook registration enabled, " +
		"so its disabled behaviour cannot be checked (the probe registered " + registrationProbeURL + " for med_rejected)"
)

// resendPath returns the resend route of a transaction identifier.
func resendPath(ident string) string { return resendPrefix + url.PathEscape(ident) }

// resendBody returns the body {"url": u} of a one-off resend.
func resendBody(u string) []byte { return encodeJSON(map[string]string{"url": u}) }

// resendAs sends POST /api/resend-webhook/{ident} with token and body (nil:
// no body).
func resendAs(ctx context.Context, f *framework.Framework, token, ident string, body []byte) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, resendPath(ident), token, body, nil)
}

// expectResent checks a resend's answer: 200 with message a string,
// webhookLogId a JSON number, sentAt in ISO 8601 and statusCode a JSON number,
// the target's answer, 2xx.
func expectResent(r *apiclient.Response) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	gomega.Expect(r).To(framework.HaveJSONField("message", gomega.BeAssignableToTypeOf("")))
	gomega.Expect(r).To(framework.HaveJSONNumber("webhookLogId"))
	gomega.Expect(r).To(framework.HaveJSONField("sentAt", framework.BeISO8601()))
	gomega.Expect(r).To(framework.HaveJSONNumber("statusCode"))
	code := intField(r, "statusCode")
	gomega.Expect(code >= 200 && code <= 299).To(gomega.BeTrue(), "statusCode %d: the suite's receiver answered 2xx", code)
}

// settledCashOutAs sends a cash-out of value with token and lets it settle
// (Framework.AwaitSettlement: the spec must be ginkgo.Serial), returning its
// body and its number from GET /_sandbox/transactions/{id}.
func settledCashOutAs(ctx context.Context, f *framework.Framework, token, value string) (map[string]any, string) {
	ginkgo.GinkgoHelper()
	m := cashOutRequest(f, value)
	r := f.Do(ctx, http.MethodPost, cashOutPath, token, encodeJSON(m), nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	id := stringField(r, "transactionId")
	var number string
	f.AwaitSettlement(ctx, func(g gomega.Gomega) {
		tx, err := f.Sandbox.Transaction(ctx, id)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(tx.Status).To(gomega.Equal("CONFIRMED"), "status of cash-out %s", id)
		number = tx.ID.String()
	})
	return m, number
}

// settledCashOut is settledCashOutAs with the spec's token.
func settledCashOut(ctx context.Context, f *framework.Framework, value string) (map[string]any, string) {
	ginkgo.GinkgoHelper()
	return settledCashOutAs(ctx, f, f.Token(ctx), value)
}

// resendable returns the identifier of a transaction of the spec's account that
// has sent its webhook: -resend-transaction when given; on a target with a
// control plane, the number of a fresh cash-out of 0.01 settled by the clock
// (with its body; the spec must be ginkgo.Serial); otherwise the transactionId
// of the newest CONFIRMED transaction GET /api/transactions lists. Without any
// the spec is skipped.
func resendable(ctx context.Context, f *framework.Framework) (string, map[string]any) {
	ginkgo.GinkgoHelper()
	if id := f.Config.ResendTransaction; id != "" {
		return id, nil
	}
	if f.ControlPlane {
		m, number := settledCashOut(ctx, f, "0.01")
		return number, m
	}
	r := listAs(ctx, f, f.Token(ctx), withQuery(transactionsPath, "status=CONFIRMED&size=1"))
	items := dataItems(r)
	if len(items) == 0 {
		ginkgo.Skip(skipNoResendTransaction)
	}
	id, _ := items[0]["transactionId"].(string)
	gomega.Expect(id).NotTo(gomega.BeEmpty(), "transactionId of %s", r)
	return id, nil
}

// expectWebhookEnvelope checks that a delivery is a webhook in one of the
// specification's shapes, with consistent amounts: the CashOut shape ("Resources
// > Cash-out webhook payload": event, movementType DEBIT or CREDIT,
// originalAmount, feeAmount and finalAmount JSON numbers of at most 2 decimals,
// finalAmount the original amount with the fee: + fee for a debit, ± fee for a
// credit) or the Envelope V2 ("Events > Envelope V2": type TRANSFER, RECEIVE or
// REFUND, data an object, data.payment.amount money of at least 0.01, and for a
// REFUND the refunds' amounts not above it).
func expectWebhookEnvelope(d framework.Delivery) {
	ginkgo.GinkgoHelper()
	body := d.JSON()
	gomega.Expect(body).NotTo(gomega.BeNil(), "the body of %s is a JSON object", d)
	_, hasEvent := body["event"]
	_, hasType := body["type"]
	gomega.Expect(hasEvent || hasType).To(gomega.BeTrue(), "%s has neither event (the CashOut shape) nor type (Envelope V2)", d)
	if hasEvent {
		gomega.Expect(d).To(framework.HaveJSONField("event", nonEmptyString()))
		gomega.Expect(d).To(framework.HaveJSONField("movementType", gomega.BeElementOf("DEBIT", "CREDIT")))
		for _, p := range []string{"originalAmount", "feeAmount", "finalAmount"} {
			gomega.Expect(d).To(framework.HaveJSONField(p, framework.BeDecimal2Number()))
		}
		orig, fee, final := moneyField(d, "originalAmount"), moneyField(d, "feeAmount"), moneyField(d, "finalAmount")
		if body["movementType"] == "DEBIT" {
			gomega.Expect(brl(final)).To(gomega.Equal(brl(orig+fee)), "finalAmount = originalAmount + feeAmount of a debit")
		} else {
			gomega.Expect(brl(final)).To(gomega.Or(gomega.Equal(brl(orig-fee)), gomega.Equal(brl(orig+fee))), "finalAmount = originalAmount ± feeAmount of a credit")
		}
		return
	}
	gomega.Expect(d).To(framework.HaveJSONField("type", gomega.BeElementOf("TRANSFER", "RECEIVE", "REFUND")))
	gomega.Expect(d).To(framework.HaveJSONField("data", gomega.BeAssignableToTypeOf(map[string]any{})))
	amount := moneyField(d, "data.payment.amount")
	gomega.Expect(amount).To(gomega.BeNumerically(">=", 1), "data.payment.amount")
	if body["type"] == "REFUND" {
		v, _ := d.Field("data.refunds")
		refunds, _ := v.([]any)
		var sum int64
		for i := range refunds {
			sum += moneyField(d, fmt.Sprintf("data.refunds[%d].payment.amount", i))
		}
		gomega.Expect(sum).To(gomega.BeNumerically("<=", amount), "the refunds of data.refunds add up to more than data.payment.amount")
	}
}

// registrationBody returns a POST /api/webhooks body.
func registrationBody(u, eventType string, headers ...sandbox.Header) map[string]any {
	m := map[string]any{"url": u, "eventType": eventType}
	if len(headers) > 0 {
		m["headers"] = headers
	}
	return m
}

// postWebhook sends POST /api/webhooks with the spec's token.
func postWebhook(ctx context.Context, f *framework.Framework, m map[string]any) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, webhooksPath, f.Token(ctx), encodeJSON(m), nil)
}

// registerWebhook sends a registration that must succeed: 200, success true,
// and message want.
func registerWebhook(ctx context.Context, f *framework.Framework, m map[string]any, want string) {
	ginkgo.GinkgoHelper()
	r := postWebhook(ctx, f, m)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	gomega.Expect(r).To(framework.HaveJSONField("success", true))
	gomega.Expect(r).To(framework.HaveJSONField("message", want))
}

// probeRegistration registers registrationProbeURL for med_rejected and
// requires 200 with success a boolean; when success is true the target has
// registration enabled and the spec is skipped (nothing is undone). It returns
// the answer.
func probeRegistration(ctx context.Context, f *framework.Framework) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := postWebhook(ctx, f, registrationBody(registrationProbeURL, eventMedRejected))
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	gomega.Expect(r).To(framework.HaveJSONField("success", gomega.BeAssignableToTypeOf(true)))
	if v, _ := r.Field("success"); v == true {
		ginkgo.Skip(skipRegistrationEnabled)
	}
	return r
}

// useRegistration switches the sandbox's registration routes to mode for the
// rest of the spec and switches them back to the mode found afterwards. The
// switch is global: the spec must be ginkgo.Serial.
func useRegistration(ctx context.Context, f *framework.Framework, mode string) {
	ginkgo.GinkgoHelper()
	prev, err := f.Sandbox.WebhookRegistration(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "GET /_sandbox/webhook-registration")
	got, err := f.Sandbox.SetWebhookRegistration(ctx, mode)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "PUT /_sandbox/webhook-registration %s", mode)
	gomega.Expect(got).To(gomega.Equal(mode), "the mode after PUT /_sandbox/webhook-registration")
	ginkgo.DeferCleanup(func(ctx context.Context) {
		_, err := f.Sandbox.SetWebhookRegistration(ctx, prev)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "switching webhook registration back to %s", prev)
	})
}

// webhookURL returns a fresh HTTPS URL for registrations that nothing is
// delivered to (.invalid never resolves).
func webhookURL(f *framework.Framework) string {
	return "https://example.invalid/pixsandbox-conformance/" + f.UniqueID("hook")
}

// listedWebhooks reads GET /api/webhooks (200) and returns the answer and its
// webhooks by url.
func listedWebhooks(ctx context.Context, f *framework.Framework) (*apiclient.Response, map[string]map[string]any) {
	ginkgo.GinkgoHelper()
	r := f.Do(ctx, http.MethodGet, webhooksPath, f.Token(ctx), nil, nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	gomega.Expect(r).To(framework.HaveJSONField("webhooks", gomega.BeAssignableToTypeOf([]any{})))
	v, _ := r.Field("webhooks")
	out := map[string]map[string]any{}
	for i, e := range v.([]any) {
		w, ok := e.(map[string]any)
		gomega.Expect(ok).To(gomega.BeTrue(), "webhooks[%d] is not an object in %s", i, r)
		u, _ := w["url"].(string)
		out[u] = w
	}
	return r, out
}

// hasHeader reports whether hs holds the header name (case-insensitive) with
// value.
func hasHeader(hs []sandbox.Header, name, value string) bool {
	for _, h := range hs {
		if strings.EqualFold(h.Key, name) && h.Value == value {
			return true
		}
	}
	return false
}

var _ = ginkgo.Describe("POST /api/resend-webhook/{transactionIdentifier}", framework.Res("webhooks"), framework.FamilyStd, func() {
	f := framework.New("resend-webhook")

	/*
		Check: webhooks/resend
		Spec: "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (body url: a temporary target; response 200: message, webhookLogId (number), sentAt (ISO 8601), statusCode (number, the target's answer)); "Events > Other emissions" (a transaction webhook can be re-sent); "Resources > Cash-out webhook payload"; "Events > Envelope V2"; "Versioning" (webhook payloads are the V2 envelope)
		Description: Resending the webhook of a transaction that sent one (-resend-transaction;
		on a sandbox a cash-out of 0.01 settled by the clock, named by its number; elsewhere the
		newest CONFIRMED transaction of GET /api/transactions, named by its transactionId; skipped
		when none is at hand) with the body url of the suite's receiver MUST be answered 200 with
		message a string, webhookLogId a JSON number, sentAt in ISO 8601 and statusCode the JSON
		number the receiver answered (2xx); the receiver MUST get the webhook, in the CashOut shape
		(event, movementType and the three amounts, finalAmount the original amount with the fee)
		or the V2 envelope (type TRANSFER, RECEIVE or REFUND, data with payment.amount); on a
		sandbox it MUST be the cash-out's CashOut webhook, externalId and originalAmount 0.01.
	*/
	framework.SpecIt("resends a transaction's webhook to the body url and answers with the target's status", framework.Webhook, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		ident, m := resendable(ctx, f)
		r := resendAs(ctx, f, f.Token(ctx), ident, resendBody(f.Webhooks.URL()))
		expectResent(r)
		var d framework.Delivery
		f.Eventually(ctx, func(g gomega.Gomega) {
			ds := f.Webhooks.Deliveries()
			g.Expect(ds).NotTo(gomega.BeEmpty(), "no webhook resent to the receiver yet")
			d = ds[len(ds)-1]
		})
		expectWebhookEnvelope(d)
		if m != nil {
			gomega.Expect(d).To(framework.HaveJSONField("event", "CashOut"))
			gomega.Expect(d).To(framework.HaveJSONField("externalId", externalID(m)))
			gomega.Expect(brl(moneyField(d, "originalAmount"))).To(gomega.Equal("0.01"), "originalAmount of the resent CashOut")
		}
	})

	/*
		Check: webhooks/resend-unknown
		Spec: "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (transactionIdentifier: numeric id, externalId or end-to-end id; 404 transaction not found)
		Description: Resending, with the body url of the suite's receiver, an externalId no
		transaction of the account has and a well-formed end-to-end id no transaction has MUST each
		be answered 404, and nothing MUST reach the receiver.
	*/
	framework.SpecIt("answers 404 to an identifier no transaction of the account has", func(ctx ginkgo.SpecContext) {
		for _, ident := range []string{f.UniqueID("conformanceunknown"), unknownE2E(f)} {
			gomega.Expect(resendAs(ctx, f, f.Token(ctx), ident, resendBody(f.Webhooks.URL()))).To(framework.HaveStatus(http.StatusNotFound), "identifier %s", ident)
		}
		gomega.Expect(f.Webhooks.Deliveries()).To(gomega.BeEmpty(), "deliveries to the receiver")
	})

	/*
		Check: webhooks/resend-identifiers
		Spec: "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (numeric transaction id, externalId, or end-to-end id)
		Gap G-55: the end-to-end id is the 32-character Central Bank form (a 33-character value matches nothing, 404); the resent body is the transaction's latest event of its own type with the same webhook-id; the resend is one attempt recorded in the delivery log, webhookLogId its id
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance; GET /_sandbox/webhook-deliveries?transactionId=
		Description: Once a cash-out of 10.00 has settled and its CashOut webhook reached the
		cash_out target, resending it to another URL of the receiver by its number, by its
		endToEndId and by its externalId MUST each be answered 200 with statusCode 200, and that URL
		MUST receive three deliveries with the webhook-id header and the body of the original
		delivery; the delivery log MUST hold, for that URL, three deliveries of one attempt each,
		eventId the webhook-id, whose webhookLogIds are those answered; resending by "E" followed by
		the endToEndId (33 characters) MUST be answered 404.
	*/
	framework.SandboxIt("resends by number, end-to-end id and externalId with the webhook-id of the original delivery", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		m, number := settledCashOut(ctx, f, "10.00")
		orig := awaitWebhook(ctx, f, f.Webhooks, false, "externalId", externalID(m))
		webhookID := orig.Header.Get(framework.HeaderWebhookID)
		gomega.Expect(webhookID).NotTo(gomega.BeEmpty(), "webhook-id of the original delivery")
		e2e, _ := orig.Field("endToEndId")
		e2eID, _ := e2e.(string)
		gomega.Expect(e2eID).To(gomega.MatchRegexp(endToEndPattern), "endToEndId of the CashOut webhook")

		other := f.Webhooks.Receiver.NewInbox()
		ginkgo.DeferCleanup(other.Forget)
		var logIDs []string
		for _, ident := range []string{number, e2eID, externalID(m)} {
			r := resendAs(ctx, f, f.Token(ctx), ident, resendBody(other.URL()))
			expectResent(r)
			gomega.Expect(r).To(framework.HaveJSONField("statusCode", 200), "resend by %s", ident)
			v, _ := r.Field("webhookLogId")
			logIDs = append(logIDs, fmt.Sprint(v))
		}
		got := other.Deliveries()
		gomega.Expect(got).To(gomega.HaveLen(3), "deliveries of the three resends")
		for i, d := range got {
			gomega.Expect(d.Header.Get(framework.HeaderWebhookID)).To(gomega.Equal(webhookID), "webhook-id of resend %d", i+1)
			gomega.Expect(string(d.Body)).To(gomega.Equal(string(orig.Body)), "body of resend %d", i+1)
		}

		log, err := f.Sandbox.Deliveries(ctx, sandbox.DeliveryQuery{TransactionID: number})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var logged []string
		for _, dl := range log {
			if dl.URL != other.URL() {
				continue
			}
			gomega.Expect(dl.EventID).To(gomega.Equal(webhookID), "eventId of logged resend %s", dl.ID)
			gomega.Expect(dl.Attempts).To(gomega.HaveLen(1), "attempts of logged resend %s", dl.ID)
			for _, a := range dl.Attempts {
				logged = append(logged, a.WebhookLogID.String())
			}
		}
		gomega.Expect(logged).To(gomega.ConsistOf(logIDs), "webhookLogIds of the resends in the delivery log")

		gomega.Expect(resendAs(ctx, f, f.Token(ctx), "E"+e2eID, resendBody(other.URL()))).To(framework.HaveStatus(http.StatusNotFound), "a 33-character end-to-end id")
	})

	/*
		Check: webhooks/resend-target
		Spec: "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (target rule: body url if given, otherwise the URL registered for the operation type, otherwise 400)
		Sandbox: POST /_sandbox/clock/advance; POST /_sandbox/webhook-targets (cash_out)
		Description: For a cash-out of 10.00 settled while the account had no webhook target,
		resending it by number without a body MUST be answered 400 and deliver nothing; once a
		cash_out target is registered, the same request MUST be answered 200 with statusCode 200,
		and the target MUST receive the cash-out's CashOut webhook.
	*/
	framework.SandboxIt("resends to the registered target without a body url, and answers 400 when there is none", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		m, number := settledCashOut(ctx, f, "10.00")
		gomega.Expect(resendAs(ctx, f, f.Token(ctx), number, nil)).To(framework.HaveStatus(http.StatusBadRequest), "no url and no registered target")
		gomega.Expect(f.Webhooks.Deliveries()).To(gomega.BeEmpty(), "deliveries before the target is registered")
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		r := resendAs(ctx, f, f.Token(ctx), number, nil)
		expectResent(r)
		gomega.Expect(r).To(framework.HaveJSONField("statusCode", 200))
		d := awaitWebhook(ctx, f, f.Webhooks, false, "externalId", externalID(m))
		gomega.Expect(d).To(framework.HaveJSONField("event", "CashOut"))
		gomega.Expect(f.Webhooks.Deliveries()).To(gomega.HaveLen(1), "deliveries to the target: the resend alone")
	})

	/*
		Check: webhooks/resend-other-account
		Spec: "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (404 transaction not of the account)
		Sandbox: a second account from POST /_sandbox/accounts; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: Another account's settled cash-out MUST be resendable by that account (200),
		and resending it as the spec's account, with the body url of the receiver, by its number,
		its externalId and its endToEndId MUST each be answered 404.
	*/
	framework.SandboxIt("answers 404 to another account's transaction", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		acct, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		otherToken := f.TokenFor(ctx, framework.IdentityOf(acct))
		m, number := settledCashOutAs(ctx, f, otherToken, "10.00")
		e2e := transaction(ctx, f, number).EndToEndID
		gomega.Expect(e2e).NotTo(gomega.BeEmpty(), "endToEndId of the settled cash-out")
		expectResent(resendAs(ctx, f, otherToken, number, resendBody(f.Webhooks.URL())))
		for _, ident := range []string{number, externalID(m), e2e} {
			gomega.Expect(resendAs(ctx, f, f.Token(ctx), ident, resendBody(f.Webhooks.URL()))).To(framework.HaveStatus(http.StatusNotFound), "identifier %s", ident)
		}
	})

	/*
		Check: webhooks/resend-no-webhook-yet
		Gap G-55: a transaction of the account that has sent no webhook yet (a pending cash-out) exists, so it is not 404: 400 with a message saying no webhook has been sent yet
		Sandbox: none beyond the public routes (no clock move: the cash-out stays pending)
		Description: Resending a cash-out that is still pending, with the body url of the receiver,
		by its externalId and by the transactionId its response gave, MUST each be answered 400 in
		the minimal error shape with a message that names transactionIdentifier and says no webhook
		has been sent yet, and nothing MUST reach the receiver.
	*/
	framework.SandboxIt("answers 400 to a transaction that has sent no webhook yet", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "1.00")
		id := acceptCashOut(ctx, f, m, "")
		for _, ident := range []string{externalID(m), id} {
			r := resendAs(ctx, f, f.Token(ctx), ident, resendBody(f.Webhooks.URL()))
			gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest), "identifier %s", ident)
			gomega.Expect(r).To(framework.HaveMinimalErrorShape())
			gomega.Expect(r).To(framework.HaveJSONField("message", gomega.And(gomega.HavePrefix("transactionIdentifier "), gomega.ContainSubstring("no cash_out webhook yet"))), "identifier %s", ident)
		}
		gomega.Expect(f.Webhooks.Deliveries()).To(gomega.BeEmpty(), "deliveries to the receiver")
	})

	/*
		Check: webhooks/resend-rate-limit
		Spec: "Limits", rate limit row (resend webhook: 60 requests per minute; exceeding gives 429); "Endpoints > POST /api/resend-webhook/{transactionIdentifier}" (429)
		Gap G-55: the minute is of simulation time (fixed one-minute windows, per account), and the 429 carries Retry-After
		Sandbox: POST /_sandbox/clock (to 10.7 s past a minute); POST /_sandbox/clock/advance
		Description: With the clock 10.7 seconds into a minute, 60 resends of a settled cash-out to
		the receiver MUST be answered 200 and the 61st 429 with Retry-After a whole number of
		seconds from 1 to 60, nothing delivered for it; once the clock has moved by Retry-After
		seconds (at most the 60 s of the window), a resend MUST be answered 200 again.
	*/
	framework.SandboxIt("answers 429 with Retry-After to the 61st resend within a minute", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		_, number := settledCashOut(ctx, f, "10.00")
		clockIntoMinute(ctx, f)
		tok, body := f.Token(ctx), resendBody(f.Webhooks.URL())
		for i := range resendRateLimit {
			gomega.Expect(resendAs(ctx, f, tok, number, body)).To(framework.HaveStatus(http.StatusOK), "resend %d of the minute", i+1)
		}
		r := resendAs(ctx, f, tok, number, body)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusTooManyRequests), "resend %d of the minute", resendRateLimit+1)
		wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "Retry-After %q", r.Header.Get("Retry-After"))
		gomega.Expect(wait).To(gomega.BeNumerically(">=", 1), "Retry-After")
		gomega.Expect(wait).To(gomega.BeNumerically("<=", 60), "Retry-After")
		gomega.Expect(f.Webhooks.Deliveries()).To(gomega.HaveLen(resendRateLimit), "deliveries: none for the refused resend")
		advance(ctx, f, time.Duration(wait)*time.Second)
		expectResent(resendAs(ctx, f, tok, number, body))
	})
})

var _ = ginkgo.Describe("POST /api/webhooks", framework.Res("webhooks"), framework.FamilyStd, func() {
	f := framework.New("webhooks")

	/*
		Check: webhooks/register-disabled
		Spec: "Endpoints > POST /api/webhooks (currently disabled)" (answers 200 with success false and a message stating the route is disabled, and stores nothing); "What the service does", capability 8
		Description: A registration of an HTTPS URL for med_rejected MUST be answered 200 with
		success a boolean; when it is false (the route disabled, as the spec says it currently is)
		message MUST be a non-empty string. When success is true the target has registration
		enabled and the check is skipped (the registration is left in place: the same
		never-resolving URL on every run).
	*/
	framework.SpecIt("answers 200 with success false and a message while registration is disabled", func(ctx ginkgo.SpecContext) {
		r := probeRegistration(ctx, f)
		gomega.Expect(r).To(framework.HaveJSONField("success", false))
		gomega.Expect(r).To(framework.HaveJSONField("message", nonEmptyString()))
	})

	/*
		Check: webhooks/disabled-stores-nothing
		Spec: "Endpoints > POST /api/webhooks (currently disabled)" (stores nothing); "Endpoints > GET /api/webhooks (currently disabled)" (an empty list even when webhooks exist)
		Gap G-56: disabled, POST answers {"success": false, "message": "Webhook registration is currently disabled."} and GET {"accountId": N, "webhooks": [], "total": 0}
		Sandbox: PUT /_sandbox/webhook-registration {"mode":"disabled"}; POST /_sandbox/webhook-targets (cash_in); GET /_sandbox/webhook-targets?accountId=
		Description: With registration disabled and a cash_in target registered through the
		control plane, POST /api/webhooks of another URL MUST be answered 200 with success false and
		message "Webhook registration is currently disabled.", the account's targets MUST still be
		the control plane's one alone, and GET /api/webhooks MUST answer 200 with accountId the
		account's number, webhooks [] and total 0.
	*/
	framework.SandboxIt("stores nothing and lists nothing while disabled, even when targets exist", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		useRegistration(ctx, f, sandbox.WebhookRegistrationDisabled)
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		r := postWebhook(ctx, f, registrationBody(webhookURL(f), eventCashIn))
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		gomega.Expect(r).To(framework.HaveJSONField("success", false))
		gomega.Expect(r).To(framework.HaveJSONField("message", messageRegistrationDisabled))
		ts, err := f.Sandbox.WebhookTargets(ctx, f.Identity.ID)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(ts).To(gomega.HaveLen(1), "the account's targets: %+v", ts)
		gomega.Expect(ts[0].URL).To(gomega.Equal(f.Webhooks.URL()), "the account's target")

		list, byURL := listedWebhooks(ctx, f)
		gomega.Expect(byURL).To(gomega.BeEmpty(), "webhooks while disabled")
		gomega.Expect(list).To(framework.HaveJSONField("accountId", json.Number(f.Identity.ID)))
		gomega.Expect(list).To(framework.HaveJSONField("total", 0))
	})

	/*
		Check: webhooks/register-invalid
		Spec: "Endpoints > POST /api/webhooks (currently disabled)", intended shape (url HTTPS; eventType cash_in, cash_out, refund_in, refund_out, med_created, med_accepted, med_rejected; headers max 5; blocked header names host, content-length, connection, transfer-encoding, content-type, user-agent; up to 3 active URLs per event type; 400 URL not HTTPS, invalid event type, more than 5 headers, more than 3 active URLs per event); "Limits", webhook URLs and custom headers rows
		Gap G-56: the sandbox acts with the intended shape once registration is enabled
		Sandbox: PUT /_sandbox/webhook-registration {"mode":"enabled"} (switched back afterwards)
		Description: With registration enabled, a registration MUST be answered 400 when its url
		is http, when its eventType is CASH_IN or payment, when it carries 6 headers, when it
		carries a blocked header (Host, Content-Length, Connection, Transfer-Encoding, Content-Type
		or User-Agent, in any case), or when it would be the 4th active URL of cash_in after three
		accepted ones.
	*/
	table := []any{
		func(ctx ginkgo.SpecContext, before int, body func() map[string]any) {
			useRegistration(ctx, f, sandbox.WebhookRegistrationEnabled)
			for range before {
				registerWebhook(ctx, f, registrationBody(webhookURL(f), eventCashIn), messageWebhookRegistered)
			}
			gomega.Expect(postWebhook(ctx, f, body())).To(framework.HaveStatus(http.StatusBadRequest))
		},
		framework.Sandbox, framework.SandboxChoice, ginkgo.Serial,
		ginkgo.Entry("with an http url", 0, func() map[string]any {
			return registrationBody(strings.Replace(webhookURL(f), "https://", "http://", 1), eventCashIn)
		}),
		ginkgo.Entry("with eventType CASH_IN", 0, func() map[string]any { return registrationBody(webhookURL(f), "CASH_IN") }),
		ginkgo.Entry("with eventType payment", 0, func() map[string]any { return registrationBody(webhookURL(f), "payment") }),
		ginkgo.Entry("with 6 headers", 0, func() map[string]any {
			var hs []sandbox.Header
			for i := range 6 {
				hs = append(hs, sandbox.Header{Key: fmt.Sprintf("X-Conformance-%d", i+1), Value: "v"})
			}
			return registrationBody(webhookURL(f), eventCashIn, hs...)
		}),
		ginkgo.Entry("as the 4th active URL of cash_in", 3, func() map[string]any { return registrationBody(webhookURL(f), eventCashIn) }),
	}
	for _, name := range blockedHeaderNames {
		table = append(table, ginkgo.Entry("with the blocked header "+name, 0, func() map[string]any {
			return registrationBody(webhookURL(f), eventCashIn, sandbox.Header{Key: name, Value: "conformance"})
		}))
	}
	ginkgo.DescribeTable("refuses with 400, once enabled, a registration", table...)

	/*
		Check: webhooks/register-and-update
		Spec: "Endpoints > POST /api/webhooks (currently disabled)", intended shape (headers max 5; registering an already registered URL for that event updates it and leaves the others unchanged; response 200 success, message); "Endpoints > GET /api/webhooks (currently disabled)", intended response (accountId number, webhooks, total); "Resources > Webhook registration" (id number, type, url, headers object, isActive boolean, createdAt ISO 8601)
		Gap G-56: enabled, the messages are "Webhook registered." and "Webhook updated."; a URL posted while disabled is not stored
		Sandbox: PUT /_sandbox/webhook-registration (disabled, then enabled; switched back afterwards)
		Description: A URL posted while registration is disabled MUST NOT be listed once it is
		enabled. Enabled, registering URL A for cash_in with 5 headers, URL B with one header and
		URL C without headers MUST each be answered 200 {success true, message "Webhook
		registered."}; registering A again with one other header, while cash_in has its 3 active
		URLs, MUST be answered 200 {success true, message "Webhook updated."}; GET /api/webhooks
		MUST then answer accountId the account's number, total 3 and webhooks A, B and C, each with
		its id unchanged by the update (a number), type cash_in, isActive true, createdAt in ISO
		8601 and headers an object: A's the new header alone, B's and C's their own.
	*/
	framework.SandboxIt("registers, updates a registered URL and lists the registrations with headers as an object", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		useRegistration(ctx, f, sandbox.WebhookRegistrationDisabled)
		ghost := webhookURL(f)
		r := postWebhook(ctx, f, registrationBody(ghost, eventCashIn))
		gomega.Expect(r).To(framework.HaveJSONField("success", false), "a registration while disabled")
		_, err := f.Sandbox.SetWebhookRegistration(ctx, sandbox.WebhookRegistrationEnabled)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		a, b, c := webhookURL(f), webhookURL(f), webhookURL(f)
		var five []sandbox.Header
		for i := range 5 {
			five = append(five, sandbox.Header{Key: fmt.Sprintf("X-Conformance-%d", i+1), Value: strconv.Itoa(i + 1)})
		}
		registerWebhook(ctx, f, registrationBody(a, eventCashIn, five...), messageWebhookRegistered)
		registerWebhook(ctx, f, registrationBody(b, eventCashIn, sandbox.Header{Key: "X-Conformance-B", Value: "b"}), messageWebhookRegistered)
		registerWebhook(ctx, f, registrationBody(c, eventCashIn), messageWebhookRegistered)
		_, before := listedWebhooks(ctx, f)
		gomega.Expect(before).To(gomega.HaveLen(3), "webhooks listed before the update")
		gomega.Expect(before[a]).To(framework.HaveJSONField("headers", gomega.HaveLen(5)), "A's headers before the update")
		registerWebhook(ctx, f, registrationBody(a, eventCashIn, sandbox.Header{Key: "X-Conformance-A", Value: "updated"}), messageWebhookUpdated)

		list, after := listedWebhooks(ctx, f)
		gomega.Expect(list).To(framework.HaveJSONField("accountId", json.Number(f.Identity.ID)))
		gomega.Expect(list).To(framework.HaveJSONField("total", 3))
		gomega.Expect(after).To(gomega.HaveLen(3), "webhooks listed: %s", list)
		gomega.Expect(after).NotTo(gomega.HaveKey(ghost), "the URL posted while disabled")
		for u, w := range after {
			gomega.Expect(w).To(framework.HaveJSONNumber("id"), u)
			gomega.Expect(w).To(framework.HaveJSONField("id", before[u]["id"]), "id of %s across the update", u)
			gomega.Expect(w).To(framework.HaveJSONField("type", eventCashIn), u)
			gomega.Expect(w).To(framework.HaveJSONField("isActive", true), u)
			gomega.Expect(w).To(framework.HaveJSONField("createdAt", framework.BeISO8601()), u)
			gomega.Expect(w).To(framework.HaveJSONField("headers", gomega.BeAssignableToTypeOf(map[string]any{})), u)
		}
		gomega.Expect(after[a]).To(framework.HaveJSONField("headers", map[string]any{"X-Conformance-A": "updated"}), "A's headers after the update")
		gomega.Expect(after[b]).To(framework.HaveJSONField("headers", map[string]any{"X-Conformance-B": "b"}), "B's headers, left unchanged")
		gomega.Expect(after[c]).To(framework.HaveJSONField("headers", map[string]any{}), "C's headers, left unchanged")
	})

	/*
		Check: webhooks/registered-targets-notified
		Spec: "Events > Registration event types" (a notification is delivered to every active URL registered for the event; custom headers registered with the URL accompany the call)
		Gap G-56: the public registrations are the control plane's targets, notified like them
		Sandbox: PUT /_sandbox/webhook-registration {"mode":"enabled"} (switched back afterwards); POST /_sandbox/clock/advance; GET /_sandbox/webhook-deliveries?transactionId=
		Description: With two HTTPS URLs registered for cash_out through POST /api/webhooks, each
		with its own custom header X-Conformance-Target, the settlement of a cash-out of 10.00 MUST
		produce, in the delivery log, one cash_out delivery of the CashOut webhook to each URL, whose
		attempt carries that URL's header. (The URLs are the receiver's on https://, which the
		receiver does not speak unless -webhook-public-url is an https URL; then both deliveries
		MUST also reach it with their header.)
	*/
	framework.SandboxIt("notifies every URL registered through POST /api/webhooks, with its custom headers", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		useRegistration(ctx, f, sandbox.WebhookRegistrationEnabled)
		base := "https://" + strings.TrimPrefix(strings.TrimPrefix(f.Webhooks.URL(), "https://"), "http://")
		urls := map[string]string{base + "/first": "first", base + "/second": "second"}
		for u, v := range urls {
			registerWebhook(ctx, f, registrationBody(u, eventCashOut, sandbox.Header{Key: "X-Conformance-Target", Value: v}), messageWebhookRegistered)
		}
		m, number := settledCashOut(ctx, f, "10.00")
		f.Eventually(ctx, func(g gomega.Gomega) {
			ds, err := f.Sandbox.Deliveries(ctx, sandbox.DeliveryQuery{TransactionID: number})
			g.Expect(err).NotTo(gomega.HaveOccurred())
			got := map[string]bool{}
			for _, d := range ds {
				v, registered := urls[d.URL]
				if !registered || d.EventType != eventCashOut {
					continue
				}
				g.Expect(d.Attempts).NotTo(gomega.BeEmpty(), "attempts of the delivery to %s", d.URL)
				g.Expect(hasHeader(d.Attempts[0].RequestHeaders, "X-Conformance-Target", v)).To(gomega.BeTrue(),
					"the delivery to %s carries X-Conformance-Target: %s; it sent %+v", d.URL, v, d.Attempts[0].RequestHeaders)
				g.Expect(d.Attempts[0].RequestBody).To(gomega.ContainSubstring(externalID(m)), "the body of the delivery to %s", d.URL)
				got[d.URL] = true
			}
			g.Expect(got).To(gomega.HaveLen(len(urls)), "cash_out deliveries to the registered URLs in %+v", ds)
		})
		if strings.HasPrefix(f.Webhooks.URL(), "https://") {
			f.Eventually(ctx, func(g gomega.Gomega) {
				ds := matching(f.Webhooks, "externalId", externalID(m))
				g.Expect(ds).To(gomega.HaveLen(len(urls)), "deliveries that reached the receiver")
				for _, d := range ds {
					g.Expect(d.Header.Get("X-Conformance-Target")).To(gomega.BeElementOf("first", "second"))
				}
			})
		}
	})
})

var _ = ginkgo.Describe("GET /api/webhooks", framework.Res("webhooks"), framework.FamilyStd, func() {
	f := framework.New("webhooks-list")

	/*
		Check: webhooks/list-disabled
		Spec: "Endpoints > GET /api/webhooks (currently disabled)" (answers 200 with an empty list even when webhooks exist; intended response accountId, webhooks, total)
		Description: When POST /api/webhooks answers success false (registration disabled; the
		check is skipped when it answers success true), GET /api/webhooks MUST answer 200 with an
		empty list: a JSON array with no element, or an object whose webhooks is an empty array
		(and whose total, when present, is 0).
	*/
	framework.SpecIt("answers 200 with an empty list while registration is disabled", func(ctx ginkgo.SpecContext) {
		probeRegistration(ctx, f)
		r := f.Do(ctx, http.MethodGet, webhooksPath, f.Token(ctx), nil, nil)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
		v, err := apiclient.DecodeJSON(r.Body)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "body of %s", r)
		switch b := v.(type) {
		case []any:
			gomega.Expect(b).To(gomega.BeEmpty(), "the list of %s", r)
		case map[string]any:
			gomega.Expect(r).To(framework.HaveJSONField("webhooks", gomega.And(gomega.BeAssignableToTypeOf([]any{}), gomega.BeEmpty())))
			if _, ok := b["total"]; ok {
				gomega.Expect(r).To(framework.HaveJSONField("total", 0))
			}
		default:
			ginkgo.Fail("GET /api/webhooks answered neither a list nor an object with webhooks: " + r.String())
		}
	})
})

// Helpers the specs of every resource use to receive and read webhooks.

// moneyField returns the money at path of a webhook body in centavos; the
// value may be a JSON number or a string, as the payload tables say.
func moneyField(d framework.Delivery, path string) int64 {
	ginkgo.GinkgoHelper()
	v, ok := d.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, d)
	c, err := apiclient.Cents(v)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s in %s", path, d)
	return c
}

// peerAccount creates another sandbox account holding 100.00, with a target of
// eventType that delivers to a new inbox (forgotten when the spec ends).
func peerAccount(ctx context.Context, f *framework.Framework, eventType string) (*sandbox.Account, *framework.Inbox) {
	ginkgo.GinkgoHelper()
	acct, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	inbox := f.Webhooks.Receiver.NewInbox()
	ginkgo.DeferCleanup(inbox.Forget)
	registerTarget(ctx, f, acct.ID.String(), eventType, inbox, "")
	return acct, inbox
}

// registerTarget registers inbox as the account's webhook target for
// eventType, signed with secret when it is not empty.
func registerTarget(ctx context.Context, f *framework.Framework, accountID, eventType string, inbox *framework.Inbox, secret string) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.RegisterWebhookTarget(ctx, sandbox.WebhookTargetOptions{
		AccountID: accountID, URL: inbox.URL(), EventType: eventType, Secret: secret,
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "registering %s as the %s target of account %s", inbox.URL(), eventType, accountID)
}

// matching returns the inbox's deliveries whose JSON body has want at path.
func matching(inbox *framework.Inbox, path, want string) []framework.Delivery {
	var out []framework.Delivery
	for _, d := range inbox.Deliveries() {
		if v, ok := d.Field(path); ok && v == want {
			out = append(out, d)
		}
	}
	return out
}

// awaitWebhook waits for a delivery to inbox whose body has want at path and
// returns the latest such delivery. With settle, it first lets a PIX out
// settle (Framework.AwaitSettlement: the spec must be ginkgo.Serial);
// otherwise it only polls.
func awaitWebhook(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, settle bool, path, want string) framework.Delivery {
	ginkgo.GinkgoHelper()
	var got framework.Delivery
	check := func(g gomega.Gomega) {
		ds := matching(inbox, path, want)
		g.Expect(ds).NotTo(gomega.BeEmpty(), "no webhook with %s = %q yet; the inbox holds %d deliveries", path, want, inbox.Count())
		got = ds[len(ds)-1]
	}
	if settle {
		f.AwaitSettlement(ctx, check)
	} else {
		f.Eventually(ctx, check)
	}
	return got
}

// awaitWebhookAfter is awaitWebhook after advancing a sandbox's clock by
// advance (polling elsewhere).
func awaitWebhookAfter(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, advance time.Duration, path, want string) framework.Delivery {
	ginkgo.GinkgoHelper()
	var got framework.Delivery
	f.AwaitSettled(ctx, advance, func(g gomega.Gomega) {
		ds := matching(inbox, path, want)
		g.Expect(ds).NotTo(gomega.BeEmpty(), "no webhook with %s = %q yet; the inbox holds %d deliveries", path, want, inbox.Count())
		got = ds[len(ds)-1]
	})
	return got
}
