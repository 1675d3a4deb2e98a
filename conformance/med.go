package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// medPath is the MED listing route.
const medPath = "/api/med"

// Statuses, reasons and results of "Resources > MED".
const (
	medOpen                   = "OPEN"
	medReceived               = "RECEIVED"
	medCancelled              = "CANCELLED"
	medAnalyzed               = "ANALYZED"
	medReasonRequest          = "REFUND_REQUEST"
	medReasonCancellation     = "REFUND_CANCELLATION"
	medApproved               = "APPROVED"
	medRejected               = "REJECTED"
	medCauseUnauthorized      = "UNAUTHORIZED_TRANSACTION"
	medCauseOperationalFlaw   = "OPERATIONAL_FLAW"
	natureMedFraude           = "MED_FRAUDE"
	natureMedOperacional      = "MED_OPERACIONAL"
	medDefaultPageSize        = 20
	medRejectionDetails       = "conformance rejection"
	medApprovalDetails        = "conformance approval"
	medUnreconciledContestBRL = "50.00"
)

// Webhook event types of MED ("Events > Registration event types").
const (
	eventMedCreated  = "med_created"
	eventMedAccepted = "med_accepted"
	eventMedRejected = "med_rejected"
)

// listMEDsAs reads GET /api/med with query (without "?", may be empty) and
// token, requiring 200.
func listMEDsAs(ctx context.Context, f *framework.Framework, token, query string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return listAs(ctx, f, token, withQuery(medPath, query))
}

// medIDs returns the ids of the data[] items of a GET /api/med response, in
// order, as text.
func medIDs(r *apiclient.Response) []string {
	ginkgo.GinkgoHelper()
	var ids []string
	for _, it := range dataItems(r) {
		ids = append(ids, fmt.Sprint(it["id"]))
	}
	return ids
}

// medItem returns the MED id as GET /api/med lists it (pageSize 100), failing
// the spec when it is not listed.
func medItem(ctx context.Context, f *framework.Framework, token, id string) map[string]any {
	ginkgo.GinkgoHelper()
	r := listMEDsAs(ctx, f, token, "pageSize=100")
	for _, it := range dataItems(r) {
		if fmt.Sprint(it["id"]) == id {
			expectMEDItem(it)
			return it
		}
	}
	ginkgo.Fail(fmt.Sprintf("MED %s is not listed: %s", id, r))
	return nil
}

// expectMEDItem checks one MED against "Resources > MED".
func expectMEDItem(it map[string]any) {
	ginkgo.GinkgoHelper()
	str := gomega.BeAssignableToTypeOf("")
	stringOrNull := gomega.Or(gomega.BeNil(), str)
	gomega.Expect(it).To(framework.HaveJSONNumber("id"))
	gomega.Expect(it).To(framework.HaveJSONField("endToEnd", gomega.And(str, gomega.Not(gomega.BeEmpty()))))
	gomega.Expect(it).To(framework.HaveJSONField("status", gomega.BeElementOf(medOpen, medReceived, medCancelled, medAnalyzed)))
	gomega.Expect(it).To(framework.HaveJSONField("reason", gomega.BeElementOf(medReasonRequest, medReasonCancellation)))
	gomega.Expect(it).To(framework.HaveJSONField("cause", stringOrNull))
	gomega.Expect(it).To(framework.HaveJSONField("description", stringOrNull))
	gomega.Expect(it).To(framework.HaveJSONField("analysisResult", gomega.Or(gomega.BeNil(), gomega.BeElementOf(medApproved, medRejected))))
	gomega.Expect(it).To(framework.HaveJSONField("analysisDetails", stringOrNull))
	for _, p := range []string{"requestingBank.ispb", "requestingBank.name", "contestedBank.ispb", "contestedBank.name"} {
		gomega.Expect(it).To(framework.HaveJSONField(p, str))
	}
	gomega.Expect(it).To(framework.HaveJSONField("originalTransaction", gomega.Or(gomega.BeNil(), gomega.BeAssignableToTypeOf(map[string]any{}))))
	if o, _ := it["originalTransaction"].(map[string]any); o != nil {
		gomega.Expect(o).To(framework.HaveJSONNumber("amount"))
		for _, p := range []string{"type", "transactionType", "name", "document"} {
			gomega.Expect(o).To(framework.HaveJSONField(p, str), "originalTransaction.%s", p)
		}
		gomega.Expect(o).To(framework.HaveJSONField("dateTime", framework.BeISO8601()), "originalTransaction.dateTime")
	}
	gomega.Expect(it).To(framework.HaveJSONField("isReconciled", gomega.BeAssignableToTypeOf(true)))
	if it["isReconciled"] == true {
		gomega.Expect(it).To(framework.HaveJSONNumber("originalTransactionId"), "a reconciled MED names its local transaction")
	} else {
		gomega.Expect(it).To(framework.HaveJSONField("originalTransactionId", gomega.Or(gomega.BeNil(), gomega.BeAssignableToTypeOf(json.Number("")))))
	}
	if it["status"] == medReceived {
		gomega.Expect(it).To(framework.HaveJSONField("analysisResult", nil), "analysisResult is null while under analysis")
	}
	gomega.Expect(it).To(framework.HaveJSONField("createdAt", framework.BeISO8601()))
	gomega.Expect(it).To(framework.HaveJSONField("updatedAt", framework.BeISO8601()))
}

// openMED opens a MED against the spec's account through the control plane
// (req.AccountID defaults to the spec's account), failing unless it is
// created.
func openMED(ctx context.Context, f *framework.Framework, req sandbox.MEDRequest) *sandbox.MED {
	ginkgo.GinkgoHelper()
	if req.AccountID == "" {
		req.AccountID = f.Identity.ID
	}
	m, err := f.Sandbox.OpenMED(ctx, req)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "opening a MED on %s", req.EndToEndID)
	return m
}

// medStep forces a MED step through the control plane, failing unless it is
// taken.
func medStep(ctx context.Context, f *framework.Framework, id, action string, body any) *sandbox.MED {
	ginkgo.GinkgoHelper()
	m, err := f.Sandbox.MEDStep(ctx, id, action, body)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "MED %s: %s", id, action)
	return m
}

// expectMEDStepRefused checks that the control plane refuses a MED step with 409.
func expectMEDStepRefused(ctx context.Context, f *framework.Framework, id, action string, body any) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.MEDStep(ctx, id, action, body)
	gomega.Expect(sandbox.ErrorStatus(err)).To(gomega.Equal(http.StatusConflict), "MED %s: %s: %v", id, action, err)
}

// analysis is the body of POST /_sandbox/med/{id}/analyze.
func analysis(result, details string) map[string]string {
	return map[string]string{"result": result, "details": details}
}

// awaitMEDWebhook waits for a delivery to inbox with event and med.id, and
// returns the latest one (polling; the clock is not moved).
func awaitMEDWebhook(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, event, id string) framework.Delivery {
	ginkgo.GinkgoHelper()
	var got framework.Delivery
	f.Eventually(ctx, func(g gomega.Gomega) {
		var found []framework.Delivery
		for _, d := range matching(inbox, "event", event) {
			if v, ok := d.Field("med.id"); ok && fmt.Sprint(v) == id {
				found = append(found, d)
			}
		}
		g.Expect(found).NotTo(gomega.BeEmpty(), "no %s webhook for MED %s yet; the inbox holds %d deliveries", event, id, inbox.Count())
		got = found[len(found)-1]
	})
	return got
}

// medRefundID returns the id of a MED's refund from the control plane ("" when
// there is none yet).
func medRefundID(ctx context.Context, f *framework.Framework, id string) string {
	ginkgo.GinkgoHelper()
	m, err := f.Sandbox.MED(ctx, id)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "GET /_sandbox/med/%s", id)
	return m.RefundID
}

var _ = ginkgo.Describe("GET /api/med", framework.Res("med"), framework.FamilyStd, func() {
	f := framework.New("med")

	/*
		Check: med/list-shape
		Spec: "Endpoints > GET /api/med" (all parameters optional; page default 1; pageSize default 20; response 200: data (array of MED) and metadata {total, page, pageSize, totalPages}); "Resources > MED"
		Description: GET /api/med without parameters MUST answer 200 with data an array and
		metadata.total, page, pageSize and totalPages JSON numbers, page 1, pageSize 20,
		totalPages the number of pages of 20 that total fills, and data holding min(total, 20)
		MEDs, each with the fields of the MED resource (id a number; endToEnd; status OPEN,
		RECEIVED, CANCELLED or ANALYZED; reason REFUND_REQUEST or REFUND_CANCELLATION; cause,
		description and analysisDetails strings or null; analysisResult APPROVED, REJECTED or null
		(null while RECEIVED); requesting and contested banks; originalTransaction null or with a
		numeric amount; isReconciled a boolean, with a numeric originalTransactionId when true;
		createdAt and updatedAt in ISO 8601). With page=1&pageSize=100 metadata MUST read page 1
		and pageSize 100.
	*/
	framework.SpecIt("lists MEDs with data and metadata {total, page 1, pageSize 20, totalPages} by default", func(ctx ginkgo.SpecContext) {
		r := listMEDsAs(ctx, f, f.Token(ctx), "")
		for _, p := range []string{"metadata.total", "metadata.page", "metadata.pageSize", "metadata.totalPages"} {
			gomega.Expect(r).To(framework.HaveJSONNumber(p))
		}
		gomega.Expect(r).To(framework.HaveJSONField("metadata.page", 1))
		gomega.Expect(r).To(framework.HaveJSONField("metadata.pageSize", medDefaultPageSize))
		total := intField(r, "metadata.total")
		gomega.Expect(intField(r, "metadata.totalPages")).To(gomega.Equal((total+medDefaultPageSize-1)/medDefaultPageSize), "totalPages for total %d", total)
		items := dataItems(r)
		gomega.Expect(items).To(gomega.HaveLen(min(total, medDefaultPageSize)), "items on page 1")
		for _, it := range items {
			expectMEDItem(it)
		}

		r = listMEDsAs(ctx, f, f.Token(ctx), "page=1&pageSize=100")
		gomega.Expect(r).To(framework.HaveJSONField("metadata.page", 1))
		gomega.Expect(r).To(framework.HaveJSONField("metadata.pageSize", 100))
	})

	/*
		Check: med/dates-accepted
		Spec: "Endpoints > GET /api/med" (startDate and endDate ISO 8601)
		Description: GET /api/med MUST answer 200 for startDate and endDate given as ISO 8601
		calendar dates (startDate=2026-03-01&endDate=2026-03-31), as UTC date-times
		(2026-03-01T00:00:00Z to 2026-03-31T23:59:59Z) and as date-times with an offset
		(2026-03-01T00:00:00-03:00 to 2026-03-31T23:59:59-03:00).
	*/
	framework.SpecIt("accepts startDate and endDate as ISO 8601 dates and date-times", func(ctx ginkgo.SpecContext) {
		for _, q := range []string{
			"startDate=2026-03-01&endDate=2026-03-31",
			"startDate=2026-03-01T00:00:00Z&endDate=2026-03-31T23:59:59Z",
			"startDate=" + url.QueryEscape("2026-03-01T00:00:00-03:00") + "&endDate=" + url.QueryEscape("2026-03-31T23:59:59-03:00"),
		} {
			listMEDsAs(ctx, f, f.Token(ctx), q)
		}
	})

	/*
		Check: med/params-invalid
		Spec: "Endpoints > GET /api/med" (status OPEN, RECEIVED, CANCELLED, ANALYZED; isReconciled true or false; startDate and endDate ISO 8601; page starts at 1; pageSize 1 to 100; 400 for status outside enum, malformed dates, page below 1, pageSize outside 1..100); "Limits", pageSize row; "Errors > Shapes", item 3
		Description: GET /api/med with one invalid parameter (status FOO, isReconciled maybe,
		startDate not-a-date, endDate 2026-13-01, page 0, pageSize 0, pageSize 101) MUST be
		answered 400; as the control, the same query with the parameter made valid (status OPEN,
		isReconciled true, startDate 2026-03-01, endDate 2026-03-31, page 1, pageSize 1, pageSize
		100) MUST be answered 200.
	*/
	ginkgo.DescribeTable("rejects with 400 the parameter",
		func(ctx ginkgo.SpecContext, query, control string) {
			expectRefusedWithControl(ctx, f, withQuery(medPath, query), withQuery(medPath, control))
		},
		ginkgo.Entry("status=FOO", framework.Spec, "status=FOO", "status=OPEN"),
		ginkgo.Entry("isReconciled=maybe", framework.Spec, "isReconciled=maybe", "isReconciled=true"),
		ginkgo.Entry("startDate=not-a-date", framework.Spec, "startDate=not-a-date&endDate=2026-03-31", "startDate=2026-03-01&endDate=2026-03-31"),
		ginkgo.Entry("endDate=2026-13-01", framework.Spec, "startDate=2026-03-01&endDate=2026-13-01", "startDate=2026-03-01&endDate=2026-03-31"),
		ginkgo.Entry("page=0", framework.Spec, "page=0", "page=1"),
		ginkgo.Entry("pageSize=0", framework.Spec, "pageSize=0", "pageSize=1"),
		ginkgo.Entry("pageSize=101", framework.Spec, "pageSize=101", "pageSize=100"),
	)

	/*
		Check: med/rate-limit
		Spec: "Endpoints > GET /api/med" (429); "Limits", rate limit row (the threshold is stated nowhere); "Errors > Shapes", item 3
		Gap G-52: the sandbox allows medRateLimit requests per minute of simulation time per account (default 60, fixed one-minute windows), then answers 429 with Retry-After
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"medRateLimit":3}; POST /_sandbox/clock (to 10.7 s past a minute: a sub-second position, as a real clock has); POST /_sandbox/clock/advance
		Description: With medRateLimit 3 and the clock 10.7 seconds into a minute, three GET
		/api/med MUST be answered 200 and the fourth 429 with
		Retry-After a whole number of seconds from 1 to 60; once the clock has moved by Retry-After
		seconds (RFC 9110: the client may retry after that many seconds), GET /api/med MUST be
		answered 200 again.
	*/
	framework.SandboxIt("answers 429 with Retry-After above medRateLimit requests a minute", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{MEDRateLimit: 3})
		clockIntoMinute(ctx, f)
		tok := f.Token(ctx)
		for range 3 {
			listMEDsAs(ctx, f, tok, "")
		}
		r := f.Do(ctx, http.MethodGet, medPath, tok, nil, nil)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusTooManyRequests))
		wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "Retry-After %q", r.Header.Get("Retry-After"))
		gomega.Expect(wait).To(gomega.BeNumerically(">=", 1), "Retry-After")
		gomega.Expect(wait).To(gomega.BeNumerically("<=", 60), "Retry-After")
		advance(ctx, f, time.Duration(wait)*time.Second)
		gomega.Expect(f.Do(ctx, http.MethodGet, medPath, tok, nil, nil)).To(framework.HaveStatus(http.StatusOK),
			"GET /api/med %d s (Retry-After) after the 429 at 10.7 s into the minute", wait)
	})

	/*
		Check: med/filters
		Spec: "Endpoints > GET /api/med" (status, isReconciled, startDate, endDate filters; page and pageSize)
		Gap G-52: startDate and endDate filter on createdAt; results are in creation order
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/med (two on received PIX, one on an endToEndId no PIX has); POST /_sandbox/med/{id}/receive
		Description: With three MEDs A (reconciled, OPEN), B (unreconciled, OPEN) and C
		(reconciled, RECEIVED) opened in that order, GET /api/med MUST list A, B, C with total 3;
		status=RECEIVED MUST list C alone and status=OPEN A and B; isReconciled=false MUST list B
		and isReconciled=true A and C; startDate one second before the earliest createdAt with
		endDate one second after the latest MUST list all three, endDate one second before the
		earliest none, and startDate one second after the latest none; page=2&pageSize=1 MUST list
		B alone with metadata total 3, page 2, pageSize 1 and totalPages 3.
	*/
	framework.SandboxIt("filters by status, isReconciled and createdAt, and pages", func(ctx ginkgo.SpecContext) {
		a := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: receivePIX(ctx, f, refundPIXAmount).e2e})
		b := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: unknownE2E(f), Amount: medUnreconciledContestBRL,
			RequestingBank: &sandbox.MEDBank{ISPB: outsideISPB(ctx, f)}})
		c := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: receivePIX(ctx, f, refundPIXAmount).e2e})
		medStep(ctx, f, c.ID.String(), sandbox.MEDReceive, nil)
		A, B, C := a.ID.String(), b.ID.String(), c.ID.String()
		tok := f.Token(ctx)
		list := func(query string) []string {
			ginkgo.GinkgoHelper()
			return medIDs(listMEDsAs(ctx, f, tok, query))
		}

		all := listMEDsAs(ctx, f, tok, "")
		gomega.Expect(medIDs(all)).To(gomega.Equal([]string{A, B, C}), "every MED, in creation order")
		gomega.Expect(all).To(framework.HaveJSONField("metadata.total", 3))
		gomega.Expect(list("status=RECEIVED")).To(gomega.Equal([]string{C}), "status=RECEIVED")
		gomega.Expect(list("status=OPEN")).To(gomega.Equal([]string{A, B}), "status=OPEN")
		gomega.Expect(list("isReconciled=false")).To(gomega.Equal([]string{B}), "isReconciled=false")
		gomega.Expect(list("isReconciled=true")).To(gomega.Equal([]string{A, C}), "isReconciled=true")

		first, last := parseTime(a.CreatedAt), parseTime(a.CreatedAt)
		for _, m := range []*sandbox.MED{b, c} {
			t := parseTime(m.CreatedAt)
			first, last = minTime(first, t), maxTime(last, t)
		}
		q := func(k string, t time.Time) string { return k + "=" + url.QueryEscape(t.UTC().Format(time.RFC3339)) }
		gomega.Expect(list(q("startDate", first.Add(-time.Second))+"&"+q("endDate", last.Add(time.Second)))).To(gomega.Equal([]string{A, B, C}), "around every createdAt")
		gomega.Expect(list(q("endDate", first.Add(-time.Second)))).To(gomega.BeEmpty(), "endDate before every createdAt")
		gomega.Expect(list(q("startDate", last.Add(time.Second)))).To(gomega.BeEmpty(), "startDate after every createdAt")

		page := listMEDsAs(ctx, f, tok, "page=2&pageSize=1")
		gomega.Expect(medIDs(page)).To(gomega.Equal([]string{B}), "page 2 of size 1")
		gomega.Expect(page).To(framework.HaveJSONField("metadata.total", 3))
		gomega.Expect(page).To(framework.HaveJSONField("metadata.page", 2))
		gomega.Expect(page).To(framework.HaveJSONField("metadata.pageSize", 1))
		gomega.Expect(page).To(framework.HaveJSONField("metadata.totalPages", 3))
	})
})

var _ = ginkgo.Describe("MED lifecycle", framework.Res("med"), framework.FamilyStd, framework.Sandbox, func() {
	f := framework.New("med-lifecycle")

	/*
		Check: med/timeline
		Spec: "Resources > MED" (status OPEN, RECEIVED (under analysis), ANALYZED; analysisResult null while under analysis; isReconciled; originalTransactionId; originalTransaction.document masked); "Resources > Refund (devolucao)" (natureza MED_FRAUDE is returned only); "Events > Registration event types" (med_created, med_accepted)
		Gap G-46 (OPEN → RECEIVED → ANALYZED); G-48 (acknowledged and blocked 1 hour after opening, analysed APPROVED 7 days after opening, refunded 24 hours after the analysis); G-50 (the block); G-47 (UNAUTHORIZED_TRANSACTION refunds as MED_FRAUDE)
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/med; GET /_sandbox/med/{id}; POST /_sandbox/webhook-targets (med_created, med_accepted); POST /_sandbox/clock/advance
		Description: A MED opened on a PIX of 100.00 from a payer outside the sandbox MUST send a
		med_created webhook at once and be OPEN, nothing blocked, 1 second before 1 hour; at 1 hour
		GET /api/med MUST list it RECEIVED, isReconciled true, originalTransactionId the PIX's
		number, originalTransaction with amount 100.00, the payer's name and a masked document,
		requestingBank the payer's ISPB, cause UNAUTHORIZED_TRANSACTION, reason REFUND_REQUEST and
		analysisResult null, with 100.00 moved from available to blocked; it MUST still be RECEIVED
		1 second before 7 days and be ANALYZED APPROVED at 7 days, with a med_accepted webhook; 1
		second before 24 hours later it MUST have no refund, at 24 hours a refund readable with
		GET /pix/{e2eid}/devolucao/{refundId}, natureza MED_FRAUDE, valor "100.00",
		EM_PROCESSAMENTO, which 2 seconds later MUST be DEVOLVIDO with blocked back to its value
		and available lower by 100.00 than before the MED.
	*/
	framework.SandboxIt("takes a MED from OPEN to a returned MED_FRAUDE refund by the clock alone", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventMedCreated, f.Webhooks, "")
		registerTarget(ctx, f, f.Identity.ID, eventMedAccepted, f.Webhooks, "")
		payer := externalPayer(ctx, f)
		p := receivePIXAs(ctx, f, f.Account, "100.00", payer)
		before := f.Balance(ctx)

		m := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: p.e2e})
		id := m.ID.String()
		gomega.Expect(m.Status).To(gomega.Equal(medOpen))
		gomega.Expect(m.IsReconciled).To(gomega.BeTrue(), "isReconciled of a MED on a received PIX")
		gomega.Expect(awaitMEDWebhook(ctx, f, f.Webhooks, eventMedCreated, id)).To(framework.HaveJSONField("med.status", medOpen))

		advance(ctx, f, time.Hour-time.Second)
		tok := freshToken(ctx, f)
		gomega.Expect(medItem(ctx, f, tok, id)).To(framework.HaveJSONField("status", medOpen), "1 s before 1 h")
		expectBalance(f.BalanceOf(ctx, tok), before, "before the MED is received")

		advance(ctx, f, time.Second)
		it := medItem(ctx, f, tok, id)
		gomega.Expect(it).To(framework.HaveJSONField("status", medReceived), "at 1 h")
		gomega.Expect(it).To(framework.HaveJSONField("endToEnd", p.e2e))
		gomega.Expect(it).To(framework.HaveJSONField("isReconciled", true))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransactionId", json.Number(p.txID)))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransaction.amount", json.Number("100.00")))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransaction.name", payer.Name))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransaction.document", gomega.And(
			gomega.Not(gomega.BeEmpty()), gomega.Not(gomega.Equal(payer.Document)))), "the document is masked")
		gomega.Expect(it).To(framework.HaveJSONField("requestingBank.ispb", payer.ISPB))
		gomega.Expect(it).To(framework.HaveJSONField("cause", medCauseUnauthorized))
		gomega.Expect(it).To(framework.HaveJSONField("reason", medReasonRequest))
		gomega.Expect(it).To(framework.HaveJSONField("analysisResult", nil))
		gomega.Expect(medIDs(listMEDsAs(ctx, f, tok, "status=RECEIVED"))).To(gomega.ContainElement(id), "status=RECEIVED")
		expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: before.Available - 10000, Blocked: before.Blocked + 10000}, "once the MED is received")

		advance(ctx, f, 7*24*time.Hour-time.Hour-time.Second)
		tok = freshToken(ctx, f)
		gomega.Expect(medItem(ctx, f, tok, id)).To(framework.HaveJSONField("status", medReceived), "1 s before 7 days")
		advance(ctx, f, time.Second)
		it = medItem(ctx, f, tok, id)
		gomega.Expect(it).To(framework.HaveJSONField("status", medAnalyzed), "at 7 days")
		gomega.Expect(it).To(framework.HaveJSONField("analysisResult", medApproved))
		accepted := awaitMEDWebhook(ctx, f, f.Webhooks, eventMedAccepted, id)
		gomega.Expect(accepted).To(framework.HaveJSONField("med.status", medAnalyzed))
		gomega.Expect(accepted).To(framework.HaveJSONField("med.analysisResult", medApproved))

		advance(ctx, f, 24*time.Hour-time.Second)
		gomega.Expect(medRefundID(ctx, f, id)).To(gomega.BeEmpty(), "the MED's refund 1 s before 24 h after the analysis")
		advance(ctx, f, time.Second)
		refundID := medRefundID(ctx, f, id)
		gomega.Expect(refundID).NotTo(gomega.BeEmpty(), "the MED's refund 24 h after the analysis")
		tok = freshToken(ctx, f)
		g := getRefundAs(ctx, f, tok, p.e2e, refundID)
		gomega.Expect(g).To(framework.HaveJSONField("natureza", natureMedFraude))
		gomega.Expect(g).To(framework.HaveJSONField("valor", "100.00"))
		gomega.Expect(g).To(framework.HaveJSONField("status", refundEmProcessamento))
		awaitRefundStatus(ctx, f, tok, p.e2e, refundID, refundDevolvido, true)
		expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: before.Available - 10000, Blocked: before.Blocked}, "after the MED refund")
	})

	/*
		Check: med/webhook-payloads
		Gap G-51: the med_created, med_accepted and med_rejected payloads are "not shown"; the sandbox sends {"event": <type>, "med": <the MED resource exactly as GET /api/med lists it>}
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/med; POST /_sandbox/med/{id}/analyze; POST /_sandbox/webhook-targets (med_created, med_accepted, med_rejected)
		Description: Opening a MED MUST send a med_created webhook whose med equals the MED as GET
		/api/med then lists it, field for field; approving it with /analyze MUST send a
		med_accepted webhook, and rejecting another MED a med_rejected webhook, each with med equal
		to the listed MED after the step.
	*/
	framework.SandboxIt("sends med_created, med_accepted and med_rejected with the MED as GET /api/med lists it", framework.SandboxChoice, framework.Webhook, func(ctx ginkgo.SpecContext) {
		for _, ev := range []string{eventMedCreated, eventMedAccepted, eventMedRejected} {
			registerTarget(ctx, f, f.Identity.ID, ev, f.Webhooks, "")
		}
		expectPayload := func(event, id string) {
			ginkgo.GinkgoHelper()
			d := awaitMEDWebhook(ctx, f, f.Webhooks, event, id)
			gomega.Expect(d).To(framework.HaveJSONField("event", event))
			med, _ := d.Field("med")
			gomega.Expect(med).To(gomega.Equal(medItem(ctx, f, f.Token(ctx), id)), "the %s webhook's med against GET /api/med", event)
		}

		approved := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: receivePIX(ctx, f, refundPIXAmount).e2e, Description: "conformance MED"})
		expectPayload(eventMedCreated, approved.ID.String())
		medStep(ctx, f, approved.ID.String(), sandbox.MEDAnalyze, analysis(medApproved, medApprovalDetails))
		expectPayload(eventMedAccepted, approved.ID.String())

		rejected := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: receivePIX(ctx, f, refundPIXAmount).e2e})
		medStep(ctx, f, rejected.ID.String(), sandbox.MEDAnalyze, analysis(medRejected, medRejectionDetails))
		expectPayload(eventMedRejected, rejected.ID.String())
	})

	/*
		Check: med/rejected
		Spec: "Resources > MED" (ANALYZED with analysisResult REJECTED and analysisDetails); "Events > Registration event types" (med_rejected: MED refund request rejected)
		Gap G-46 (RECEIVED → ANALYZED REJECTED); G-50 (the block taken at RECEIVED is released)
		Sandbox: POST /_sandbox/med; POST /_sandbox/med/{id}/receive; POST /_sandbox/med/{id}/analyze {"result":"REJECTED"}; POST /_sandbox/med/{id}/refund; POST /_sandbox/webhook-targets (med_rejected)
		Description: Receiving a MED on a PIX of 80.00 MUST move 80.00 from available to blocked
		(blockedAmount 80.00); rejecting it MUST leave it ANALYZED, REJECTED with the details given,
		available and blocked back to their values before the MED, a med_rejected webhook sent with
		med.analysisResult REJECTED, GET /api/med listing it so, and a forced refund refused with 409.
	*/
	framework.SandboxIt("releases the block of a rejected MED and sends med_rejected", framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventMedRejected, f.Webhooks, "")
		p := receivePIX(ctx, f, "80.00")
		before := f.Balance(ctx)
		id := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: p.e2e}).ID.String()

		m := medStep(ctx, f, id, sandbox.MEDReceive, nil)
		gomega.Expect(m.Status).To(gomega.Equal(medReceived))
		gomega.Expect(m.BlockedAmount).To(gomega.Equal(json.Number("80.00")), "blockedAmount")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 8000, Blocked: before.Blocked + 8000}, "once the MED is received")

		m = medStep(ctx, f, id, sandbox.MEDAnalyze, analysis(medRejected, medRejectionDetails))
		gomega.Expect(m.Status).To(gomega.Equal(medAnalyzed))
		gomega.Expect(m.AnalysisResult).To(gomega.Equal(medRejected))
		gomega.Expect(m.AnalysisDetails).To(gomega.Equal(medRejectionDetails))
		expectBalance(f.Balance(ctx), before, "after the rejection")

		d := awaitMEDWebhook(ctx, f, f.Webhooks, eventMedRejected, id)
		gomega.Expect(d).To(framework.HaveJSONField("med.analysisResult", medRejected))
		it := medItem(ctx, f, f.Token(ctx), id)
		gomega.Expect(it).To(framework.HaveJSONField("status", medAnalyzed))
		gomega.Expect(it).To(framework.HaveJSONField("analysisResult", medRejected))
		gomega.Expect(it).To(framework.HaveJSONField("analysisDetails", medRejectionDetails))
		expectMEDStepRefused(ctx, f, id, sandbox.MEDRefund, nil)
	})

	/*
		Check: med/cancelled
		Spec: "Resources > MED" (status CANCELLED; reason REFUND_CANCELLATION)
		Gap G-46: OPEN or RECEIVED → CANCELLED (reason REFUND_CANCELLATION, the block released); terminal states never change
		Sandbox: POST /_sandbox/med; POST /_sandbox/med/{id}/receive; POST /_sandbox/med/{id}/cancel; POST /_sandbox/med/{id}/analyze
		Description: Cancelling a received MED on a PIX of 30.00 MUST leave it CANCELLED with reason
		REFUND_CANCELLATION, available and blocked back to their values before the MED, GET
		/api/med listing it so; cancelling it again or analysing it MUST be refused with 409.
	*/
	framework.SandboxIt("cancels a MED with reason REFUND_CANCELLATION and releases the block", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "30.00")
		before := f.Balance(ctx)
		id := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: p.e2e}).ID.String()
		medStep(ctx, f, id, sandbox.MEDReceive, nil)
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 3000, Blocked: before.Blocked + 3000}, "once the MED is received")

		m := medStep(ctx, f, id, sandbox.MEDCancel, nil)
		gomega.Expect(m.Status).To(gomega.Equal(medCancelled))
		gomega.Expect(m.Reason).To(gomega.Equal(medReasonCancellation))
		expectBalance(f.Balance(ctx), before, "after the cancellation")
		it := medItem(ctx, f, f.Token(ctx), id)
		gomega.Expect(it).To(framework.HaveJSONField("status", medCancelled))
		gomega.Expect(it).To(framework.HaveJSONField("reason", medReasonCancellation))
		expectMEDStepRefused(ctx, f, id, sandbox.MEDCancel, nil)
		expectMEDStepRefused(ctx, f, id, sandbox.MEDAnalyze, analysis(medApproved, medApprovalDetails))
	})

	/*
		Check: med/operational-flaw
		Spec: "Resources > Refund (devolucao)" (natureza MED_OPERACIONAL is returned only)
		Gap G-47: cause OPERATIONAL_FLAW is refunded as MED_OPERACIONAL (the other causes as MED_FRAUDE)
		Sandbox: POST /_sandbox/med {"cause":"OPERATIONAL_FLAW"}; POST /_sandbox/med/{id}/analyze; POST /_sandbox/med/{id}/refund
		Description: A MED with cause OPERATIONAL_FLAW on a PIX of 15.00, approved and refunded
		through the control plane, MUST have a refund readable with
		GET /pix/{e2eid}/devolucao/{refundId} with natureza MED_OPERACIONAL, valor "15.00" and status
		EM_PROCESSAMENTO; a second forced refund MUST be refused with 409.
	*/
	framework.SandboxIt("refunds a MED of cause OPERATIONAL_FLAW as MED_OPERACIONAL", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "15.00")
		m := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: p.e2e, Cause: medCauseOperationalFlaw})
		gomega.Expect(m.Cause).To(gomega.Equal(medCauseOperationalFlaw))
		id := m.ID.String()
		medStep(ctx, f, id, sandbox.MEDAnalyze, analysis(medApproved, medApprovalDetails))
		m = medStep(ctx, f, id, sandbox.MEDRefund, nil)
		gomega.Expect(m.RefundID).NotTo(gomega.BeEmpty(), "refundId of the refunded MED")
		g := getRefundAs(ctx, f, f.Token(ctx), p.e2e, m.RefundID)
		gomega.Expect(g).To(framework.HaveJSONField("natureza", natureMedOperacional))
		gomega.Expect(g).To(framework.HaveJSONField("valor", "15.00"))
		gomega.Expect(g).To(framework.HaveJSONField("status", refundEmProcessamento))
		expectMEDStepRefused(ctx, f, id, sandbox.MEDRefund, nil)
	})

	/*
		Check: med/partial-block
		Gap G-50: the block is bounded by what is available when the MED is received; the refund is the contested amount, at most what can be recovered (the block plus what is available by then)
		Sandbox: a second account from POST /_sandbox/accounts (balance 0.00) receiving 100.00 by POST /_sandbox/pix-in and sending 70.00 by POST /api/pix/cash-out; POST /_sandbox/med; POST /_sandbox/med/{id}/receive, /analyze, /refund
		Description: An account that received 100.00 and holds less after sending 70.00 MUST, when
		a MED on the whole PIX is received, block exactly what it has available (blockedAmount that
		amount, available 0.00); once approved and refunded, the MED's refund MUST be of that
		amount (valor, natureza MED_FRAUDE), not of the 100.00 contested.
	*/
	framework.SandboxIt("blocks and refunds only what is available when the money was spent", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		acct, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "0.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tok := f.TokenFor(ctx, framework.IdentityOf(acct))
		p := receivePIXAs(ctx, f, acct, "100.00", nil)
		out := f.Do(ctx, http.MethodPost, cashOutPath, tok, encodeJSON(cashOutRequest(f, "70.00")), nil)
		gomega.Expect(out).To(framework.HaveStatus(http.StatusCreated))
		left := f.BalanceOf(ctx, tok)
		gomega.Expect(left.Available).To(gomega.BeNumerically(">", 0), "available after the cash-out")
		gomega.Expect(left.Available).To(gomega.BeNumerically("<", 10000), "available after the cash-out")

		id := openMED(ctx, f, sandbox.MEDRequest{AccountID: acct.ID.String(), EndToEndID: p.e2e}).ID.String()
		m := medStep(ctx, f, id, sandbox.MEDReceive, nil)
		gomega.Expect(brl(cents(m.BlockedAmount))).To(gomega.Equal(brl(left.Available)), "blockedAmount: what was available")
		expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: 0, Blocked: left.Blocked + left.Available}, "once the MED is received")

		medStep(ctx, f, id, sandbox.MEDAnalyze, analysis(medApproved, medApprovalDetails))
		m = medStep(ctx, f, id, sandbox.MEDRefund, nil)
		gomega.Expect(m.RefundID).NotTo(gomega.BeEmpty(), "refundId of the refunded MED")
		g := getRefundAs(ctx, f, tok, p.e2e, m.RefundID)
		gomega.Expect(g).To(framework.HaveJSONField("valor", brl(left.Available)))
		gomega.Expect(g).To(framework.HaveJSONField("natureza", natureMedFraude))
	})

	/*
		Check: med/unreconciled
		Spec: "Resources > MED" (isReconciled: linked to a local transaction; originalTransactionId null unless reconciled; originalTransaction object or null)
		Gap G-50: a MED whose end-to-end id matches no received PIX of the account is recorded with isReconciled false and moves no money
		Sandbox: POST /_sandbox/med (an endToEndId no PIX has, with requestingBank and amount); POST /_sandbox/med/{id}/receive
		Description: A MED on an endToEndId no PIX of the account has MUST be created with
		isReconciled false, no originalTransactionId and no originalTransaction; once received,
		available and blocked MUST be unchanged, and GET /api/med MUST list it RECEIVED with
		isReconciled false, originalTransactionId null and originalTransaction null.
	*/
	framework.SandboxIt("records a MED that matches no received PIX as unreconciled and blocks nothing", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		before := f.Balance(ctx)
		m := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: unknownE2E(f), Amount: medUnreconciledContestBRL,
			RequestingBank: &sandbox.MEDBank{ISPB: outsideISPB(ctx, f)}})
		gomega.Expect(m.IsReconciled).To(gomega.BeFalse(), "isReconciled")
		gomega.Expect(m.OriginalTransactionID.String()).To(gomega.BeEmpty(), "originalTransactionId")
		gomega.Expect(m.OriginalTransaction).To(gomega.BeNil(), "originalTransaction")
		id := m.ID.String()
		medStep(ctx, f, id, sandbox.MEDReceive, nil)
		expectBalance(f.Balance(ctx), before, "once the unreconciled MED is received")
		it := medItem(ctx, f, f.Token(ctx), id)
		gomega.Expect(it).To(framework.HaveJSONField("status", medReceived))
		gomega.Expect(it).To(framework.HaveJSONField("isReconciled", false))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransactionId", nil))
		gomega.Expect(it).To(framework.HaveJSONField("originalTransaction", nil))
	})

	/*
		Check: med/scenarios
		Spec: "Resources > MED" (status ANALYZED or CANCELLED; analysisResult APPROVED or REJECTED; reason REFUND_CANCELLATION); "Resources > Refund (devolucao)" (natureza MED_FRAUDE)
		Gap G-48: scenarios MED_APPROVED, MED_REJECTED and MED_CANCELLED open a MED 1 hour after the charge is paid and decide it 24 hours after opening; an approved MED refunds 24 hours after the analysis
		Sandbox: X-Sandbox-Scenario on POST /api/pix/cash-in; POST /_sandbox/payments; POST /_sandbox/clock/advance; GET /_sandbox/med/{id}
		Description: A cash-in charge of 100.00 carrying the scenario, once paid, MUST have a MED
		OPEN on the payment's endToEndId 1 hour later; 50 hours later the MED MUST be ANALYZED
		APPROVED with a DEVOLVIDO refund of natureza MED_FRAUDE and valor "100.00" and available
		lower by 100.00 than after the payment (MED_APPROVED), ANALYZED REJECTED (MED_REJECTED) or
		CANCELLED with reason REFUND_CANCELLATION (MED_CANCELLED) with available and blocked as
		they were after the payment.
	*/
	ginkgo.DescribeTable("brings the MED of a paid cash-in charge to its end state by the clock alone",
		func(ctx ginkgo.SpecContext, scenario, status string, result any, reason string) {
			c := acceptCashIn(ctx, f, cashInRequest(f, "100.00"), scenario)
			res := pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})
			afterPay := f.Balance(ctx)

			advance(ctx, f, time.Hour)
			tok := freshToken(ctx, f)
			items := dataItems(listMEDsAs(ctx, f, tok, ""))
			gomega.Expect(items).To(gomega.HaveLen(1), "MEDs 1 h after the payment")
			gomega.Expect(items[0]).To(framework.HaveJSONField("endToEnd", res.EndToEndID))
			gomega.Expect(items[0]).To(framework.HaveJSONField("status", medOpen))
			id := fmt.Sprint(items[0]["id"])

			advance(ctx, f, 50*time.Hour)
			tok = freshToken(ctx, f)
			it := medItem(ctx, f, tok, id)
			gomega.Expect(it).To(framework.HaveJSONField("status", status))
			gomega.Expect(it).To(framework.HaveJSONField("analysisResult", result))
			gomega.Expect(it).To(framework.HaveJSONField("reason", reason))
			if result == medApproved {
				refundID := medRefundID(ctx, f, id)
				gomega.Expect(refundID).NotTo(gomega.BeEmpty(), "refundId of the approved MED")
				g := getRefundAs(ctx, f, tok, res.EndToEndID, refundID)
				gomega.Expect(g).To(framework.HaveJSONField("status", refundDevolvido))
				gomega.Expect(g).To(framework.HaveJSONField("natureza", natureMedFraude))
				gomega.Expect(g).To(framework.HaveJSONField("valor", "100.00"))
				expectBalance(f.BalanceOf(ctx, tok), framework.Balance{Available: afterPay.Available - 10000, Blocked: afterPay.Blocked}, "after the MED refund")
				return
			}
			gomega.Expect(medRefundID(ctx, f, id)).To(gomega.BeEmpty(), "refundId of a MED not approved")
			expectBalance(f.BalanceOf(ctx, tok), afterPay, "after the MED ended")
		},
		ginkgo.Serial,
		ginkgo.Entry("MED_APPROVED: ANALYZED APPROVED and refunded", framework.Sandbox, "MED_APPROVED", medAnalyzed, medApproved, medReasonRequest),
		ginkgo.Entry("MED_REJECTED: ANALYZED REJECTED", framework.Sandbox, "MED_REJECTED", medAnalyzed, medRejected, medReasonRequest),
		ginkgo.Entry("MED_CANCELLED: CANCELLED", framework.Sandbox, "MED_CANCELLED", medCancelled, nil, medReasonCancellation),
	)
})

// intField returns the whole number at path of r's JSON body, failing the
// spec when it is absent or not a JSON integer.
func intField(r *apiclient.Response, path string) int {
	ginkgo.GinkgoHelper()
	v, ok := r.Field(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s is absent in %s", path, r)
	n, isNum := v.(json.Number)
	gomega.Expect(isNum).To(gomega.BeTrue(), "%s is not a JSON number in %s", path, r)
	i, err := strconv.Atoi(string(n))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s in %s", path, r)
	return i
}

// parseTime parses an ISO 8601 timestamp, failing the spec when it is not one.
func parseTime(s string) time.Time {
	ginkgo.GinkgoHelper()
	t, err := apiclient.ParseISO8601(s)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return t
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
