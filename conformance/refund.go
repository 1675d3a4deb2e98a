package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// Statuses of "Resources > Refund (devolucao)".
const (
	refundEmProcessamento = "EM_PROCESSAMENTO"
	refundDevolvido       = "DEVOLVIDO"
	refundNaoRealizado    = "NAO_REALIZADO"
)

// What the suite's refunds carry unless a check changes it.
const (
	// refundDescricao is the descricao of the suite's refunds.
	refundDescricao = "conformance refund"
	// refundUnit is the valor of the refunds that spend a PIX the suite may
	// share with earlier runs (-refund-e2e, -refund-transaction-id): one centavo.
	refundUnit = "0.01"
	// refundPIXAmount is the amount of the PIX the suite receives on a sandbox
	// for checks that need any refundable PIX.
	refundPIXAmount = "10.00"
)

// Wire patterns of refunds.
const (
	// rtrIDPattern is the specification's rtrId: 32 characters, alphanumeric
	// like every end-to-end id.
	rtrIDPattern = `^[A-Za-z0-9]{32}$`
	// returnIDPattern is the Central Bank's form of a return's end-to-end id
	// (pacs.004 RtrId): D, the returning participant's ISPB, yyyyMMddHHmm and
	// 11 alphanumerics.
	returnIDPattern = `^D[0-9A-Z]{8}\d{12}[A-Za-z0-9]{11}$`
)

// Webhook event types of refunds ("Events > Registration event types").
const (
	eventRefundIn  = "refund_in"
	eventRefundOut = "refund_out"
)

// Reasons given when a refund check has no PIX to refund.
const (
	skipNoRefundE2E = "no received PIX to refund: give -refund-e2e (PIXSANDBOX_CONFORMANCE_REFUND_E2E), " +
		"or run against a target with the /_sandbox control plane"
	skipNoRefundTransaction = "no received PIX to refund by transaction id: give -refund-transaction-id " +
		"(PIXSANDBOX_CONFORMANCE_REFUND_TRANSACTION_ID), or run against a target with the /_sandbox control plane"
	skipNoFreshPIX = "needs a PIX of exactly %s received for this check alone, which only a target with the " +
		"/_sandbox control plane can supply (-refund-e2e names one shared PIX, partly refunded by earlier runs)"
)

// receivedPIX is a PIX the spec's account received, to refund.
type receivedPIX struct {
	// e2e is its endToEndId ("" when unknown).
	e2e string
	// txID is its transaction id, the {id} of POST /api/pix/refund-in/{id}
	// ("" when unknown).
	txID string
	// amount is its amount in centavos (0 when unknown).
	amount int64
}

// receivePIXAs credits account a with a PIX of amount (decimal text) from
// payer (nil: a payer outside the sandbox) through POST /_sandbox/pix-in to its
// EVP key.
func receivePIXAs(ctx context.Context, f *framework.Framework, a *sandbox.Account, amount string, payer *sandbox.Payer) receivedPIX {
	ginkgo.GinkgoHelper()
	if payer == nil {
		payer = externalPayer(ctx, f)
	}
	res, err := f.Sandbox.PixIn(ctx, sandbox.PaymentRequest{Key: evpKey(a), Amount: amount, Payer: payer})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "receiving a PIX of %s", amount)
	gomega.Expect(res.EndToEndID).NotTo(gomega.BeEmpty(), "endToEndId of the PIX received")
	gomega.Expect(res.TransactionID.String()).NotTo(gomega.BeEmpty(), "transactionId of the PIX received")
	return receivedPIX{e2e: res.EndToEndID, txID: res.TransactionID.String(), amount: cents(res.Amount)}
}

// receivePIX credits the spec's account with a fresh PIX of amount on a
// target with a control plane, and skips the spec elsewhere.
func receivePIX(ctx context.Context, f *framework.Framework, amount string) receivedPIX {
	ginkgo.GinkgoHelper()
	if !f.ControlPlane {
		ginkgo.Skip(fmt.Sprintf(skipNoFreshPIX, amount))
	}
	return receivePIXAs(ctx, f, f.Account, amount, nil)
}

// refundablePIX returns a PIX the spec's account received, to refund with
// PUT /pix/{e2eid}/devolucao/{id}: -refund-e2e when given; on a target with a
// control plane, a fresh one of 10.00. Without either the spec is skipped.
func refundablePIX(ctx context.Context, f *framework.Framework) receivedPIX {
	ginkgo.GinkgoHelper()
	if e2e := f.Config.RefundE2E; e2e != "" {
		return receivedPIX{e2e: e2e, txID: f.Config.RefundTransactionID}
	}
	if !f.ControlPlane {
		ginkgo.Skip(skipNoRefundE2E)
	}
	return receivePIX(ctx, f, refundPIXAmount)
}

// refundableParent returns a PIX the spec's account received, to refund with
// POST /api/pix/refund-in/{id}: -refund-transaction-id when given; on a target
// with a control plane, a fresh one of 10.00. Without either the spec is
// skipped.
func refundableParent(ctx context.Context, f *framework.Framework) receivedPIX {
	ginkgo.GinkgoHelper()
	if id := f.Config.RefundTransactionID; id != "" {
		return receivedPIX{e2e: f.Config.RefundE2E, txID: id}
	}
	if !f.ControlPlane {
		ginkgo.Skip(skipNoRefundTransaction)
	}
	return receivePIX(ctx, f, refundPIXAmount)
}

// knownE2E returns the endToEndId of a PIX the account received when one is
// at hand without skipping (-refund-e2e, or a fresh one on a sandbox), else a
// well-formed one no PIX has.
func knownE2E(ctx context.Context, f *framework.Framework) string {
	ginkgo.GinkgoHelper()
	if f.Config.RefundE2E != "" || f.ControlPlane {
		return refundablePIX(ctx, f).e2e
	}
	return sampleE2EID
}

// unknownE2E returns a well-formed endToEndId (32 alphanumerics, the Central
// Bank form) that no PIX has.
func unknownE2E(f *framework.Framework) string {
	return "E99999999" + "202601011200" + f.UniqueID("")[:11]
}

// newRefundID returns a fresh refund id: 31 alphanumerics, inside 1..35.
func newRefundID(f *framework.Framework) string { return f.UniqueID("conformance") }

// devolucaoPath returns the path of refund id of the PIX e2e.
func devolucaoPath(e2e, id string) string {
	return "/pix/" + url.PathEscape(e2e) + "/devolucao/" + url.PathEscape(id)
}

// refundBody returns a valid PUT /pix/{e2eid}/devolucao/{id} body for valor
// (decimal text with 2 places), natureza ORIGINAL, changed by mods.
func refundBody(valor string, mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{"valor": valor, "natureza": "ORIGINAL", "descricao": refundDescricao}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// refundControl undoes the fault of a refused refund body: it gets the body
// and the valor the refund was meant to have.
type refundControl func(m map[string]any, valor string)

// Controls of refund/body-invalid.
var (
	validValor      refundControl = func(m map[string]any, valor string) { m["valor"] = valor }
	naturezaOrig    refundControl = func(m map[string]any, _ string) { m["natureza"] = "ORIGINAL" }
	descricaoMaxLen refundControl = func(m map[string]any, _ string) { m["descricao"] = strings.Repeat("d", 140) }
)

// putRefundAs sends PUT /pix/{e2eid}/devolucao/{id} with token.
func putRefundAs(ctx context.Context, f *framework.Framework, token, e2e, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPut, devolucaoPath(e2e, id), token, encodeJSON(m), withScenario(nil, scenario))
}

// putRefund sends PUT /pix/{e2eid}/devolucao/{id} with the spec's token.
func putRefund(ctx context.Context, f *framework.Framework, e2e, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return putRefundAs(ctx, f, f.Token(ctx), e2e, id, m, scenario)
}

// createRefundAs sends a refund that must be accepted (2xx) with token and
// returns the response.
func createRefundAs(ctx context.Context, f *framework.Framework, token, e2e, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := putRefundAs(ctx, f, token, e2e, id, m, scenario)
	gomega.Expect(r).To(framework.HaveSuccessStatus())
	return r
}

// createRefund sends a refund that must be accepted (2xx) with the spec's
// token and returns the response.
func createRefund(ctx context.Context, f *framework.Framework, e2e, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return createRefundAs(ctx, f, f.Token(ctx), e2e, id, m, scenario)
}

// controlRefund sends the control of a refund refusal, a refund with the
// spec's token that must be accepted (2xx); otherwise the check ends as
// control refused (framework.Control).
func controlRefund(ctx context.Context, f *framework.Framework, what, e2e, id string, m map[string]any) {
	ginkgo.GinkgoHelper()
	framework.Control(what, encodeJSON(m), putRefund(ctx, f, e2e, id, m, ""))
}

// getRefundAs reads GET /pix/{e2eid}/devolucao/{id} with token, requiring 200.
func getRefundAs(ctx context.Context, f *framework.Framework, token, e2e, id string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	f.Needs(ctx, "GET /pix/{e2eid}/devolucao/{id}")
	r := f.Do(ctx, http.MethodGet, devolucaoPath(e2e, id), token, nil, nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	return r
}

// expectRefundRejected checks a refund error's status (the minimal shape is
// checked on its own, by errors/minimal-shape).
func expectRefundRejected(r *apiclient.Response, status int) {
	ginkgo.GinkgoHelper()
	gomega.Expect(r).To(framework.HaveStatus(status))
}

// freshToken requests a new token for the spec's identity, for use after the
// simulation clock moved past the cached token's 1800 s lifetime.
func freshToken(ctx context.Context, f *framework.Framework) string {
	ginkgo.GinkgoHelper()
	return f.TokenFor(ctx, f.Identity)
}

// advance moves a sandbox's simulation clock forward by d (whole seconds).
func advance(ctx context.Context, f *framework.Framework, d time.Duration) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.Advance(ctx, int64(d/time.Second))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "advancing the simulation clock by %s", d)
}

// awaitRefundStatus polls GET /pix/{e2eid}/devolucao/{id} with token until
// the refund has status and returns the last reading. With settle it first
// lets the refund settle (Framework.AwaitSettlement: the spec must be
// ginkgo.Serial).
func awaitRefundStatus(ctx context.Context, f *framework.Framework, token, e2e, id, status string, settle bool) *apiclient.Response {
	ginkgo.GinkgoHelper()
	f.Needs(ctx, "GET /pix/{e2eid}/devolucao/{id}")
	var got *apiclient.Response
	check := func(g gomega.Gomega) {
		r, err := f.Client.Do(ctx, http.MethodGet, devolucaoPath(e2e, id), token, nil, nil)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(r).To(framework.HaveStatus(http.StatusOK))
		g.Expect(r).To(framework.HaveJSONField("status", status))
		got = r
	}
	if settle {
		f.AwaitSettlement(ctx, check)
	} else {
		f.Eventually(ctx, check)
	}
	return got
}

// expectRefundWebhook checks the REFUND envelope ("Events > Envelope V2") of a
// settled refund of PIX p (payment amount in centavos), as Gap G-49 fills it:
// data.txId null (a PIX received by key), REFUNDED, the original's payment as
// a string and endToEndId, creditDebitType, and the refund's id, rtrId and
// natureza.
func expectRefundWebhook(d framework.Delivery, p receivedPIX, refundID, rtrID, creditDebit string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(d).To(framework.HaveJSONField("type", "REFUND"))
	gomega.Expect(d).To(framework.HaveJSONNumber("data.id"))
	gomega.Expect(d).To(framework.HaveJSONField("data.txId", nil))
	gomega.Expect(d).To(framework.HaveJSONField("data.status", "REFUNDED"))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", gomega.And(gomega.BeAssignableToTypeOf(""), gomega.MatchRegexp(`^\d+\.\d{2}$`))))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", brl(p.amount)))
	gomega.Expect(d).To(framework.HaveJSONField("data.payment.currency", "BRL"))
	gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", p.e2e))
	gomega.Expect(d).To(framework.HaveJSONField("data.creditDebitType", creditDebit))
	gomega.Expect(d).To(framework.HaveJSONField("data.refundId", refundID))
	gomega.Expect(d).To(framework.HaveJSONField("data.rtrId", rtrID))
	gomega.Expect(d).To(framework.HaveJSONField("data.natureza", "ORIGINAL"))
	gomega.Expect(d).To(framework.HaveJSONField("data.refunds", gomega.BeAssignableToTypeOf([]any{})))
}

// webhookRefund returns the refunds[] entry of a REFUND envelope whose
// endToEndId is rtrID, failing the spec when there is none.
func webhookRefund(d framework.Delivery, rtrID string) map[string]any {
	ginkgo.GinkgoHelper()
	v, _ := d.Field("data.refunds")
	items, _ := v.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m["endToEndId"] == rtrID {
			return m
		}
	}
	ginkgo.Fail(fmt.Sprintf("data.refunds has no entry with endToEndId %s in %s", rtrID, d))
	return nil
}

var _ = ginkgo.Describe("PUT /pix/{e2eid}/devolucao/{id}", framework.Res("refund"), framework.FamilyBacen, func() {
	f := framework.New("refund")

	/*
		Check: refund/path-invalid
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (e2eid exactly 32 alphanumeric characters; id 1 to 35 characters); "Limits", e2eid row; "Errors > Central Bank-compatible routes" (PUT refund 400 invalid value); "Errors > Shapes", item 3
		Description: A valid refund body PUT to an e2eid of 31 characters, of 33 characters, or of
		32 characters one of which is '-', or to an id of 36 characters, MUST be answered 400 (not
		404: the path is malformed, not unknown). The e2eid is derived
		from a PIX the account received when one is at hand.
	*/
	ginkgo.DescribeTable("rejects with 400 (not 404) a path with",
		func(ctx ginkgo.SpecContext, path func(e2e, id string) (string, string)) {
			e2e, id := path(knownE2E(ctx, f), newRefundID(f))
			expectRefundRejected(putRefund(ctx, f, e2e, id, refundBody(refundUnit), ""), http.StatusBadRequest)
		},
		ginkgo.Entry("an e2eid of 31 characters", framework.Spec, func(e2e, id string) (string, string) { return e2e[:31], id }),
		ginkgo.Entry("an e2eid of 33 characters", framework.Spec, func(e2e, id string) (string, string) { return e2e + "0", id }),
		ginkgo.Entry("an e2eid with a '-'", framework.Spec, func(e2e, id string) (string, string) { return e2e[:16] + "-" + e2e[17:], id }),
		ginkgo.Entry("an id of 36 characters", framework.Spec, func(e2e, id string) (string, string) {
			return e2e, (id + strings.Repeat("0", 36))[:36]
		}),
	)

	/*
		Check: refund/body-invalid
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (valor a decimal string with 2 places; natureza ORIGINAL or RETIRADA only: MED_OPERACIONAL and MED_FRAUDE are returned only and cannot be sent; descricao max 140; refunds may be partial or full); "Number conventions" (strings with exactly 2 decimal places, minimum 0.01); "Errors > Central Bank-compatible routes" (400 invalid value)
		Description: A refund of a PIX the account received, with a fresh id, whose body breaks
		one rule (valor "10.5", valor "0.00", natureza MED_FRAUDE, natureza MED_OPERACIONAL, a
		descricao of 141 characters) MUST be answered 400; as a control, the same request without
		the fault (valor the refund's amount, natureza ORIGINAL, a descricao of exactly 140
		characters) MUST then be accepted, so that a target refusing every refund cannot pass. On a
		sandbox both are full refunds of a fresh PIX of 10.00 (a target refusing partial refunds
		cannot pass either); with -refund-e2e both refund 0.01 of the configured PIX.
	*/
	ginkgo.DescribeTable("rejects with 400 a body with",
		func(ctx ginkgo.SpecContext, fault func(m map[string]any), control refundControl) {
			p := refundablePIX(ctx, f)
			valor := refundUnit
			if p.amount > 0 {
				valor = brl(p.amount) // a fresh PIX: refund it whole
			}
			expectRefundRejected(putRefund(ctx, f, p.e2e, newRefundID(f), refundBody(valor, fault), ""), http.StatusBadRequest)
			ginkgo.By("the control: the same refund without the fault is accepted")
			controlRefund(ctx, f, "the same refund without the fault", p.e2e, newRefundID(f), refundBody(valor, fault, func(m map[string]any) { control(m, valor) }))
		},
		ginkgo.Entry(`valor "10.5"`, framework.Spec, func(m map[string]any) { m["valor"] = "10.5" }, validValor),
		ginkgo.Entry(`valor "0.00"`, framework.Spec, func(m map[string]any) { m["valor"] = "0.00" }, validValor),
		ginkgo.Entry("natureza MED_FRAUDE", framework.Spec, func(m map[string]any) { m["natureza"] = "MED_FRAUDE" }, naturezaOrig),
		ginkgo.Entry("natureza MED_OPERACIONAL", framework.Spec, func(m map[string]any) { m["natureza"] = "MED_OPERACIONAL" }, naturezaOrig),
		ginkgo.Entry("a descricao of 141 characters", framework.Spec, func(m map[string]any) { m["descricao"] = strings.Repeat("d", 141) }, descricaoMaxLen),
	)

	/*
		Check: refund/unknown-e2eid
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (404 original transaction not found); "Errors > Shapes", item 3
		Description: A valid refund of a well-formed e2eid (32 alphanumerics in the Central Bank
		form) that names no PIX MUST be answered 404.
	*/
	framework.SpecIt("rejects an e2eid that names no PIX with 404", func(ctx ginkgo.SpecContext) {
		expectRefundRejected(putRefund(ctx, f, unknownE2E(f), newRefundID(f), refundBody(refundUnit), ""), http.StatusNotFound)
	})

	/*
		Check: refund/created
		Spec: "Resources > Refund (devolucao)" (id the URL value; rtrId 32 chars; valor decimal with 2 places; natureza; descricao; horario.solicitacao ISO 8601; status); "States and transitions > Refund (devolucao)" (creation → EM_PROCESSAMENTO, then DEVOLVIDO or NAO_REALIZADO)
		Description: A refund of 0.01 of a PIX the account received, with natureza ORIGINAL and a
		descricao, MUST be answered 2xx with id equal to the path's, rtrId of 32 alphanumerics,
		valor "0.01", natureza ORIGINAL, descricao echoed, status EM_PROCESSAMENTO (or a later
		status, DEVOLVIDO or NAO_REALIZADO) and horario.solicitacao in ISO 8601.
	*/
	framework.SpecIt("accepts a refund with the id, a 32-character rtrId, the valor and horario.solicitacao", func(ctx ginkgo.SpecContext) {
		p := refundablePIX(ctx, f)
		id := newRefundID(f)
		r := createRefund(ctx, f, p.e2e, id, refundBody(refundUnit), "")
		gomega.Expect(r).To(framework.HaveJSONField("id", id))
		gomega.Expect(r).To(framework.HaveJSONField("rtrId", gomega.MatchRegexp(rtrIDPattern)))
		gomega.Expect(r).To(framework.HaveJSONField("valor", refundUnit))
		gomega.Expect(r).To(framework.HaveJSONField("natureza", "ORIGINAL"))
		gomega.Expect(r).To(framework.HaveJSONField("descricao", refundDescricao))
		gomega.Expect(r).To(framework.HaveJSONField("status", gomega.BeElementOf(refundEmProcessamento, refundDevolvido, refundNaoRealizado)))
		gomega.Expect(r).To(framework.HaveJSONField("horario.solicitacao", framework.BeISO8601()))
	})

	/*
		Check: refund/natureza-retirada
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (natureza optional; ORIGINAL or RETIRADA); "Resources > Refund (devolucao)" (natureza)
		Description: A refund of 0.01 of a PIX the account received with natureza RETIRADA MUST be
		accepted (2xx) with natureza RETIRADA.
	*/
	framework.SpecIt("accepts natureza RETIRADA and echoes it", func(ctx ginkgo.SpecContext) {
		p := refundablePIX(ctx, f)
		r := createRefund(ctx, f, p.e2e, newRefundID(f), refundBody(refundUnit, func(m map[string]any) { m["natureza"] = "RETIRADA" }), "")
		gomega.Expect(r).To(framework.HaveJSONField("natureza", "RETIRADA"))
	})

	/*
		Check: refund/sum-rule
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (refunds may be partial or full; the sum of all refunds of one PIX must not exceed the original amount; 400 value exceeds the refundable balance); "Limits", refund sum row; "Errors > Shapes", item 3
		Description: Of a PIX of 100.00 received for this check alone, two refunds of 30.00 (fresh
		ids) MUST each be accepted (2xx); a refund of 40.01, one centavo more than is left, MUST be
		answered 400; a refund of exactly the 40.00 left MUST then be accepted, so the 400 was for
		the sum and for nothing else (not, say, a cap on the number of refunds); and a further
		refund of 0.01 MUST be answered 400.
	*/
	framework.SpecIt("accepts refunds up to exactly the PIX's amount and refuses one centavo more with 400", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "100.00")
		createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("30.00"), "")
		createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("30.00"), "")
		expectRefundRejected(putRefund(ctx, f, p.e2e, newRefundID(f), refundBody("40.01"), ""), http.StatusBadRequest)
		createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("40.00"), "")
		expectRefundRejected(putRefund(ctx, f, p.e2e, newRefundID(f), refundBody("0.01"), ""), http.StatusBadRequest)
	})

	/*
		Check: refund/sum-rule-concurrent
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (the sum of all refunds of one PIX must not exceed the original amount; 400 value exceeds the refundable balance); "Resources > Balance (Central Bank-compatible)" (available already net of blocked)
		Description: 20 refunds of 10.00 each (fresh ids) of a PIX of 100.00 received for this
		check alone, sent at once, MUST be answered 2xx exactly 10 times and 400 the other 10
		times, and available MUST end lower by exactly 100.00.
	*/
	framework.SpecIt("keeps 20 concurrent refunds of 10.00 of a PIX of 100.00 within its amount", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "100.00")
		tok := f.Token(ctx)
		before := f.Balance(ctx)
		const n = 20
		responses := make([]*apiclient.Response, n)
		errs := make([]error, n)
		bodies := make([][]byte, n)
		paths := make([]string, n)
		for i := range n {
			bodies[i], paths[i] = encodeJSON(refundBody("10.00")), devolucaoPath(p.e2e, newRefundID(f))
		}
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				responses[i], errs[i] = f.Client.Do(ctx, http.MethodPut, paths[i], tok, bodies[i], nil)
			}()
		}
		wg.Wait()
		accepted, refused := 0, 0
		for i, r := range responses {
			gomega.Expect(errs[i]).NotTo(gomega.HaveOccurred(), "request %d", i)
			switch {
			case r.Status >= 200 && r.Status <= 299:
				accepted++
			case r.Status == http.StatusBadRequest:
				refused++
			default:
				ginkgo.Fail(fmt.Sprintf("request %d: want 2xx or 400: %s", i, r))
			}
		}
		gomega.Expect(accepted).To(gomega.Equal(10), "refunds accepted of %d concurrent ones (%d refused)", n, refused)
		gomega.Expect(brl(f.Balance(ctx).Available)).To(gomega.Equal(brl(before.Available-10000)), "available after the concurrent refunds")
	})

	/*
		Check: refund/hold
		Spec: "Resources > Balance (Central Bank-compatible)" (blocked: reserved for operations in processing; available already net of blocked); "States and transitions > Refund (devolucao)" (EM_PROCESSAMENTO until processed)
		Description: Right after a refund of 0.01 is accepted, GET /accounts/balances MUST read, when
		the refund's status is EM_PROCESSAMENTO, available lower by 0.01 and blocked higher by 0.01
		than just before it; when it is already DEVOLVIDO, available lower by 0.01 and blocked
		unchanged.
	*/
	framework.SpecIt("holds the amount in blocked while the refund is processed", func(ctx ginkgo.SpecContext) {
		p := refundablePIX(ctx, f)
		amount := cents(json.Number(refundUnit))
		before := f.Balance(ctx)
		r := createRefund(ctx, f, p.e2e, newRefundID(f), refundBody(refundUnit), "")
		switch status := stringField(r, "status"); status {
		case refundEmProcessamento:
			expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked + amount}, "while the refund is processed")
		case refundDevolvido:
			expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - amount, Blocked: before.Blocked}, "after the refund was returned")
		default:
			ginkgo.Fail(fmt.Sprintf("the refund of %s is %s at once, neither in processing nor returned", refundUnit, status))
		}
	})

	/*
		Check: refund/success-status
		Gap G-12: the success status of PUT /pix/{e2eid}/devolucao/{id} is "not shown" (docs/spec-gaps.md); the sandbox answers 201, as the Central Bank reference does
		Description: An accepted refund MUST be answered exactly 201.
	*/
	framework.SandboxChoiceIt("answers an accepted refund with 201", func(ctx ginkgo.SpecContext) {
		p := refundablePIX(ctx, f)
		gomega.Expect(putRefund(ctx, f, p.e2e, newRefundID(f), refundBody(refundUnit), "")).To(framework.HaveStatus(http.StatusCreated))
	})

	/*
		Check: refund/idempotent-id
		Gap G-44: the same id with the same valor returns the same refund (201 again, the PUT is idempotent); with another valor it is 400
		Description: Sending the same refund again (same e2eid, id and valor 1.00) MUST be answered
		201 with the same rtrId, status and horario.solicitacao, and MUST leave available and
		blocked as the first request left them; the same id with valor 2.00 MUST be answered 400 and
		move nothing.
	*/
	framework.SandboxChoiceIt("answers the same id and valor with the same refund and refuses another valor with 400", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		id := newRefundID(f)
		first := createRefund(ctx, f, p.e2e, id, refundBody("1.00"), "")
		afterFirst := f.Balance(ctx)

		again := putRefund(ctx, f, p.e2e, id, refundBody("1.00"), "")
		gomega.Expect(again).To(framework.HaveStatus(http.StatusCreated))
		for _, path := range []string{"id", "rtrId", "valor", "status", "horario.solicitacao"} {
			v, ok := first.Field(path)
			gomega.Expect(ok).To(gomega.BeTrue(), "%s of the first response", path)
			gomega.Expect(again).To(framework.HaveJSONField(path, v))
		}
		expectBalance(f.Balance(ctx), afterFirst, "after the repeated refund")

		expectRefundRejected(putRefund(ctx, f, p.e2e, id, refundBody("2.00"), ""), http.StatusBadRequest)
		expectBalance(f.Balance(ctx), afterFirst, "after the refused refund")
	})

	/*
		Check: refund/idempotent-concurrent
		Gap G-44: the same id with the same valor returns the same refund; concurrent refunds of one PIX serialise on it
		Description: 10 identical refunds (same id, valor 5.00) sent at once MUST all be answered
		201 with one and the same rtrId, and available MUST decrease (blocked increase) by 5.00
		exactly once.
	*/
	framework.SandboxChoiceIt("answers 10 concurrent identical refunds with one refund and moves the amount once", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		tok := f.Token(ctx)
		before := f.Balance(ctx)
		const n = 10
		path, body := devolucaoPath(p.e2e, newRefundID(f)), encodeJSON(refundBody("5.00"))
		responses := make([]*apiclient.Response, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				responses[i], errs[i] = f.Client.Do(ctx, http.MethodPut, path, tok, body, nil)
			}()
		}
		wg.Wait()
		rtrIDs := map[string]bool{}
		for i, r := range responses {
			gomega.Expect(errs[i]).NotTo(gomega.HaveOccurred(), "request %d", i)
			gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated), "request %d", i)
			rtrIDs[stringField(r, "rtrId")] = true
		}
		gomega.Expect(rtrIDs).To(gomega.HaveLen(1), "rtrIds of %d identical refunds", n)
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 500, Blocked: before.Blocked + 500}, "after the concurrent refunds")
	})

	/*
		Check: refund/get
		Gap G-44: a refund is reachable by its id on either route; GET /pix/{e2eid}/devolucao/{id} is the Central Bank reference's read (as GET /cob/{txid} is, G-35), not in the spec
		Description: GET /pix/{e2eid}/devolucao/{id} of a created refund MUST answer 200 with the
		same id, rtrId, valor, natureza, descricao, status and horario.solicitacao as the creation
		response; GET of an id never used on that PIX, and of an e2eid that names no PIX, MUST
		answer 404.
	*/
	framework.SandboxChoiceIt("reads a refund with GET and answers 404 for an unknown id or e2eid", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		id := newRefundID(f)
		created := createRefund(ctx, f, p.e2e, id, refundBody("3.00"), "")
		r := getRefundAs(ctx, f, f.Token(ctx), p.e2e, id)
		for _, path := range []string{"id", "rtrId", "valor", "natureza", "descricao", "status", "horario.solicitacao"} {
			v, ok := created.Field(path)
			gomega.Expect(ok).To(gomega.BeTrue(), "%s of the creation response", path)
			gomega.Expect(r).To(framework.HaveJSONField(path, v))
		}
		expectRefundRejected(f.Do(ctx, http.MethodGet, devolucaoPath(p.e2e, newRefundID(f)), f.Token(ctx), nil, nil), http.StatusNotFound)
		expectRefundRejected(f.Do(ctx, http.MethodGet, devolucaoPath(unknownE2E(f), id), f.Token(ctx), nil, nil), http.StatusNotFound)
	})

	/*
		Check: refund/cannot-cover
		Gap G-44: a refund the available balance cannot cover is accepted and ends NAO_REALIZADO at once, with motivo, moving nothing (and not counting against the PIX)
		Sandbox: a second account from POST /_sandbox/accounts (balance 0.00, cashInFee 0.50 with PUT /_sandbox/accounts/{id}/settings); POST /_sandbox/pix-in
		Description: An account holding 9.50 after receiving a PIX of 10.00 (a cash-in fee of 0.50)
		that refunds the whole 10.00 MUST be answered 201 with status NAO_REALIZADO and a non-empty
		motivo, GET MUST read the same, and available and blocked MUST stay 9.50 and 0.00; a refund
		of 9.50 of the same PIX MUST then be accepted as EM_PROCESSAMENTO.
	*/
	framework.SandboxIt("ends a refund the account cannot cover NAO_REALIZADO at once and moves nothing", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		acct, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "0.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Sandbox.PutSettings(ctx, acct.ID.String(), sandbox.SettingsUpdate{CashInFee: "0.50"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tok := f.TokenFor(ctx, framework.IdentityOf(acct))
		p := receivePIXAs(ctx, f, acct, "10.00", nil)
		expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: 950, Blocked: 0}, "after the PIX less the fee")

		id := newRefundID(f)
		r := putRefundAs(ctx, f, tok, p.e2e, id, refundBody("10.00"), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("status", refundNaoRealizado))
		gomega.Expect(r).To(framework.HaveJSONField("motivo", nonEmptyString()))
		gomega.Expect(getRefundAs(ctx, f, tok, p.e2e, id)).To(framework.HaveJSONField("status", refundNaoRealizado))
		expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: 950, Blocked: 0}, "after the refund it cannot cover")

		again := createRefundAs(ctx, f, tok, p.e2e, newRefundID(f), refundBody("9.50"), "")
		gomega.Expect(again).To(framework.HaveJSONField("status", refundEmProcessamento))
	})

	/*
		Check: refund/deadline
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (refunds are accepted up to 89 days after receipt; 422 deadline expired); "Endpoints > POST /api/pix/refund-in/{id}" (refund must be within 89 days; 400 deadline exceeded); "Limits", refund window row
		Gap G-45: accepted while at most 89 × 24 hours have passed since the PIX was received, on the simulation clock: day 89 accepted, day 90 refused
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: Of three PIX received at the same moment, 89 days later (one minute less on a
		real clock) a refund of the first through PUT and of the second through
		POST /api/pix/refund-in/{id} MUST be accepted; one day after that a refund of the third MUST
		be answered 422 through PUT and 400 through refund-in.
	*/
	framework.SandboxIt("accepts a refund on day 89 and refuses one on day 90 (422 here, 400 on refund-in)", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		a, b, c := receivePIX(ctx, f, refundPIXAmount), receivePIX(ctx, f, refundPIXAmount), receivePIX(ctx, f, refundPIXAmount)
		clk, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		edge := 89 * 24 * time.Hour
		if !clk.Virtual() {
			edge -= time.Minute // the wall time of the exchange counts on a real clock
		}
		advance(ctx, f, edge)
		tok := freshToken(ctx, f)
		createRefundAs(ctx, f, tok, a.e2e, newRefundID(f), refundBody("1.00"), "")
		gomega.Expect(postRefundInAs(ctx, f, tok, b.txID, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusCreated), "refund-in on day 89")

		advance(ctx, f, 24*time.Hour)
		tok = freshToken(ctx, f)
		expectRefundRejected(putRefundAs(ctx, f, tok, c.e2e, newRefundID(f), refundBody("1.00"), ""), http.StatusUnprocessableEntity)
		gomega.Expect(postRefundInAs(ctx, f, tok, c.txID, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusBadRequest), "refund-in on day 90")
	})

	/*
		Check: refund/settled
		Spec: "States and transitions > Refund (devolucao)" (EM_PROCESSAMENTO → DEVOLVIDO when processing succeeds); "Resources > Balance (Central Bank-compatible)" (blocked: reserved for operations in processing)
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance (a refund settles 2 s after it is accepted)
		Description: A refund of 20.00 of a PIX of 50.00 MUST be EM_PROCESSAMENTO with 20.00 moved
		from available to blocked; once settled GET MUST read DEVOLVIDO, and blocked MUST be back to
		its value before the refund with available still lower by 20.00: the amount left the
		account.
	*/
	framework.SandboxIt("settles a refund as DEVOLVIDO and the amount leaves the account", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "50.00")
		before := f.Balance(ctx)
		id := newRefundID(f)
		r := createRefund(ctx, f, p.e2e, id, refundBody("20.00"), "")
		gomega.Expect(r).To(framework.HaveJSONField("status", refundEmProcessamento))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 2000, Blocked: before.Blocked + 2000}, "while the refund is processed")
		awaitRefundStatus(ctx, f, f.Token(ctx), p.e2e, id, refundDevolvido, true)
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 2000, Blocked: before.Blocked}, "after the refund settled")
	})

	/*
		Check: refund/settled-form
		Gap: the fields of horario beyond solicitacao are "not shown" ("Resources > Refund (devolucao)"); the sandbox adds horario.liquidacao once DEVOLVIDO, and writes rtrId in the Central Bank's return-id form, as the Central Bank reference does (no gap row in docs/spec-gaps.md)
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: A refund MUST carry no horario.liquidacao while EM_PROCESSAMENTO; once
		DEVOLVIDO, GET MUST read horario.liquidacao in ISO 8601, not before horario.solicitacao,
		and rtrId MUST be D + an ISPB + yyyyMMddHHmm + 11 alphanumerics.
	*/
	framework.SandboxIt("adds horario.liquidacao once DEVOLVIDO and writes rtrId in the Central Bank form", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, refundPIXAmount)
		id := newRefundID(f)
		r := createRefund(ctx, f, p.e2e, id, refundBody("4.00"), "")
		_, has := r.Field("horario.liquidacao")
		gomega.Expect(has).To(gomega.BeFalse(), "horario.liquidacao while processing in %s", r)
		gomega.Expect(r).To(framework.HaveJSONField("rtrId", gomega.MatchRegexp(returnIDPattern)))
		got := awaitRefundStatus(ctx, f, f.Token(ctx), p.e2e, id, refundDevolvido, true)
		gomega.Expect(got).To(framework.HaveJSONField("horario.liquidacao", framework.BeISO8601()))
		requested, err := apiclient.ParseISO8601(stringField(got, "horario.solicitacao"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		settled, err := apiclient.ParseISO8601(stringField(got, "horario.liquidacao"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(settled).NotTo(gomega.BeTemporally("<", requested), "horario.liquidacao before horario.solicitacao")
	})

	/*
		Check: refund/failure
		Spec: "States and transitions > Refund (devolucao)" (EM_PROCESSAMENTO → NAO_REALIZADO when processing fails; motivo may be filled); "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (the sum of all refunds must not exceed the original amount)
		Sandbox: X-Sandbox-Scenario: REFUND_FAILURE (processing fails at settlement); POST /_sandbox/clock/advance
		Description: A refund of the whole 40.00 of a PIX carrying REFUND_FAILURE MUST be accepted
		as EM_PROCESSAMENTO with the amount held; once processed GET MUST read NAO_REALIZADO with a
		non-empty motivo, available and blocked MUST be back to their values before the refund, and
		a new refund of the whole 40.00 MUST be accepted: a failed refund does not count.
	*/
	framework.SandboxIt("ends a REFUND_FAILURE refund NAO_REALIZADO with motivo and returns the hold", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "40.00")
		before := f.Balance(ctx)
		id := newRefundID(f)
		r := createRefund(ctx, f, p.e2e, id, refundBody("40.00"), "REFUND_FAILURE")
		gomega.Expect(r).To(framework.HaveJSONField("status", refundEmProcessamento))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 4000, Blocked: before.Blocked + 4000}, "while the refund is processed")

		got := awaitRefundStatus(ctx, f, f.Token(ctx), p.e2e, id, refundNaoRealizado, true)
		gomega.Expect(got).To(framework.HaveJSONField("motivo", nonEmptyString()))
		expectBalance(f.Balance(ctx), before, "after the refund failed")
		again := createRefund(ctx, f, p.e2e, newRefundID(f), refundBody("40.00"), "")
		gomega.Expect(again).To(framework.HaveJSONField("status", refundEmProcessamento))
	})

	/*
		Check: refund/paid-charges
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (only received PIX can be refunded; the sum of all refunds must not exceed the original amount); "Endpoints > POST /api/pix/refund-in/{id}" (id of the original transaction); "What the service does", capability 4 (receiving by a cash-in charge or an immediate charge)
		Sandbox: POST /_sandbox/payments (paying a cash-in charge and a cob)
		Description: Of a paid cash-in charge of 25.00, a refund-in of 10.00 naming the charge's
		transactionId and a refund of 15.00 through PUT naming the payment's endToEndId MUST both be
		accepted, and one more centavo refused with 400; a refund of 5.00 of a paid cob of 25.00,
		named by its payment's endToEndId, MUST be accepted.
	*/
	framework.SandboxIt("refunds PIX received by a paid cash-in charge and a paid cob", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		paid := pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})
		createRefundIn(ctx, f, c.id, refundInBody(f, "10.00"))
		createRefund(ctx, f, paid.EndToEndID, newRefundID(f), refundBody("15.00"), "")
		expectRefundRejected(putRefund(ctx, f, paid.EndToEndID, newRefundID(f), refundBody("0.01"), ""), http.StatusBadRequest)

		txid := newTxID(f)
		createCob(ctx, f, txid, cobBody(ownKey(f), cobDefaultOriginal), "")
		cob := pay(ctx, f, sandbox.PaymentRequest{TxID: txid})
		createRefund(ctx, f, cob.EndToEndID, newRefundID(f), refundBody("5.00"), "")
	})

	/*
		Check: refund/other-account
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (404 original transaction not found: an account refunds only what it received)
		Sandbox: a second account from POST /_sandbox/accounts receiving a PIX by POST /_sandbox/pix-in
		Description: A refund naming the endToEndId of a PIX another account received MUST be
		answered 404, and so MUST GET of that account's refund of it.
	*/
	framework.SandboxIt("refuses to refund, or show a refund of, another account's PIX with 404", func(ctx ginkgo.SpecContext) {
		other, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		theirs := receivePIXAs(ctx, f, other, refundPIXAmount, nil)
		id := newRefundID(f)
		createRefundAs(ctx, f, f.TokenFor(ctx, framework.IdentityOf(other)), theirs.e2e, id, refundBody("1.00"), "")
		expectRefundRejected(putRefund(ctx, f, theirs.e2e, newRefundID(f), refundBody("1.00"), ""), http.StatusNotFound)
		expectRefundRejected(f.Do(ctx, http.MethodGet, devolucaoPath(theirs.e2e, id), f.Token(ctx), nil, nil), http.StatusNotFound)
	})

	/*
		Check: refund/not-a-receipt
		Spec: "Endpoints > PUT /pix/{e2eid}/devolucao/{id}" (only received PIX can be refunded; 404 transaction is not a receipt); "Errors > Shapes", item 3
		Sandbox: POST /_sandbox/dict/keys (the destination); POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id} (the sent PIX's endToEndId)
		Description: A refund naming the endToEndId of a PIX the account sent (a settled
		POST /dict/pix transfer) MUST be answered 404 and move nothing.
	*/
	framework.SandboxIt("refuses to refund a PIX the account sent with 404", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		e2e := settledTransfer(ctx, f).e2e
		before := f.Balance(ctx)
		expectRefundRejected(putRefund(ctx, f, e2e, newRefundID(f), refundBody("1.00"), ""), http.StatusNotFound)
		expectBalance(f.Balance(ctx), before, "after the refused refund")
	})

	/*
		Check: refund/webhook
		Spec: "States and transitions > Refund (devolucao)" (DEVOLVIDO: REFUND webhook); "Events > Envelope V2", REFUND (id, txId, status REFUNDED, payment, refunds[] of {status LIQUIDATED, payment.amount number, endToEndId, eventDate, information}, endToEndId, creditDebitType DEBIT)
		Gap G-49: the REFUND envelope goes to the refunding account's refund_in targets at settlement: data.id the REFUND_IN transaction, payment the original PIX (amount a string), endToEndId the original's, refunds[] every settled refund of the PIX (endToEndId the rtrId, information the descricao), plus refundId, rtrId and natureza
		Sandbox: POST /_sandbox/webhook-targets (refund_in); POST /_sandbox/pix-in; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: Refunds of 30.00 and then 20.00 of a PIX of 100.00 received by key MUST each,
		once settled, send a REFUND envelope with data.txId null, status REFUNDED, payment.amount
		"100.00", payment.currency BRL, the PIX's endToEndId, creditDebitType DEBIT, the refund's
		refundId, rtrId and natureza ORIGINAL, and data.id the number of a REFUND_IN transaction
		whose endToEndId is the rtrId; refunds[] MUST hold the settled refund with status
		LIQUIDATED, payment.amount the number 30.00 (20.00), currency BRL, eventDate in ISO 8601 and
		information the descricao; the second envelope's refunds[] MUST hold both refunds.
	*/
	framework.SandboxIt("sends a REFUND webhook listing the settled refunds of the PIX", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventRefundIn, f.Webhooks, "")
		p := receivePIX(ctx, f, "100.00")
		var rtrIDs []string
		for i, valor := range []string{"30.00", "20.00"} {
			id := newRefundID(f)
			r := createRefund(ctx, f, p.e2e, id, refundBody(valor, func(m map[string]any) { m["descricao"] = fmt.Sprintf("%s %d", refundDescricao, i+1) }), "")
			rtrID := stringField(r, "rtrId")
			rtrIDs = append(rtrIDs, rtrID)

			d := awaitWebhook(ctx, f, f.Webhooks, true, "data.refundId", id)
			expectRefundWebhook(d, p, id, rtrID, "DEBIT")
			dataID, _ := d.Field("data.id")
			tx := transaction(ctx, f, fmt.Sprint(dataID))
			gomega.Expect(tx.Kind).To(gomega.Equal("REFUND_IN"), "kind of the transaction data.id names")
			gomega.Expect(tx.EndToEndID).To(gomega.Equal(rtrID), "endToEndId of the REFUND_IN transaction")

			gomega.Expect(d).To(framework.HaveJSONField("data.refunds", gomega.HaveLen(i+1)), "every settled refund of the PIX")
			entry := webhookRefund(d, rtrID)
			gomega.Expect(entry).To(framework.HaveJSONField("status", "LIQUIDATED"))
			gomega.Expect(entry).To(framework.HaveJSONField("payment.amount", framework.BeDecimal2Number()))
			gomega.Expect(entry).To(framework.HaveJSONField("payment.amount", json.Number(valor)))
			gomega.Expect(entry).To(framework.HaveJSONField("payment.currency", "BRL"))
			gomega.Expect(entry).To(framework.HaveJSONField("eventDate", framework.BeISO8601()))
			gomega.Expect(entry).To(framework.HaveJSONField("information", fmt.Sprintf("%s %d", refundDescricao, i+1)))
		}
		last := matching(f.Webhooks, "data.rtrId", rtrIDs[1])
		gomega.Expect(last).NotTo(gomega.BeEmpty())
		webhookRefund(last[len(last)-1], rtrIDs[0])
	})

	/*
		Check: refund/failure-webhook
		Gap G-49: V2 status values beyond LIQUIDATED and REFUNDED are "not shown"; a refund ending NAO_REALIZADO sends the REFUND envelope with data.status ERROR and motivo, its refunds[] entry with status ERROR
		Sandbox: X-Sandbox-Scenario: REFUND_FAILURE; POST /_sandbox/webhook-targets (refund_in); POST /_sandbox/clock/advance
		Description: A refund carrying REFUND_FAILURE MUST, once processed, send the refund_in
		target a REFUND envelope with data.refundId the refund's id, data.status ERROR, a non-empty
		data.motivo and a refunds[] entry for its rtrId with status ERROR.
	*/
	framework.SandboxIt("sends a REFUND webhook with status ERROR and motivo when a refund fails", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventRefundIn, f.Webhooks, "")
		p := receivePIX(ctx, f, refundPIXAmount)
		id := newRefundID(f)
		rtrID := stringField(createRefund(ctx, f, p.e2e, id, refundBody("5.00"), "REFUND_FAILURE"), "rtrId")
		d := awaitWebhook(ctx, f, f.Webhooks, true, "data.refundId", id)
		gomega.Expect(d).To(framework.HaveJSONField("type", "REFUND"))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "ERROR"))
		gomega.Expect(d).To(framework.HaveJSONField("data.motivo", nonEmptyString()))
		gomega.Expect(webhookRefund(d, rtrID)).To(framework.HaveJSONField("status", "ERROR"))
	})

	/*
		Check: refund/to-sandbox-payer
		Spec: "States and transitions > Refund (devolucao)" (DEVOLVIDO: REFUND webhook); "Events > Registration event types" (refund_out: refund received); "Events > Envelope V2", REFUND row (creditDebitType DEBIT)
		Gap G-49: when the payer is a sandbox account it receives the refund as REFUND_OUT (a credit) and the REFUND envelope, creditDebitType DEBIT as the contract's row fixes it, on its refund_out targets
		Sandbox: a second account from POST /_sandbox/accounts (the payer) paying the spec's EVP key with POST /dict/pix; POST /_sandbox/webhook-targets (cash_in for the spec's account, refund_out for the payer); POST /_sandbox/clock/advance
		Description: A refund of 10.00 of a PIX of 25.00 that another sandbox account sent MUST,
		once DEVOLVIDO, raise that account's available by 10.00 (75.00 → 85.00), record it there
		as a REFUND_OUT transaction, CONFIRMED, of 10.00 (the transaction of its refund_out
		delivery in GET /_sandbox/webhook-deliveries), and send its refund_out target a REFUND
		envelope with data.creditDebitType DEBIT, data.refundId the refund's id, data.endToEndId
		the PIX's, payment.amount "25.00", a refunds[] entry for the rtrId of payment.amount 10.00,
		and data.id the number of that REFUND_OUT transaction: as in every other envelope, data.id
		names a transaction of the account notified (RECEIVE names the receiver's, the refund_in
		REFUND the refunder's REFUND_IN), never another account's.
	*/
	framework.SandboxIt("returns a refund of a PIX from another sandbox account to it, with a REFUND webhook of creditDebitType DEBIT", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		payer, inboxOut := peerAccount(ctx, f, eventRefundOut)
		payerToken := f.TokenFor(ctx, framework.IdentityOf(payer))
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")

		idem := framework.UUIDv4()
		sent := f.Do(ctx, http.MethodPost, transferPath, payerToken, transferBody(evpKey(f.Account), "25.00"), transferHeaders(idem, ""))
		gomega.Expect(sent).To(framework.HaveSuccessStatus())
		in := awaitWebhook(ctx, f, f.Webhooks, true, "type", "RECEIVE")
		e2e, _ := in.Field("data.endToEndId")
		p := receivedPIX{e2e: fmt.Sprint(e2e), amount: 2500}
		gomega.Expect(p.e2e).To(gomega.MatchRegexp(endToEndPattern), "endToEndId of the PIX received")
		expectBalance(f.BalanceOf(ctx, payerToken), framework.Balance{Available: 7500, Blocked: 0}, "of the payer after its PIX")

		id := newRefundID(f)
		rtrID := stringField(createRefund(ctx, f, p.e2e, id, refundBody("10.00"), ""), "rtrId")
		awaitRefundStatus(ctx, f, f.Token(ctx), p.e2e, id, refundDevolvido, true)
		expectBalance(f.BalanceOf(ctx, payerToken), framework.Balance{Available: 8500, Blocked: 0}, "of the payer after the refund")

		d := awaitWebhook(ctx, f, inboxOut, false, "data.refundId", id)
		gomega.Expect(d).To(framework.HaveJSONField("type", "REFUND"))
		gomega.Expect(d).To(framework.HaveJSONField("data.creditDebitType", "DEBIT"))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "REFUNDED"))
		gomega.Expect(d).To(framework.HaveJSONField("data.endToEndId", p.e2e))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", "25.00"))
		gomega.Expect(webhookRefund(d, rtrID)).To(framework.HaveJSONField("payment.amount", json.Number("10.00")))

		ds, err := f.Sandbox.Deliveries(ctx, sandbox.DeliveryQuery{AccountID: payer.ID.String()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var refundOut *sandbox.Transaction
		for _, dl := range ds {
			if dl.EventType == eventRefundOut {
				refundOut = transaction(ctx, f, dl.TransactionID.String())
			}
		}
		gomega.Expect(refundOut).NotTo(gomega.BeNil(), "a refund_out delivery of the payer among %d", len(ds))
		gomega.Expect(refundOut.Kind).To(gomega.Equal("REFUND_OUT"), "kind of the payer's refund transaction")
		gomega.Expect(refundOut.Status).To(gomega.Equal("CONFIRMED"), "status of the payer's refund transaction")
		gomega.Expect(refundOut.AccountID.String()).To(gomega.Equal(payer.ID.String()), "account of the payer's refund transaction")
		gomega.Expect(brl(cents(refundOut.Amount))).To(gomega.Equal("10.00"), "amount of the payer's refund transaction")
		gomega.Expect(d).To(framework.HaveJSONField("data.id", json.Number(refundOut.ID.String())), "data.id names the payer's REFUND_OUT transaction")
	})
})

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
func postRefundInAs(ctx context.Context, f *framework.Framework, token, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, refundInPath(id), token, encodeJSON(m), withScenario(nil, scenario))
}

// postRefundIn sends POST /api/pix/refund-in/{id} with the spec's token.
func postRefundIn(ctx context.Context, f *framework.Framework, id string, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return postRefundInAs(ctx, f, f.Token(ctx), id, m, scenario)
}

// createRefundIn sends a refund-in that must be answered 201 and returns the
// response.
func createRefundIn(ctx context.Context, f *framework.Framework, id string, m map[string]any) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := postRefundIn(ctx, f, id, m, "")
	gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	return r
}

// controlRefundIn sends the control of a refund-in refusal, a refund-in
// with the spec's token that must be answered 201; otherwise the check ends
// as control refused (framework.Control).
func controlRefundIn(ctx context.Context, f *framework.Framework, what, id string, m map[string]any) {
	ginkgo.GinkgoHelper()
	framework.Control(what, encodeJSON(m), postRefundIn(ctx, f, id, m, ""), http.StatusCreated)
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
		Description: Of a PIX of 100.00 received for this check alone, two refund-ins of 30.00
		naming its transaction id MUST each be answered 201; a refund-in of 40.01 MUST be answered
		400; one of exactly the 40.00 left MUST then be answered 201 (the 400 was for the sum); and
		a further refund-in of 0.01 MUST be answered 400.
	*/
	framework.SpecIt("accepts refund-ins up to exactly the PIX's amount and refuses one centavo more with 400", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "100.00")
		createRefundIn(ctx, f, p.txID, refundInBody(f, "30.00"))
		createRefundIn(ctx, f, p.txID, refundInBody(f, "30.00"))
		gomega.Expect(postRefundIn(ctx, f, p.txID, refundInBody(f, "40.01"), "")).To(framework.HaveStatus(http.StatusBadRequest), "40.01 of the 40.00 left")
		createRefundIn(ctx, f, p.txID, refundInBody(f, "40.00"))
		gomega.Expect(postRefundIn(ctx, f, p.txID, refundInBody(f, "0.01"), "")).To(framework.HaveStatus(http.StatusBadRequest), "0.01 of nothing left")
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

		other, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		theirs := receivePIXAs(ctx, f, other, refundPIXAmount, nil)
		gomega.Expect(postRefundIn(ctx, f, theirs.txID, refundInBody(f, "1.00"), "")).To(framework.HaveStatus(http.StatusNotFound), "another account's PIX as parent")
	})
})
