package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// cashOutPath is the standard cash-out route.
const cashOutPath = "/api/pix/cash-out"

// settlementErrorCodes are the errorCode values of the CashOut webhook table
// ("Resources > Cash-out webhook payload").
var settlementErrorCodes = []string{
	"TAX_ID_MISMATCH", "INVALID_TAX_ID", "BLOCKED_ACCOUNT", "ACCOUNT_CLOSED",
	"ORDER_REJECTED", "PAYMENT_EXPIRED", "SETTLEMENT_TIMEOUT",
}

// cashOutRequest returns a valid cash-out body for value (decimal text, sent
// as a JSON number) to a fresh email key, changed by mods; mods receive the
// body and its details object.
func cashOutRequest(f *framework.Framework, value string, mods ...func(m, details map[string]any)) map[string]any {
	details := map[string]any{"key": freshEmailKey(f), "keyType": "EMAIL", "name": holderName, "document": sampleCPF}
	m := map[string]any{
		"value":       json.Number(value),
		"externalId":  f.UniqueID("conformance"),
		"description": "conformance cash-out",
		"details":     details,
	}
	for _, mod := range mods {
		mod(m, details)
	}
	return m
}

// externalID returns the body's externalId.
func externalID(m map[string]any) string {
	s, _ := m["externalId"].(string)
	return s
}

// postCashOut sends POST /api/pix/cash-out with the spec's token.
func postCashOut(ctx context.Context, f *framework.Framework, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, cashOutPath, f.Token(ctx), encodeJSON(m), withScenario(nil, scenario))
}

// acceptCashOut sends a cash-out that must be accepted (201, status PENDING)
// and returns its transactionId.
func acceptCashOut(ctx context.Context, f *framework.Framework, m map[string]any, scenario string) string {
	ginkgo.GinkgoHelper()
	r := postCashOut(ctx, f, m, scenario)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
	return stringField(r, "transactionId")
}

// expectCashOutError checks a cash-out error: status 400 and the code (in
// code or errorCode). The extended shape is checked on its own, by
// errors/extended-shape.
func expectCashOutError(r *apiclient.Response, code string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
	gomega.Expect(r).To(framework.HaveErrorCode(code))
}

// expectMessageNames checks that the error's message is an array with an
// element naming each field (by its last path segment).
func expectMessageNames(r *apiclient.Response, fields ...string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveJSONField("message", gomega.BeAssignableToTypeOf([]any{})), "message is one string per invalid field")
	for _, field := range fields {
		name := field[strings.LastIndex(field, ".")+1:]
		gomega.Expect(r).To(framework.HaveJSONField("message", gomega.ContainElement(gomega.ContainSubstring(name))), "message names %s", field)
	}
}

// settingsFee returns the account's cash-out fee in centavos from the
// control plane.
func settingsFee(ctx context.Context, f *framework.Framework) int64 {
	ginkgo.GinkgoHelper()
	st, err := f.Sandbox.Settings(ctx, f.Identity.ID)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	fee, err := apiclient.Cents(st.Fee)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "fee")
	return fee
}

// deliveries follows the delivery log of one transaction's webhooks
// (GET /_sandbox/webhook-deliveries?transactionId=), keeping the last
// reading.
type deliveries struct {
	ctx   context.Context
	f     *framework.Framework
	query sandbox.DeliveryQuery
	last  sandbox.WebhookDelivery
}

// retryWaits is the sandbox's retry schedule (Gap G-30): the waits after
// each failed attempt, 7 attempts in all.
var retryWaits = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, 2 * time.Hour}

// followRetries scripts the spec's inbox to answer statuses, registers it
// as the account's cash_out target, sends a cash-out of 10.00 and follows
// its CashOut webhook through n attempts on the simulation clock (the first
// at settlement, each next one retryWaits later), requiring the delivery to
// be retrying after each but the last and final after it. It returns the
// cash-out request and the delivery log.
func followRetries(ctx context.Context, f *framework.Framework, n int, final string, statuses ...int) (map[string]any, *deliveries) {
	ginkgo.GinkgoHelper()
	f.Webhooks.Respond(statuses...)
	registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
	m := cashOutRequest(f, "10.00")
	log := deliveryLog(ctx, f, acceptCashOut(ctx, f, m, ""))
	for k := 1; k <= n; k++ {
		status := "retrying"
		if k == n {
			status = final
		}
		if k == 1 {
			f.AwaitSettlement(ctx, log.attempts(1, status))
		} else {
			f.AwaitSettled(ctx, retryWaits[k-2], log.attempts(k, status))
		}
	}
	return m, log
}

// deliveryLog follows the webhooks of the transaction the public id names.
func deliveryLog(ctx context.Context, f *framework.Framework, id string) *deliveries {
	ginkgo.GinkgoHelper()
	tx, err := f.Sandbox.Transaction(ctx, id)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return &deliveries{ctx: ctx, f: f, query: sandbox.DeliveryQuery{TransactionID: tx.ID.String()}}
}

// attempts is a check that the transaction has one delivery, with n attempts
// and status.
func (l *deliveries) attempts(n int, status string) func(g gomega.Gomega) {
	return func(g gomega.Gomega) {
		ds, err := l.f.Sandbox.Deliveries(l.ctx, l.query)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(ds).To(gomega.HaveLen(1), "deliveries logged for transaction %s", l.query.TransactionID)
		g.Expect(ds[0].Attempts).To(gomega.HaveLen(n), "attempts logged")
		g.Expect(ds[0].Status).To(gomega.Equal(status), "delivery status after %d attempts", n)
		l.last = ds[0]
	}
}

// expectSpacing checks that the last reading's attempts were sent waits[i]
// apart, attempt i+2 after attempt i+1.
func (l *deliveries) expectSpacing(waits []time.Duration) {
	ginkgo.GinkgoHelper()
	gomega.Expect(l.last.Attempts).To(gomega.HaveLen(len(waits)+1), "attempts logged")
	var prev time.Time
	for i, a := range l.last.Attempts {
		at, err := time.Parse(time.RFC3339Nano, a.SentAt)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "sentAt of attempt %d: %q", i+1, a.SentAt)
		if i > 0 {
			gomega.Expect(at.Sub(prev)).To(gomega.Equal(waits[i-1]), "from attempt %d to attempt %d", i, i+1)
		}
		prev = at
	}
}

// putSettings changes the spec's account settings.
func putSettings(ctx context.Context, f *framework.Framework, u sandbox.SettingsUpdate) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.PutSettings(ctx, f.Identity.ID, u)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
}

// expectCashOutWebhook checks a CashOut webhook against the table of
// "Resources > Cash-out webhook payload" for the request m and the fee (in
// centavos), with the given status.
func expectCashOutWebhook(d framework.Delivery, m map[string]any, fee int64, status string) {
	ginkgo.GinkgoHelper()
	details, _ := m["details"].(map[string]any)
	value, err := apiclient.Cents(m["value"])
	gomega.Expect(err).NotTo(gomega.HaveOccurred())

	gomega.Expect(d).To(framework.HaveJSONField("event", "CashOut"))
	gomega.Expect(d).To(framework.HaveJSONField("status", status))
	gomega.Expect(d).To(framework.HaveJSONField("transactionType", "PIX"))
	gomega.Expect(d).To(framework.HaveJSONField("movementType", "DEBIT"))
	gomega.Expect(d).To(framework.HaveJSONField("transactionId", gomega.And(gomega.BeAssignableToTypeOf(""), gomega.MatchRegexp(`^[0-9]+$`))))
	gomega.Expect(d).To(framework.HaveJSONField("externalId", externalID(m)))
	gomega.Expect(d).To(framework.HaveJSONField("endToEndId", nonEmptyString()))
	gomega.Expect(d).To(framework.HaveJSONField("pixKey", details["key"]))
	for _, p := range []string{"feeAmount", "originalAmount", "finalAmount"} {
		gomega.Expect(d).To(framework.HaveJSONField(p, framework.BeDecimal2Number()))
	}
	gomega.Expect(brl(moneyField(d, "originalAmount"))).To(gomega.Equal(brl(value)), "originalAmount is the requested value")
	gomega.Expect(brl(moneyField(d, "feeAmount"))).To(gomega.Equal(brl(fee)), "feeAmount is the account's fee")
	gomega.Expect(brl(moneyField(d, "finalAmount"))).To(gomega.Equal(brl(moneyField(d, "originalAmount")+moneyField(d, "feeAmount"))), "finalAmount = originalAmount + feeAmount")
	gomega.Expect(d).To(framework.HaveJSONField("processingDate", framework.BeISO8601()))
	if status == "CONFIRMED" {
		gomega.Expect(d).To(framework.HaveJSONField("errorCode", nil))
		gomega.Expect(d).To(framework.HaveJSONField("errorMessage", nil))
	}
	expectCounterpartAndMetadata(d)
}

// expectCounterpartAndMetadata checks the counterpart block and the metadata
// object that the CashOut and CashIn webhook payloads share.
func expectCounterpartAndMetadata(d framework.Delivery) {
	ginkgo.GinkgoHelper()
	gomega.Expect(d).To(framework.HaveJSONField("counterpart.name", nonEmptyString()))
	gomega.Expect(d).To(framework.HaveJSONField("counterpart.document", nonEmptyString()))
	for _, p := range []string{"bankISPB", "bankName", "bankCode"} {
		gomega.Expect(d).To(framework.HaveJSONField("counterpart.bank."+p, gomega.BeAssignableToTypeOf("")))
	}
	for _, p := range []string{"accountBranch", "accountNumber"} {
		gomega.Expect(d).To(framework.HaveJSONField("counterpart.bank."+p, stringOrNull()))
	}
	gomega.Expect(d).To(framework.HaveJSONField("metadata", gomega.BeAssignableToTypeOf(map[string]any{})))
}

// expectCashOutFailed checks a CashOut webhook with status ERROR and code.
func expectCashOutFailed(d framework.Delivery, m map[string]any, fee int64, code string) {
	ginkgo.GinkgoHelper()
	expectCashOutWebhook(d, m, fee, "ERROR")
	gomega.Expect(d).To(framework.HaveJSONField("errorCode", code))
	gomega.Expect(d).To(framework.HaveJSONField("errorMessage", nonEmptyString()))
}

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out")

	/*
		Check: cash-out/created
		Spec: "Endpoints > POST /api/pix/cash-out" (response 201); "Resources > Cash-out transaction (response)"
		Description: A valid cash-out MUST be answered 201 with transactionId a UUID, externalId
		equal to the request's, status PENDING and generateTime in ISO 8601 UTC.
	*/
	framework.SpecIt("accepts a cash-out with 201, a UUID transactionId, the externalId echoed, status PENDING and a UTC generateTime", func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "0.01")
		r := postCashOut(ctx, f, m, "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("transactionId", gomega.MatchRegexp(uuidPattern)))
		gomega.Expect(r).To(framework.HaveJSONField("externalId", externalID(m)))
		gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
		expectUTC(stringField(r, "generateTime"), "generateTime")
	})

	/*
		Check: cash-out/body-invalid
		Spec: "Endpoints > POST /api/pix/cash-out" (body table); "Limits" (description max 140, details.name max 100); "Errors > Cash-out and cash-in codes", 400 HTTP_ERROR (message lists each problem); "Errors > Shapes", item 2
		Description: A cash-out whose body breaks one field rule (details missing, value a string,
		description of 141 characters, details.name of 101 characters, details.keyType outside
		DOCUMENT, EMAIL, PHONE, RANDOM, details.document of 10 digits) MUST be answered 400 with code
		HTTP_ERROR, message an array of strings one of which names the field.
	*/
	ginkgo.DescribeTable("rejects a body that breaks a field rule with 400 HTTP_ERROR naming the field",
		func(ctx ginkgo.SpecContext, field string, mod func(m, details map[string]any)) {
			r := postCashOut(ctx, f, cashOutRequest(f, "0.01", mod), "")
			expectCashOutError(r, "HTTP_ERROR")
			expectMessageNames(r, field)
		},
		ginkgo.Entry("without details", framework.Spec, "details", func(m, _ map[string]any) { delete(m, "details") }),
		ginkgo.Entry("with value as a string", framework.Spec, "value", func(m, _ map[string]any) { m["value"] = "0.01" }),
		ginkgo.Entry("with a description of 141 characters", framework.Spec, "description", func(m, _ map[string]any) {
			m["description"] = strings.Repeat("d", 141)
		}),
		ginkgo.Entry("with a details.name of 101 characters", framework.Spec, "details.name", func(_, d map[string]any) {
			d["name"] = strings.Repeat("n", 101)
		}),
		ginkgo.Entry("with details.keyType CPF", framework.Spec, "details.keyType", func(_, d map[string]any) { d["keyType"] = "CPF" }),
		ginkgo.Entry("with a details.document of 10 digits", framework.Spec, "details.document", func(_, d map[string]any) {
			d["document"] = sampleCPF[:10]
		}),
	)

	/*
		Check: cash-out/body-invalid-every-field
		Spec: "Errors > Shapes", item 2 (message: string or array of strings, one per invalid field); "Errors > Cash-out and cash-in codes", 400 HTTP_ERROR (message lists each problem)
		Description: A cash-out whose description, details.name, details.keyType and
		details.document are all invalid MUST be answered 400 with code HTTP_ERROR, message an array with at least four strings naming each of the four fields.
	*/
	framework.SpecIt("lists every invalid field in message, one string each", func(ctx ginkgo.SpecContext) {
		r := postCashOut(ctx, f, cashOutRequest(f, "0.01", func(m, d map[string]any) {
			m["description"] = strings.Repeat("d", 141)
			d["name"] = strings.Repeat("n", 101)
			d["keyType"] = "CPF"
			d["document"] = sampleCPF[:10]
		}), "")
		expectCashOutError(r, "HTTP_ERROR")
		expectMessageNames(r, "description", "details.name", "details.keyType", "details.document")
		msgs, _ := r.Field("message")
		list, _ := msgs.([]any)
		gomega.Expect(len(list)).To(gomega.BeNumerically(">=", 4), "message has one string per invalid field: %s", r)
	})

	/*
		Check: cash-out/invalid-amount
		Spec: "Errors > Cash-out and cash-in codes", PIX_INVALID_AMOUNT (amount below 0.01 or more than 2 decimals); "Limits", value
		Description: A cash-out whose value is 0.001 or 0 MUST be answered 400 with PIX_INVALID_AMOUNT
		(in code or errorCode).
	*/
	ginkgo.DescribeTable("rejects with 400 PIX_INVALID_AMOUNT a value",
		func(ctx ginkgo.SpecContext, value string) {
			expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, value), ""), "PIX_INVALID_AMOUNT")
		},
		ginkgo.Entry("of 3 decimals (0.001)", framework.Spec, "0.001"),
		ginkgo.Entry("of 0", framework.Spec, "0"),
	)

	/*
		Check: cash-out/invalid-pix-key
		Spec: "Endpoints > POST /api/pix/cash-out" (formats of details.key: DOCUMENT 11 or 14 digits, EMAIL a valid address, PHONE 10 or 11 digits without +55, RANDOM a UUID); "Errors > Cash-out and cash-in codes", PIX_INVALID_PIX_KEY
		Gap G-21 (the DOCUMENT entry with wrong check digits, sandbox-choice): the spec asks a DOCUMENT key for 11 or 14 digits only (docs/spec-gaps.md); the sandbox also verifies its check digits when it checks the key against its type
		Description: A cash-out whose details.key does not match its keyType (DOCUMENT of 12 digits
		or with wrong check digits, EMAIL without @, PHONE with +55 or of 9 digits, RANDOM that is not
		a UUID) MUST be answered 400 with PIX_INVALID_PIX_KEY (in code or errorCode).
	*/
	ginkgo.DescribeTable("rejects with 400 PIX_INVALID_PIX_KEY a key that does not match its keyType:",
		func(ctx ginkgo.SpecContext, keyType, key string) {
			r := postCashOut(ctx, f, cashOutRequest(f, "0.01", func(_, d map[string]any) {
				d["keyType"], d["key"] = keyType, key
			}), "")
			expectCashOutError(r, "PIX_INVALID_PIX_KEY")
		},
		ginkgo.Entry("a DOCUMENT key of 12 digits", framework.Spec, "DOCUMENT", sampleCPF+"0"),
		ginkgo.Entry("a DOCUMENT key with wrong check digits", framework.SandboxChoice, "DOCUMENT", badCheckDigitsCPF),
		ginkgo.Entry("an EMAIL key without @", framework.Spec, "EMAIL", "fulano.example.com"),
		ginkgo.Entry("a PHONE key with +55", framework.Spec, "PHONE", "+5511987654321"),
		ginkgo.Entry("a PHONE key of 9 digits", framework.Spec, "PHONE", "119876543"),
		ginkgo.Entry("a RANDOM key that is not a UUID", framework.Spec, "RANDOM", "not-a-uuid"),
	)

	/*
		Check: cash-out/key-forms-accepted
		Spec: "Endpoints > POST /api/pix/cash-out" (formats of details.key: RANDOM a UUID with or without hyphens; PHONE area code plus number, 10 or 11 digits, without +55)
		Description: A cash-out to a RANDOM key written without hyphens, and one to a PHONE key of 11
		digits, MUST each be answered 201 with status PENDING.
	*/
	ginkgo.DescribeTable("accepts a cash-out",
		func(ctx ginkgo.SpecContext, keyType string, key func() string) {
			acceptCashOut(ctx, f, cashOutRequest(f, "0.01", func(_, d map[string]any) {
				d["keyType"], d["key"] = keyType, key()
			}), "")
		},
		ginkgo.Entry("to a RANDOM key without hyphens", framework.Spec, "RANDOM", func() string {
			return strings.ReplaceAll(framework.UUIDv4(), "-", "")
		}),
		ginkgo.Entry("to a PHONE key of 11 digits", framework.Spec, "PHONE", func() string { return "11987654321" }),
	)

	/*
		Check: cash-out/duplicate-external-id
		Spec: "Errors > Cash-out and cash-in codes", PIX_DUPLICATE_EXTERNAL_ID (status 400, not 409; details holds externalId and existingTransactionId (number)); "Endpoints > POST /api/pix/cash-out" (externalId unique per account)
		Description: A second cash-out with the externalId of an accepted one MUST be answered 400
		(not 409) with PIX_DUPLICATE_EXTERNAL_ID (in code or errorCode), with
		details.externalId equal to the externalId and details.existingTransactionId a JSON number
		(on a sandbox, the numeric id of the first cash-out).
	*/
	framework.SpecIt("rejects a reused externalId with 400 PIX_DUPLICATE_EXTERNAL_ID naming the existing transaction", func(ctx ginkgo.SpecContext) {
		m := cashOutRequest(f, "0.01")
		first := acceptCashOut(ctx, f, m, "")
		r := postCashOut(ctx, f, m, "")
		expectCashOutError(r, "PIX_DUPLICATE_EXTERNAL_ID")
		gomega.Expect(r).To(framework.HaveJSONField("details.externalId", externalID(m)))
		gomega.Expect(r).To(framework.HaveJSONNumber("details.existingTransactionId"))
		if f.ControlPlane {
			tx, err := f.Sandbox.Transaction(ctx, first)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(r).To(framework.HaveJSONField("details.existingTransactionId", json.Number(tx.ID)))
		}
	})

	/*
		Check: cash-out/hold-at-acceptance
		Spec: "Errors > Cash-out and cash-in codes", PIX_INSUFFICIENT_BALANCE (available must cover amount plus fee); "Resources > Balance (Central Bank-compatible)" (blocked: reserved for operations in processing)
		Description: Right after a cash-out is accepted, available MUST have decreased by at least
		the value and blocked MUST have increased by as much as available decreased; on a sandbox,
		whose fee GET /_sandbox/accounts/{id}/settings reads, by exactly value plus fee.
	*/
	framework.SpecIt("moves value plus fee from available to blocked at acceptance", func(ctx ginkgo.SpecContext) {
		const value = 100 // centavos
		fee, exact := int64(0), f.ControlPlane
		if exact {
			fee = settingsFee(ctx, f)
		}
		before := f.Balance(ctx)
		acceptCashOut(ctx, f, cashOutRequest(f, brl(value)), "")
		after := f.Balance(ctx)
		if exact {
			expectBalance(after, framework.Balance{Available: before.Available - value - fee, Blocked: before.Blocked + value + fee}, "after acceptance")
			return
		}
		dropped := before.Available - after.Available
		gomega.Expect(dropped).To(gomega.BeNumerically(">=", value), "available decreased by %s, less than the value", brl(dropped))
		gomega.Expect(brl(after.Blocked-before.Blocked)).To(gomega.Equal(brl(dropped)), "blocked increased by what available decreased")
	})

	/*
		Check: cash-out/confirmed-webhook
		Spec: "Resources > Cash-out webhook payload"; "States and transitions > Cash-out transaction" (PENDING → CONFIRMED: CashOut webhook, errorCode and errorMessage null); "Events > Other emissions"
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: Once a cash-out settles, the account's cash_out target MUST receive a CashOut
		webhook with every field of the payload table: event CashOut, status CONFIRMED,
		transactionType PIX, movementType DEBIT, transactionId numeric text, externalId, endToEndId,
		pixKey, feeAmount, originalAmount (the value) and finalAmount = originalAmount + feeAmount as
		JSON numbers, processingDate in ISO 8601, errorCode and errorMessage null,
		counterpart.name, counterpart.document, counterpart.bank.bankISPB, bankName, bankCode
		(strings), accountBranch and accountNumber (string or null), and metadata an object.
	*/
	framework.SandboxIt("sends a CashOut webhook with status CONFIRMED and every payload field at settlement", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := settingsFee(ctx, f)
		m := cashOutRequest(f, "10.00")
		acceptCashOut(ctx, f, m, "")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		expectCashOutWebhook(d, m, fee, "CONFIRMED")
	})

	/*
		Check: cash-out/settlement-failure
		Spec: "Resources > Cash-out webhook payload", errorCode table; "States and transitions > Cash-out transaction" (PENDING → ERROR: CashOut webhook with errorCode and errorMessage)
		Sandbox: X-Sandbox-Scenario: <errorCode>; POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: For each errorCode of the table, a cash-out carrying the scenario of that name
		MUST be answered 201 with status PENDING and, once settlement fails, send a CashOut webhook
		with status ERROR, that errorCode and a non-empty errorMessage (the other payload fields as
		in cash-out/confirmed-webhook); available and blocked MUST then be back to their values
		before the cash-out.
	*/
	table := []any{
		func(ctx ginkgo.SpecContext, code string) {
			registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
			fee := settingsFee(ctx, f)
			before := f.Balance(ctx)
			m := cashOutRequest(f, "10.00")
			acceptCashOut(ctx, f, m, code)
			d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
			expectCashOutFailed(d, m, fee, code)
			expectBalance(f.Balance(ctx), before, "after the failed settlement")
		},
		framework.Sandbox, framework.Webhook, ginkgo.Serial,
	}
	for _, code := range settlementErrorCodes {
		table = append(table, ginkgo.Entry(code, code))
	}
	ginkgo.DescribeTable("fails settlement with an ERROR webhook carrying the errorCode and releases the hold on X-Sandbox-Scenario", table...)

	/*
		Check: cash-out/magic-key-tax-id-mismatch
		Spec: "Resources > Cash-out webhook payload", errorCode TAX_ID_MISMATCH (details.document does not match the key holder)
		Sandbox: the DICT key tax-id-mismatch@scenario.pixsandbox.example (docs/scenarios.md), whose holder document differs from the one sent; POST /_sandbox/clock/advance
		Description: A cash-out to the EMAIL key tax-id-mismatch@scenario.pixsandbox.example,
		without X-Sandbox-Scenario, MUST be answered 201 with status PENDING and then send a CashOut
		webhook with status ERROR and errorCode TAX_ID_MISMATCH.
	*/
	framework.SandboxIt("fails a cash-out to the tax-id-mismatch magic key with TAX_ID_MISMATCH", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := settingsFee(ctx, f)
		m := cashOutRequest(f, "10.00", func(_, d map[string]any) {
			d["keyType"], d["key"] = "EMAIL", "tax-id-mismatch@scenario.pixsandbox.example"
		})
		acceptCashOut(ctx, f, m, "")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		expectCashOutFailed(d, m, fee, "TAX_ID_MISMATCH")
	})

	/*
		Check: cash-out/invalid-tax-id
		Spec: "Resources > Cash-out webhook payload", errorCode INVALID_TAX_ID (CPF or CNPJ algorithmically invalid); "Endpoints > POST /api/pix/cash-out" (details.document is sent to the settling bank for verification)
		Gap G-21: at which layer a document's check digits are verified is "not shown" (docs/spec-gaps.md); the sandbox accepts the request and fails settlement
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: A cash-out whose details.document has 11 digits with wrong check digits, without
		any scenario, MUST be answered 201 with status PENDING and then send a CashOut webhook with
		status ERROR and errorCode INVALID_TAX_ID.
	*/
	framework.SandboxIt("fails a cash-out whose document has wrong check digits with INVALID_TAX_ID", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := settingsFee(ctx, f)
		m := cashOutRequest(f, "10.00", func(_, d map[string]any) { d["document"] = badCheckDigitsCPF })
		acceptCashOut(ctx, f, m, "")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		expectCashOutFailed(d, m, fee, "INVALID_TAX_ID")
	})

	/*
		Check: cash-out/settlement-pending
		Spec: "States and transitions > Cash-out transaction" (PENDING until the settling bank confirms)
		Sandbox: X-Sandbox-Scenario: SETTLEMENT_PENDING; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}; POST /_sandbox/transactions/{id}/settle
		Description: A cash-out carrying SETTLEMENT_PENDING MUST still be PENDING, with no webhook
		sent, 60 seconds later; POST /_sandbox/transactions/{id}/settle MUST then answer it CONFIRMED
		and a CashOut webhook with status CONFIRMED MUST follow, blocked back to its value before the
		cash-out.
	*/
	framework.SandboxIt("keeps a SETTLEMENT_PENDING cash-out pending until it is settled through the control plane", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := settingsFee(ctx, f)
		before := f.Balance(ctx)
		m := cashOutRequest(f, "10.00")
		id := acceptCashOut(ctx, f, m, "SETTLEMENT_PENDING")

		_, err := f.Sandbox.Advance(ctx, 60)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tx, err := f.Sandbox.Transaction(ctx, id)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(tx.Status).To(gomega.Equal("PENDING"), "60 s later")
		gomega.Expect(matching(f.Webhooks, "externalId", externalID(m))).To(gomega.BeEmpty(), "webhooks 60 s later")

		tx, err = f.Sandbox.SettleTransaction(ctx, id)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(tx.Status).To(gomega.Equal("CONFIRMED"), "after POST /_sandbox/transactions/{id}/settle")
		d := awaitWebhook(ctx, f, f.Webhooks, false, "externalId", externalID(m))
		expectCashOutWebhook(d, m, fee, "CONFIRMED")
		value, err := apiclient.Cents(m["value"])
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - value - fee, Blocked: before.Blocked}, "after settlement")
	})

	/*
		Check: cash-out/forced-failure
		Spec: "States and transitions > Cash-out transaction" (PENDING → ERROR: CashOut webhook with errorCode and errorMessage); "Resources > Cash-out webhook payload", errorCode ORDER_REJECTED
		Sandbox: X-Sandbox-Scenario: SETTLEMENT_PENDING; POST /_sandbox/transactions/{id}/fail {"errorCode":"ORDER_REJECTED"}
		Description: Failing a pending cash-out through the control plane with ORDER_REJECTED MUST
		answer it with status ERROR and errorCode ORDER_REJECTED, send a CashOut webhook with status
		ERROR, errorCode ORDER_REJECTED and a non-empty errorMessage, and put available and blocked
		back to their values before the cash-out.
	*/
	framework.SandboxIt("fails a pending cash-out through the control plane with ORDER_REJECTED", framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := settingsFee(ctx, f)
		before := f.Balance(ctx)
		m := cashOutRequest(f, "10.00")
		id := acceptCashOut(ctx, f, m, "SETTLEMENT_PENDING")

		tx, err := f.Sandbox.FailTransaction(ctx, id, "ORDER_REJECTED")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(tx.Status).To(gomega.Equal("ERROR"))
		gomega.Expect(tx.ErrorCode).To(gomega.Equal("ORDER_REJECTED"))
		d := awaitWebhook(ctx, f, f.Webhooks, false, "externalId", externalID(m))
		expectCashOutFailed(d, m, fee, "ORDER_REJECTED")
		expectBalance(f.Balance(ctx), before, "after the forced failure")
	})

	/*
		Check: cash-out/transaction-limit
		Spec: "Errors > Cash-out and cash-in codes", PIX_TRANSACTION_LIMIT_EXCEEDED (amount above per-transaction limit)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"perTransactionLimit":10.00} (limit values are Gap G-24)
		Description: With a per-transaction limit of 10.00, a cash-out of 10.01 MUST be answered 400
		with PIX_TRANSACTION_LIMIT_EXCEEDED (in code or errorCode), and one of
		10.00 MUST be accepted.
	*/
	framework.SandboxIt("rejects a value above the per-transaction limit with 400 PIX_TRANSACTION_LIMIT_EXCEEDED", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{PerTransactionLimit: "10.00"})
		expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, "10.01"), ""), "PIX_TRANSACTION_LIMIT_EXCEEDED")
		acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "")
	})

	/*
		Check: cash-out/daily-limit
		Spec: "Errors > Cash-out and cash-in codes", PIX_DAILY_LIMIT_EXCEEDED (daily accumulated amount above daily limit)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"dailyLimit":15.00} (limit values are Gap G-24)
		Description: With a daily limit of 15.00, after an accepted cash-out of 10.00 a second one of
		5.01 MUST be answered 400 with PIX_DAILY_LIMIT_EXCEEDED (in code or errorCode), and one of 5.00 MUST be accepted.
	*/
	framework.SandboxIt("rejects a value that takes the day's total above the daily limit with 400 PIX_DAILY_LIMIT_EXCEEDED", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{DailyLimit: "15.00"})
		acceptCashOut(ctx, f, cashOutRequest(f, "10.00"), "")
		expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, "5.01"), ""), "PIX_DAILY_LIMIT_EXCEEDED")
		acceptCashOut(ctx, f, cashOutRequest(f, "5.00"), "")
	})

	/*
		Check: cash-out/night-limit
		Spec: "Errors > Cash-out and cash-in codes", PIX_NIGHT_LIMIT_EXCEEDED (night operation (20:00 to 06:00) above reduced limit)
		Sandbox: POST /_sandbox/clock {"now":"<day>T23:30:00Z"} (20:30 in São Paulo); PUT /_sandbox/accounts/{id}/settings {"nightLimit":20.00} (limit values are Gap G-24)
		Description: At 20:30 in São Paulo with a night limit of 20.00, a cash-out of 20.01 MUST be
		answered 400 with PIX_NIGHT_LIMIT_EXCEEDED (in code or errorCode), and
		one of 20.00 MUST be accepted. Afterwards the clock is moved on to 09:00 in São Paulo.
	*/
	framework.SandboxIt("rejects a value above the night limit at 20:30 in São Paulo with 400 PIX_NIGHT_LIMIT_EXCEEDED", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		clockToSaoPauloNight(ctx, f)

		putSettings(ctx, f, sandbox.SettingsUpdate{NightLimit: "20.00"})
		expectCashOutError(postCashOut(ctx, f, cashOutRequest(f, "20.01"), ""), "PIX_NIGHT_LIMIT_EXCEEDED")
		acceptCashOut(ctx, f, cashOutRequest(f, "20.00"), "")
	})

	/*
		Check: cash-out/fee
		Spec: "Errors > Cash-out and cash-in codes", PIX_INSUFFICIENT_BALANCE (available balance below amount plus fee); "Resources > Cash-out webhook payload" (feeAmount: fee; finalAmount: amount with fee)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"fee":1.50} (Gap G-24); POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: With a fee of 1.50, accepting a cash-out of 10.00 MUST move 11.50 from
		available to blocked; its CashOut webhook MUST carry feeAmount 1.50, originalAmount 10.00
		and finalAmount 11.50; after settlement blocked MUST be back to its value before the
		cash-out and available MUST stay lower by 11.50.
	*/
	framework.SandboxIt("charges the account's fee: available decreases by value plus fee and the webhook carries it", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{Fee: "1.50"})
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		before := f.Balance(ctx)
		m := cashOutRequest(f, "10.00")
		acceptCashOut(ctx, f, m, "")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 1150, Blocked: before.Blocked + 1150}, "after acceptance")

		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		expectCashOutWebhook(d, m, 150, "CONFIRMED")
		gomega.Expect(brl(moneyField(d, "finalAmount"))).To(gomega.Equal("11.50"), "finalAmount")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 1150, Blocked: before.Blocked}, "after settlement")
	})

	/*
		Check: cash-out/unknown-scenario
		Gap G-06: values of X-Sandbox-Scenario are "not shown" (docs/spec-gaps.md); an unknown value is refused, listing the valid ones
		Sandbox: X-Sandbox-Scenario with a value the sandbox does not know
		Description: A valid cash-out carrying an unknown scenario MUST be answered 400 with
		SANDBOX_UNKNOWN_SCENARIO (in code or errorCode), its message naming
		valid values of the route (SETTLEMENT_PENDING and ORDER_REJECTED among them), so that a typo
		never passes silently.
	*/
	framework.SandboxIt("rejects an unknown X-Sandbox-Scenario with 400 SANDBOX_UNKNOWN_SCENARIO naming the valid values", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		r := postCashOut(ctx, f, cashOutRequest(f, "0.01"), "NO_SUCH_SCENARIO_"+strings.ToUpper(f.UniqueID("")))
		expectCashOutError(r, "SANDBOX_UNKNOWN_SCENARIO")
		msg := messageText(r)
		gomega.Expect(msg).To(gomega.ContainSubstring("SETTLEMENT_PENDING"), "message names the valid values")
		gomega.Expect(msg).To(gomega.ContainSubstring("ORDER_REJECTED"), "message names the valid values")
	})

	/*
		Check: cash-out/webhook-retries
		Gap G-30: the retry policy of deliveries is "not shown" (docs/spec-gaps.md); the sandbox retries a failed delivery 5 s and then 30 s later, with a stable webhook-id
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance; GET /_sandbox/webhook-deliveries?transactionId= and ?afterAttempt=
		Description: When the cash_out target answers 500, 500 and then 200, the CashOut webhook
		MUST be attempted three times (at settlement, 5 s and 35 s later on the simulation clock)
		with the same webhook-id header and the same body, and the delivery log MUST show one
		delivery, status delivered, with three attempts numbered 1 to 3 answered 500, 500 and 200,
		whose eventId is that webhook-id. The account's deliveries after the second attempt's
		webhookLogId MUST include it; after the third's, not.
	*/
	framework.SandboxIt("retries a failed webhook delivery with the same webhook-id and logs every attempt", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		m, dl := followRetries(ctx, f, 3, "delivered", http.StatusInternalServerError, http.StatusInternalServerError, http.StatusOK)
		log := []sandbox.WebhookDelivery{dl.last}

		got := matching(f.Webhooks, "externalId", externalID(m))
		gomega.Expect(got).To(gomega.HaveLen(3), "deliveries received")
		webhookID := got[0].Header.Get(framework.HeaderWebhookID)
		gomega.Expect(webhookID).NotTo(gomega.BeEmpty(), "webhook-id header")
		for i, d := range got {
			gomega.Expect(d.Status).To(gomega.Equal([]int{500, 500, 200}[i]), "answer to delivery %d", i+1)
			gomega.Expect(d.Header.Get(framework.HeaderWebhookID)).To(gomega.Equal(webhookID), "webhook-id of delivery %d", i+1)
			gomega.Expect(string(d.Body)).To(gomega.Equal(string(got[0].Body)), "body of delivery %d", i+1)
		}
		gomega.Expect(log[0].EventID).To(gomega.Equal(webhookID), "eventId of the logged delivery")
		for i, a := range log[0].Attempts {
			gomega.Expect(a.Number).To(gomega.Equal(i+1), "number of attempt %d", i+1)
			gomega.Expect(a.StatusCode).To(gomega.Equal([]int{500, 500, 200}[i]), "statusCode of attempt %d", i+1)
		}

		// The afterAttempt cursor finds the delivery again through its retry,
		// and not once past its last attempt.
		acct := sandbox.DeliveryQuery{AccountID: f.Identity.ID}
		acct.AfterAttempt = log[0].Attempts[1].WebhookLogID.String()
		ds, err := f.Sandbox.Deliveries(ctx, acct)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(ds).To(gomega.ContainElement(gomega.HaveField("ID", log[0].ID)), "afterAttempt=<attempt 2> lists the delivery (attempt 3 is newer)")
		acct.AfterAttempt = log[0].Attempts[2].WebhookLogID.String()
		ds, err = f.Sandbox.Deliveries(ctx, acct)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(ds).NotTo(gomega.ContainElement(gomega.HaveField("ID", log[0].ID)), "afterAttempt=<attempt 3> omits the delivery")
	})

	/*
		Check: cash-out/webhook-retries-exhausted
		Gap G-30: the retry policy of deliveries is "not shown" (docs/spec-gaps.md); the sandbox makes 7 attempts, the first at once and the others 5 s, 30 s, 2 min, 10 min, 30 min and 2 h after each failure, then gives up
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance; GET /_sandbox/webhook-deliveries?transactionId=
		Description: When the cash_out target answers 500 to every attempt, the CashOut webhook
		MUST be attempted at settlement and then 5 s, 30 s, 2 min, 10 min, 30 min and 2 h after
		each failure on the simulation clock: the delivery log MUST show it retrying after each of
		the first six attempts and failed after the seventh, the attempts' sentAt spaced by exactly
		those waits, and another 2 h MUST bring no eighth attempt: the schedule followed to its
		last step and its final state.
	*/
	framework.SandboxIt("follows a failing delivery to its seventh and last attempt and ends it failed", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		last := len(retryWaits) + 1
		statuses := make([]int, last+1)
		for i := range statuses {
			statuses[i] = http.StatusInternalServerError
		}
		m, log := followRetries(ctx, f, last, "failed", statuses...)
		f.AwaitSettled(ctx, 2*time.Hour, log.attempts(last, "failed"))
		gomega.Expect(matching(f.Webhooks, "externalId", externalID(m))).To(gomega.HaveLen(last), "deliveries received")
		log.expectSpacing(retryWaits)
	})

	/*
		Check: cash-out/webhook-non-2xx
		Gap G-30: the retry policy of deliveries is "not shown" (docs/spec-gaps.md); the sandbox counts only a 2xx as delivered and retries any other answer, redirects included (they are not followed)
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance; GET /_sandbox/webhook-deliveries?transactionId=
		Description: When the cash_out target answers 302, then 404, then 200, the CashOut webhook
		MUST be attempted three times (at settlement, 5 s and 35 s later on the simulation clock),
		the delivery log showing it retrying after the 302 and after the 404 and delivered after the
		200, with the attempts answered 302, 404 and 200.
	*/
	framework.SandboxIt("retries a delivery answered 3xx or 4xx", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		_, log := followRetries(ctx, f, 3, "delivered", http.StatusFound, http.StatusNotFound, http.StatusOK)
		for i, a := range log.last.Attempts {
			gomega.Expect(a.StatusCode).To(gomega.Equal([]int{302, 404, 200}[i]), "statusCode of attempt %d", i+1)
		}
	})

	/*
		Check: cash-out/signed-webhook
		Gap G-30: signing of outgoing deliveries is "not shown" (docs/spec-gaps.md); with a target secret the sandbox signs per Standard Webhooks
		Sandbox: POST /_sandbox/webhook-targets with a secret ("whsec_" + base64); POST /_sandbox/clock/advance
		Description: A delivery to a target registered with a secret MUST carry webhook-id,
		webhook-timestamp and webhook-signature headers, and webhook-signature MUST hold a v1
		signature equal to the base64 HMAC-SHA256, keyed with the secret's key, of
		"{webhook-id}.{webhook-timestamp}.{body}".
	*/
	framework.SandboxIt("signs deliveries to a target with a secret per Standard Webhooks", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		secret := framework.NewWebhookSecret()
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, secret)
		m := cashOutRequest(f, "10.00")
		acceptCashOut(ctx, f, m, "")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "externalId", externalID(m))
		gomega.Expect(d.Header.Get(framework.HeaderWebhookSignature)).NotTo(gomega.BeEmpty(), "webhook-signature header")
		gomega.Expect(d.VerifySignature(secret)).To(gomega.Succeed())
	})
})

var _ = ginkgo.Describe("POST /api/pix/cash-out", framework.Res("cash-out"), framework.FamilyStd, func() {
	f := framework.New("cash-out-low-balance", framework.WithBalance("10.00"))

	/*
		Check: cash-out/insufficient-balance
		Spec: "Errors > Cash-out and cash-in codes", PIX_INSUFFICIENT_BALANCE (available balance below amount plus fee)
		Description: A cash-out of 0.01 more than the available balance MUST be answered 400 with
		PIX_INSUFFICIENT_BALANCE (in code or errorCode), and MUST leave
		available and blocked as they were. (On a sandbox the account opens with 10.00, below every
		limit.)
	*/
	framework.SpecIt("rejects a value above the available balance with 400 PIX_INSUFFICIENT_BALANCE", func(ctx ginkgo.SpecContext) {
		before := f.Balance(ctx)
		r := postCashOut(ctx, f, cashOutRequest(f, brl(before.Available+1)), "")
		expectCashOutError(r, "PIX_INSUFFICIENT_BALANCE")
		expectBalance(f.Balance(ctx), before, "after the refusal")
	})
})
