package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// transferPath is the Central Bank-compatible transfer route.
const transferPath = "/dict/pix"

// headerIdempotencyKey is the idempotency header of POST /dict/pix.
const headerIdempotencyKey = "x-idempotency-key"

// transferAmount is the amount of the transfers the checks send, as decimal text.
const transferAmount = "12.34"

// destination is a key in the target's DICT that transfers can go to. name,
// document and ispb are known only when the suite registered the key or could
// read it from a control plane.
type destination struct {
	key, name, document, ispb string
}

// transferDestination returns the destination of the spec's transfers:
// -dict-key when given; on a target with a control plane, a fresh email key
// registered with POST /_sandbox/dict/keys at a participant outside the
// sandbox. Without either the spec is skipped.
func transferDestination(ctx context.Context, f *framework.Framework) destination {
	ginkgo.GinkgoHelper()
	if key := f.Config.DictKey; key != "" {
		d := destination{key: key}
		if f.ControlPlane {
			if e, err := f.Sandbox.DictKey(ctx, key); err == nil {
				d.name, d.document, d.ispb = e.Name, e.Document, e.ISPB
			}
		}
		return d
	}
	if !f.ControlPlane {
		ginkgo.Skip(skipNoDictKey)
	}
	e, err := f.Sandbox.RegisterDictKey(ctx, sandbox.DictEntry{
		Key: freshEmailKey(f), Name: "Beltrano Conformidade", Document: otherCPF, ISPB: outsideISPB(ctx, f),
	})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "registering the destination key")
	return destination{key: e.Key, name: e.Name, document: otherCPF, ispb: e.ISPB}
}

// outsideISPB returns the ISPB of a participant with a bank code other than
// the sandbox's own institution (the institution of the spec's account keys,
// else the first one GET /_sandbox/banks lists).
func outsideISPB(ctx context.Context, f *framework.Framework) string {
	ginkgo.GinkgoHelper()
	own := ""
	if f.Account != nil {
		for _, k := range f.Account.PixKeys {
			if e, err := f.Sandbox.DictKey(ctx, k.Key); err == nil {
				own = e.ISPB
				break
			}
		}
	}
	banks, err := f.Sandbox.Banks(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for i, b := range banks {
		if b.Code == "" || b.ISPB == own || (own == "" && i == 0) {
			continue
		}
		return b.ISPB
	}
	ginkgo.Fail("GET /_sandbox/banks lists no participant outside the sandbox")
	return ""
}

// wellFormedKey returns a key whose format is valid, for checks that break
// another part of the request: -dict-key when given, else a CPF with valid
// check digits.
func wellFormedKey(f *framework.Framework) string {
	if f.Config.DictKey != "" {
		return f.Config.DictKey
	}
	return sampleCPF
}

// transferBody returns a valid POST /dict/pix body to key for amount (decimal
// text, sent as a JSON number), changed by mods.
func transferBody(key, amount string, mods ...func(m map[string]any)) []byte {
	ginkgo.GinkgoHelper()
	m := map[string]any{
		"pixKey":      key,
		"priority":    "NORM",
		"description": "conformance transfer",
		"payment":     map[string]any{"currency": "BRL", "amount": json.Number(amount)},
	}
	for _, mod := range mods {
		mod(m)
	}
	return encodeJSON(m)
}

// transferHeaders returns the headers of a transfer: x-idempotency-key when
// idem is not empty, and X-Sandbox-Scenario when scenario is not empty.
func transferHeaders(idem, scenario string) http.Header {
	h := http.Header{}
	if idem != "" {
		h.Set(headerIdempotencyKey, idem)
	}
	return withScenario(h, scenario)
}

// postTransfer sends POST /dict/pix with the spec's token.
func postTransfer(ctx context.Context, f *framework.Framework, idem string, body []byte, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, transferPath, f.Token(ctx), body, transferHeaders(idem, scenario))
}

// acceptTransfer sends a transfer that must be accepted (2xx, type PENDING)
// and returns the response.
func acceptTransfer(ctx context.Context, f *framework.Framework, idem string, body []byte, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := postTransfer(ctx, f, idem, body, scenario)
	gomega.Expect(r).To(framework.HaveSuccessStatus())
	gomega.Expect(r).To(framework.HaveJSONField("type", "PENDING"))
	return r
}

// transferID returns the numeric id of a transfer response as its text.
func transferID(r *apiclient.Response) string {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveJSONNumber("id"))
	v, _ := r.Field("id")
	return string(v.(json.Number))
}

// expectRejected checks a POST /dict/pix error's status (the minimal shape
// is checked on its own, by errors/minimal-shape).
func expectRejected(r *apiclient.Response, status int) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveStatus(status))
}

var _ = ginkgo.Describe("POST /dict/pix", framework.Res("transfer"), framework.FamilyBacen, func() {
	f := framework.New("transfer")

	/*
		Check: transfer/idempotency-key-missing
		Spec: "Endpoints > POST /dict/pix", rule 1 (without x-idempotency-key the request is rejected (400)); "Errors > Central Bank-compatible routes"; "Errors > Shapes", item 3
		Description: An otherwise valid transfer without x-idempotency-key MUST be answered 400.
	*/
	framework.SpecIt("rejects a request without x-idempotency-key with 400", func(ctx ginkgo.SpecContext) {
		r := postTransfer(ctx, f, "", transferBody(wellFormedKey(f), transferAmount), "")
		expectRejected(r, http.StatusBadRequest)
	})

	/*
		Check: transfer/idempotency-key-invalid
		Spec: "Endpoints > POST /dict/pix" (x-idempotency-key required, UUID v4); "Errors > Central Bank-compatible routes"; "Errors > Shapes", item 3
		Description: An otherwise valid transfer whose x-idempotency-key is not a UUID v4 (not a
		UUID at all, or a UUID of another version) MUST be answered 400.
	*/
	ginkgo.DescribeTable("rejects with 400 an x-idempotency-key",
		func(ctx ginkgo.SpecContext, idem string) {
			r := postTransfer(ctx, f, idem, transferBody(wellFormedKey(f), transferAmount), "")
			expectRejected(r, http.StatusBadRequest)
		},
		ginkgo.Entry("that is not a UUID", framework.Spec, "not-a-uuid"),
		ginkgo.Entry("that is a UUID v1, not v4", framework.Spec, "6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
	)

	/*
		Check: transfer/body-invalid
		Spec: "Endpoints > POST /dict/pix" (pixKey forms; payment.amount up to 2 decimals; creditorDocument required when priority is HIGH; expiration min 1, max 10800); "Limits", expiration; "Errors > Central Bank-compatible routes" (400: invalid key, invalid value); "Errors > Shapes", item 3
		Description: A transfer with a valid x-idempotency-key whose body breaks one rule (a pixKey
		of no key form, payment.amount with 3 decimals, priority HIGH without creditorDocument,
		expiration 0 or 10801) MUST be answered 400.
	*/
	ginkgo.DescribeTable("rejects with 400 a body",
		func(ctx ginkgo.SpecContext, body func(key string) []byte) {
			r := postTransfer(ctx, f, framework.UUIDv4(), body(wellFormedKey(f)), "")
			expectRejected(r, http.StatusBadRequest)
		},
		ginkgo.Entry("with a pixKey of no key form", framework.Spec, func(string) []byte {
			return transferBody("not a pix key", transferAmount)
		}),
		ginkgo.Entry("with payment.amount of 3 decimals", framework.Spec, func(key string) []byte {
			return transferBody(key, "12.345")
		}),
		ginkgo.Entry("with priority HIGH and no creditorDocument", framework.Spec, func(key string) []byte {
			return transferBody(key, transferAmount, func(m map[string]any) { m["priority"] = "HIGH" })
		}),
		ginkgo.Entry("with expiration 0", framework.Spec, func(key string) []byte {
			return transferBody(key, transferAmount, func(m map[string]any) { m["expiration"] = 0 })
		}),
		ginkgo.Entry("with expiration 10801", framework.Spec, func(key string) []byte {
			return transferBody(key, transferAmount, func(m map[string]any) { m["expiration"] = 10801 })
		}),
	)

	/*
		Check: transfer/accepted
		Spec: "Resources > PIX transfer (DICT route) response"; "States and transitions > PIX transfer (DICT route)" (the creation response carries PENDING)
		Description: A valid transfer to a key in the target's DICT MUST be answered 2xx with type
		PENDING, id a JSON number, eventDate in ISO 8601, endToEndId a non-empty string and
		payment.amount a JSON number equal to the requested amount.
	*/
	framework.SpecIt("accepts a transfer as PENDING with a numeric id, an ISO 8601 eventDate and the requested amount", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		r := acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount), "")
		gomega.Expect(r).To(framework.HaveJSONNumber("id"))
		gomega.Expect(r).To(framework.HaveJSONField("eventDate", framework.BeISO8601()))
		gomega.Expect(r).To(framework.HaveJSONField("endToEndId", nonEmptyString()))
		gomega.Expect(r).To(framework.HaveJSONNumber("payment.amount"))
		gomega.Expect(r).To(framework.HaveJSONField("payment.amount", json.Number(transferAmount)))
	})

	/*
		Check: transfer/success-status
		Gap G-12: success status of POST /dict/pix is "not shown" (docs/spec-gaps.md); the sandbox answers 200
		Description: An accepted transfer MUST be answered exactly 200.
	*/
	framework.SandboxChoiceIt("answers an accepted transfer with 200", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		r := postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	})

	/*
		Check: transfer/hold-at-acceptance
		Spec: "What the service does", balance effects (when the transfer is accepted, available decreases by the amount and blocked increases by the same amount)
		Description: Right after a transfer is accepted, GET /accounts/balances MUST read available
		lower by the amount and blocked higher by the amount than just before it.
	*/
	framework.SpecIt("moves the amount from available to blocked at acceptance", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		amount, err := apiclient.Cents(transferAmount)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		before := f.Balance(ctx)
		acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount), "")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked + amount}, "after acceptance")
	})

	/*
		Check: transfer/idempotent-replay
		Spec: "Endpoints > POST /dict/pix", rule 2 (a repeated request with the same key returns the same transfer and creates no new one)
		Description: Sending the same body again with the same x-idempotency-key MUST be answered
		2xx with the same id and endToEndId, and MUST leave available and blocked as the first
		request left them.
	*/
	framework.SpecIt("answers a repeated request with the same key with the same transfer and moves no more money", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		idem, body := framework.UUIDv4(), transferBody(dest.key, transferAmount)
		first := acceptTransfer(ctx, f, idem, body, "")
		afterFirst := f.Balance(ctx)

		again := postTransfer(ctx, f, idem, body, "")
		gomega.Expect(again).To(framework.HaveSuccessStatus())
		gomega.Expect(transferID(again)).To(gomega.Equal(transferID(first)), "id of the repeated request")
		gomega.Expect(stringField(again, "endToEndId")).To(gomega.Equal(stringField(first, "endToEndId")), "endToEndId of the repeated request")
		expectBalance(f.Balance(ctx), afterFirst, "after the repeated request")
	})

	/*
		Check: transfer/idempotent-concurrent
		Spec: "Endpoints > POST /dict/pix", rule 2 (a repeated request with the same key returns the same transfer and creates no new one)
		Description: 20 identical requests with the same x-idempotency-key sent at once MUST all be
		answered 2xx with one and the same id, and available MUST decrease (and blocked increase)
		by the amount exactly once.
	*/
	framework.SpecIt("answers 20 concurrent identical requests with one transfer and moves the amount once", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		amount, err := apiclient.Cents(transferAmount)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tok := f.Token(ctx)
		before := f.Balance(ctx)

		const n = 20
		idem, body := framework.UUIDv4(), transferBody(dest.key, transferAmount)
		responses := make([]*apiclient.Response, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				responses[i], errs[i] = f.Client.Do(ctx, http.MethodPost, transferPath, tok, body, transferHeaders(idem, ""))
			}()
		}
		wg.Wait()

		ids := map[string]bool{}
		for i, r := range responses {
			gomega.Expect(errs[i]).NotTo(gomega.HaveOccurred(), "request %d", i)
			gomega.Expect(r).To(framework.HaveSuccessStatus(), "request %d", i)
			ids[transferID(r)] = true
		}
		gomega.Expect(ids).To(gomega.HaveLen(1), "ids of %d identical requests", n)
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked + amount}, "after the concurrent requests")
	})

	/*
		Check: transfer/replay-header
		Gap G-22: how a replayed response is marked is "not shown" (docs/spec-gaps.md); the sandbox answers it with the header Idempotent-Replayed: true
		Description: The first request with an x-idempotency-key MUST be answered without
		Idempotent-Replayed, and the same request sent again MUST be answered with the same status
		and body and Idempotent-Replayed: true.
	*/
	framework.SandboxChoiceIt("marks a replayed response with Idempotent-Replayed: true", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		idem, body := framework.UUIDv4(), transferBody(dest.key, transferAmount)
		first := acceptTransfer(ctx, f, idem, body, "")
		gomega.Expect(first.Header.Get("Idempotent-Replayed")).To(gomega.BeEmpty(), "Idempotent-Replayed on the first response")
		again := postTransfer(ctx, f, idem, body, "")
		gomega.Expect(again.Status).To(gomega.Equal(first.Status), "status of the replay")
		gomega.Expect(string(again.Body)).To(gomega.Equal(string(first.Body)), "body of the replay")
		gomega.Expect(again.Header.Get("Idempotent-Replayed")).To(gomega.Equal("true"), "Idempotent-Replayed on the replay")
	})

	/*
		Check: transfer/unknown-key
		Spec: "Errors > Central Bank-compatible routes" (POST /dict/pix 422: key not found in DICT); "Errors > Shapes", item 3
		Description: A valid transfer to a well-formed email key at a domain that cannot exist
		(.invalid, RFC 2606) MUST be answered 422.
	*/
	framework.SpecIt("rejects a key not found in DICT with 422", func(ctx ginkgo.SpecContext) {
		key := "nobody-" + framework.UUIDv4() + "@example.invalid"
		r := postTransfer(ctx, f, framework.UUIDv4(), transferBody(key, transferAmount), "")
		expectRejected(r, http.StatusUnprocessableEntity)
	})

	/*
		Check: transfer/idempotency-conflict
		Gap G-22: the same x-idempotency-key with a different request is "not shown" (docs/spec-gaps.md); the sandbox refuses it with 422
		Description: Reusing the x-idempotency-key of an accepted transfer with another amount MUST
		be answered 422.
	*/
	framework.SandboxChoiceIt("rejects the same x-idempotency-key with a different body with 422", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(dest.key, transferAmount), "")
		r := postTransfer(ctx, f, idem, transferBody(dest.key, "12.35"), "")
		expectRejected(r, http.StatusUnprocessableEntity)
	})

	/*
		Check: transfer/ispb-deny
		Spec: "Endpoints > POST /dict/pix", rule 3 (a key of an institution listed in ispbDeny is rejected (422)); "Errors > Shapes", item 3
		Sandbox: the key's ISPB from POST /_sandbox/dict/keys (or GET /_sandbox/dict/keys/{key})
		Description: A transfer whose ispbDeny lists the ISPB of the key's institution MUST be
		answered 422, and the same transfer with an ispbDeny listing
		another institution MUST be accepted.
	*/
	framework.SandboxIt("rejects a key whose institution is listed in ispbDeny with 422", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		gomega.Expect(dest.ispb).NotTo(gomega.BeEmpty(), "the ISPB of %s", dest.key)
		r := postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount, func(m map[string]any) {
			m["ispbDeny"] = []string{dest.ispb}
		}), "")
		expectRejected(r, http.StatusUnprocessableEntity)

		other := "00000000"
		if dest.ispb == other {
			other = "11111111"
		}
		acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount, func(m map[string]any) {
			m["ispbDeny"] = []string{other}
		}), "")
	})

	/*
		Check: transfer/settlement-webhook
		Spec: "What the service does", balance effects (on settlement a TRANSFER webhook with status LIQUIDATED is sent); "Events > Envelope V2", TRANSFER; "Events > Registration event types", cash_out
		Sandbox: POST /_sandbox/webhook-targets (cash_out, Gap G-27); POST /_sandbox/clock/advance
		Description: Once a transfer settles, the account's cash_out target MUST receive a body with
		type TRANSFER whose data has: id equal to the response's id; txId (string or null); pixKey
		equal to the key; status LIQUIDATED; payment.amount a string with exactly 2 decimals equal
		to the amount and payment.currency BRL; endToEndId in the Central Bank form
		E + ISPB + yyyyMMddHHmm + 11 alphanumerics; creditDebitType DEBIT; idempotencyKey equal to
		the x-idempotency-key; creditorAccount with name, ispb and a masked document (not the
		holder's plain document); and remittanceInformation equal to the description.
	*/
	framework.SandboxIt("sends a TRANSFER webhook with status LIQUIDATED at settlement", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		idem := framework.UUIDv4()
		r := acceptTransfer(ctx, f, idem, transferBody(dest.key, transferAmount), "")
		id, _ := r.Field("id")

		d := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(d).To(framework.HaveJSONField("type", "TRANSFER"))
		gomega.Expect(d).To(framework.HaveJSONField("data.id", id))
		gomega.Expect(d).To(framework.HaveJSONNumber("data.id"))
		gomega.Expect(d).To(framework.HaveJSONField("data", gomega.HaveKey("txId")))
		gomega.Expect(d).To(framework.HaveJSONField("data.txId", stringOrNull()))
		gomega.Expect(d).To(framework.HaveJSONField("data.pixKey", dest.key))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", gomega.And(gomega.BeAssignableToTypeOf(""), gomega.MatchRegexp(`^\d+\.\d{2}$`))))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", transferAmount))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.currency", "BRL"))
		gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", gomega.MatchRegexp(endToEndPattern)))
		gomega.Expect(d).To(framework.HaveJSONField("data.creditDebitType", "DEBIT"))
		gomega.Expect(d).To(framework.HaveJSONField("data.idempotencyKey", idem))
		gomega.Expect(d).To(framework.HaveJSONField("data.creditorAccount.name", nonEmptyString()))
		gomega.Expect(d).To(framework.HaveJSONField("data.creditorAccount.ispb", nonEmptyString()))
		if dest.ispb != "" {
			gomega.Expect(d).To(framework.HaveJSONField("data.creditorAccount.ispb", dest.ispb))
		}
		gomega.Expect(d).To(framework.HaveJSONField("data.creditorAccount.document", nonEmptyString()))
		if dest.document != "" {
			gomega.Expect(d).To(framework.HaveJSONField("data.creditorAccount.document", gomega.Not(gomega.Equal(dest.document))), "the document is masked")
		}
		gomega.Expect(d).To(framework.HaveJSONField("data.remittanceInformation", "conformance transfer"))
	})

	/*
		Check: transfer/settlement-releases-hold
		Spec: "What the service does", balance effects (on settlement blocked returns to its previous value)
		Sandbox: POST /_sandbox/clock/advance
		Description: Once a transfer has settled (its TRANSFER webhook delivered), blocked MUST be
		back to its value before the transfer and available MUST stay lower by the amount.
	*/
	framework.SandboxIt("returns blocked to its previous value at settlement", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		amount, err := apiclient.Cents(transferAmount)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		before := f.Balance(ctx)
		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(dest.key, transferAmount), "")

		d := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked}, "after settlement")
	})

	/*
		Check: transfer/expired
		Gap G-26: the end of a transfer's expiration in the queue is "not shown" (docs/spec-gaps.md); the sandbox ends it in ERROR with PAYMENT_EXPIRED and releases the hold
		Gap G-28: V2 status values beyond LIQUIDATED are "not shown"; the sandbox's TRANSFER webhook of a failed transfer carries status ERROR, errorCode and errorMessage
		Sandbox: X-Sandbox-Scenario: SLOW_SETTLEMENT (settles after 300 s); POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: A transfer with expiration 60 that would settle only after 300 s MUST, once 60
		seconds have passed, be delivered as a TRANSFER webhook with data.status ERROR,
		data.errorCode PAYMENT_EXPIRED and a non-empty data.errorMessage; the transaction's type
		MUST be ERROR; and available and blocked MUST be back to their values before the transfer.
	*/
	framework.SandboxIt("ends a transfer still queued at its expiration in ERROR PAYMENT_EXPIRED and releases the hold",
		framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
			dest := transferDestination(ctx, f)
			registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
			before := f.Balance(ctx)
			idem := framework.UUIDv4()
			r := acceptTransfer(ctx, f, idem, transferBody(dest.key, transferAmount, func(m map[string]any) { m["expiration"] = 60 }), "SLOW_SETTLEMENT")

			d := awaitWebhookAfter(ctx, f, f.Webhooks, 60*time.Second, "data.idempotencyKey", idem)
			gomega.Expect(d).To(framework.HaveJSONField("type", "TRANSFER"))
			gomega.Expect(d).To(framework.HaveJSONField("data.status", "ERROR"))
			gomega.Expect(d).To(framework.HaveJSONField("data.errorCode", "PAYMENT_EXPIRED"))
			gomega.Expect(d).To(framework.HaveJSONField("data.errorMessage", nonEmptyString()))
			tx, err := f.Sandbox.Transaction(ctx, transferID(r))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(tx.Type).To(gomega.Equal("ERROR"), "type of the expired transfer")
			expectBalance(f.Balance(ctx), before, "after expiry")
		})

	/*
		Check: transfer/provisional-end-to-end-id
		Spec: "Resources > PIX transfer (DICT route) response" (endToEndId: the real end-to-end value is delivered in the webhook at settlement)
		Gap G-29: the form of the response's endToEndId is "not shown" (docs/spec-gaps.md); the sandbox answers the transaction's UUID without hyphens
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/clock/advance
		Description: The response's endToEndId MUST be 32 lowercase hexadecimal characters, and the
		TRANSFER webhook's data.endToEndId MUST be a different, Central Bank-form end-to-end id.
	*/
	framework.SandboxIt("answers with a provisional endToEndId and delivers the real one at settlement",
		framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
			dest := transferDestination(ctx, f)
			registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
			idem := framework.UUIDv4()
			r := acceptTransfer(ctx, f, idem, transferBody(dest.key, transferAmount), "")
			provisional := stringField(r, "endToEndId")
			gomega.Expect(provisional).To(gomega.MatchRegexp(`^[0-9a-f]{32}$`), "the response's endToEndId")

			d := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
			gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", gomega.And(
				gomega.MatchRegexp(endToEndPattern), gomega.Not(gomega.Equal(provisional)))))
		})

	/*
		Check: transfer/to-sandbox-account
		Spec: "What the service does", balance effects (PIX in: on settlement available increases by the amount and a RECEIVE webhook with status LIQUIDATED is sent); "Events > Envelope V2", RECEIVE
		Gap G-28: which targets receive RECEIVE for a PIX between sandbox accounts is "not shown" (docs/spec-gaps.md); the sandbox sends it to the receiver's cash_in targets, documents masked
		Sandbox: a second account from POST /_sandbox/accounts and its EVP key; POST /_sandbox/webhook-targets (cash_out for the payer, cash_in for the receiver); POST /_sandbox/clock/advance
		Description: A transfer to the EVP key of another sandbox account MUST, once settled, send
		the payer's cash_out target a TRANSFER webhook with status LIQUIDATED and the receiver's
		cash_in target a RECEIVE webhook with data.status LIQUIDATED, data.payment.amount the
		amount as a string, data.payment.currency BRL, the same data.endToEndId as the TRANSFER
		webhook and data.debtorAccount naming the payer with a masked document; the receiver's
		available MUST grow by the amount and the payer's blocked return to its previous value.
	*/
	framework.SandboxIt("credits another sandbox account holding the key and sends it a RECEIVE webhook", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		receiver, inboxIn := peerAccount(ctx, f, eventCashIn)
		evp := ""
		for _, k := range receiver.PixKeys {
			if k.Type == "EVP" {
				evp = k.Key
			}
		}
		gomega.Expect(evp).NotTo(gomega.BeEmpty(), "EVP key among %v", receiver.PixKeys)
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		amount, err := apiclient.Cents(transferAmount)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		before := f.Balance(ctx)

		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(evp, transferAmount), "")
		out := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(out).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		e2e, ok := out.Field("data.endToEndId")
		gomega.Expect(ok).To(gomega.BeTrue(), "data.endToEndId of %s", out)

		in := awaitWebhook(ctx, f, inboxIn, false, "type", "RECEIVE")
		gomega.Expect(in).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(in).To(framework.HaveJSONField("data.payment.amount", transferAmount))
		gomega.Expect(in).To(framework.HaveJSONField("data.payment.currency", "BRL"))
		gomega.Expect(in).To(framework.HaveJSONField("data.endToEndId", e2e))
		gomega.Expect(in).To(framework.HaveJSONField("data.debtorAccount.name", f.Account.Name))
		gomega.Expect(in).To(framework.HaveJSONField("data.debtorAccount.document", gomega.And(
			gomega.BeAssignableToTypeOf(""), gomega.Not(gomega.BeEmpty()), gomega.Not(gomega.Equal(f.Account.Document)))))

		got := f.BalanceOf(ctx, f.TokenFor(ctx, framework.IdentityOf(receiver)))
		expectBalance(got, framework.Balance{Available: 10000 + amount, Blocked: 0}, "of the receiving account")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked}, "of the paying account")
	})
})

var _ = ginkgo.Describe("POST /dict/pix", framework.Res("transfer"), framework.FamilyBacen, func() {
	f := framework.New("transfer-low-balance", framework.WithBalance("10.00"))

	/*
		Check: transfer/insufficient-balance
		Spec: "Errors > Central Bank-compatible routes" (POST /dict/pix 422: insufficient balance); "Errors > Shapes", item 3
		Description: A transfer of 0.01 more than the available balance, to a key in the target's
		DICT, MUST be answered 422 and leave available and blocked as they were. On a sandbox the
		account opens with 10.00, below every limit, so no limit can be the reason for the 422
		(the same status), and a transfer of exactly the 10.00 available MUST then be accepted,
		leaving available at 0.00.
	*/
	framework.SpecIt("rejects an amount above the available balance with 422", func(ctx ginkgo.SpecContext) {
		dest := transferDestination(ctx, f)
		before := f.Balance(ctx)
		r := postTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, brl(before.Available+1)), "")
		expectRejected(r, http.StatusUnprocessableEntity)
		expectBalance(f.Balance(ctx), before, "after the refused transfer")
		if f.Account == nil {
			return // a configured account: its whole balance is not the suite's to spend
		}
		acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, brl(before.Available)), "")
		expectBalance(f.Balance(ctx), framework.Balance{Available: 0, Blocked: before.Blocked + before.Available}, "after a transfer of the whole available balance")
	})
})
