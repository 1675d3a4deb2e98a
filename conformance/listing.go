package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// transactionsPath is the account's transaction listing.
const transactionsPath = "/api/transactions"

// keyListingPrefix starts the listing of one PIX key; the key follows as one
// path segment.
const keyListingPrefix = "/api/pix/transactions/pix-key/"

// Bounds of the listings ("Endpoints > GET /api/transactions" and
// "GET /api/pix/transactions/pix-key/{pixKey}"; "Limits").
const (
	listingDefaultSize = 20
	accountMaxSize     = 100
	keyMaxSize         = 1000
	keyMaxResults      = 1000
)

// Display labels of "Resources > Transaction listing item" and the display
// mapping of "Endpoints > GET /api/transactions".
const (
	labelPendente   = "Pendente"
	labelConfirmado = "Confirmado"
	labelError      = "Error"
	labelPixIn      = "Pix in"
	labelPixOut     = "Pix out"
	labelRefundIn   = "Refund in"
	labelRefundOut  = "Refund out"
)

// movementOf is the display mapping's movementType of each operationType.
var movementOf = map[string]string{
	labelPixIn:     "CREDIT",
	labelPixOut:    "DEBIT",
	labelRefundIn:  "DEBIT",
	labelRefundOut: "CREDIT",
}

// Masked documents as the sandbox writes them (Gap G-53).
const (
	maskedCPFPattern  = `^\*\*\*\.\d{3}\.\d{3}-\*\*$`
	maskedCNPJPattern = `^\*\*\.\d{3}\.\d{3}/\d{4}-\*\*$`
)

// samplePhoneDigits is a PHONE key as a cash-out's details.key writes it
// (area code and number, without +55); samplePhoneKey is the same key in the
// DICT form the key listing takes.
const (
	samplePhoneDigits = "11987654321"
	samplePhoneKey    = "+55" + samplePhoneDigits
)

// keyListingPath returns the key listing route for a key already written as a
// path segment (raw, or percent-encoded as the check wants).
func keyListingPath(segment string) string { return keyListingPrefix + segment }

// withQuery appends query (without "?", may be empty) to path.
func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// listingRoute is the route of the contract a listing path belongs to, as
// its route probe names it (conformance/routes.go).
func listingRoute(path string) string {
	switch {
	case strings.HasPrefix(path, medPath):
		return "GET /api/med"
	case strings.HasPrefix(path, "/api/pix/transactions/pix-key/"):
		return "GET /api/pix/transactions/pix-key/{pixKey}"
	default:
		return "GET /api/transactions"
	}
}

// listAs reads a listing (a path with its query) with token, requiring 200.
func listAs(ctx context.Context, f *framework.Framework, token, path string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	f.Needs(ctx, listingRoute(path))
	r := f.Do(ctx, http.MethodGet, path, token, nil, nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	return r
}

// dataItems returns the data[] items of a listing response (the transaction
// listings and GET /api/med).
func dataItems(r *apiclient.Response) []map[string]any {
	ginkgo.GinkgoHelper()
	v, ok := r.Field("data")
	gomega.Expect(ok).To(gomega.BeTrue(), "data is absent in %s", r)
	arr, ok := v.([]any)
	gomega.Expect(ok).To(gomega.BeTrue(), "data is not an array in %s", r)
	out := make([]map[string]any, 0, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		gomega.Expect(ok).To(gomega.BeTrue(), "data[%d] is not an object in %s", i, r)
		out = append(out, m)
	}
	return out
}

// itemIDs returns the transactionId of each item, in order, as text.
func itemIDs(items []map[string]any) []string {
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, fmt.Sprint(it["transactionId"]))
	}
	return ids
}

// listedIDs reads a listing with token and returns the transactionIds of its
// items, checking that metadata.total counts exactly those items (the sandbox
// checks read fresh accounts whose whole history fits one page).
func listedIDs(ctx context.Context, f *framework.Framework, token, path string) []string {
	ginkgo.GinkgoHelper()
	r := listAs(ctx, f, token, path)
	items := dataItems(r)
	gomega.Expect(intField(r, "metadata.total")).To(gomega.Equal(len(items)), "metadata.total of %s", r)
	return itemIDs(items)
}

// itemCents returns an item's money field in centavos.
func itemCents(it map[string]any, field string) int64 {
	ginkgo.GinkgoHelper()
	c, err := apiclient.Cents(it[field])
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of item %v", field, it["transactionId"])
	return c
}

// expectListingEnvelope checks the list envelope of a listing page: data an
// array; metadata page and size as asked, total and totalPages JSON numbers
// with totalPages the pages of size that total fills; hasNext exactly when
// page < totalPages, hasPrevious exactly when page > 1; and as many items as
// the page holds. It returns metadata.total.
func expectListingEnvelope(r *apiclient.Response, page, size int) int {
	ginkgo.GinkgoHelper()
	for _, p := range []string{"metadata.page", "metadata.size", "metadata.total", "metadata.totalPages"} {
		gomega.Expect(r).To(framework.HaveJSONNumber(p))
	}
	for _, p := range []string{"metadata.hasNext", "metadata.hasPrevious"} {
		gomega.Expect(r).To(framework.HaveJSONField(p, gomega.BeAssignableToTypeOf(true)))
	}
	gomega.Expect(r).To(framework.HaveJSONField("metadata.page", page))
	gomega.Expect(r).To(framework.HaveJSONField("metadata.size", size))
	total, pages := intField(r, "metadata.total"), intField(r, "metadata.totalPages")
	gomega.Expect(total).To(gomega.BeNumerically(">=", 0), "metadata.total")
	gomega.Expect(pages).To(gomega.Equal((total+size-1)/size), "metadata.totalPages for total %d and size %d", total, size)
	gomega.Expect(r).To(framework.HaveJSONField("metadata.hasNext", page < pages), "hasNext is page < totalPages")
	gomega.Expect(r).To(framework.HaveJSONField("metadata.hasPrevious", page > 1), "hasPrevious is page > 1")
	gomega.Expect(dataItems(r)).To(gomega.HaveLen(min(size, max(0, total-(page-1)*size))),
		"items on page %d of size %d with total %d", page, size, total)
	return total
}

// expectListingItem checks one item against "Resources > Transaction listing
// item" and the display mapping: transactionId a non-empty string; externalId
// and endToEndId strings; status Pendente, Confirmado or Error; operationType
// Pix in, Pix out, Refund in or Refund out with its movementType; the three
// amounts JSON numbers of at most 2 decimals; createdAt and processedAt ISO
// 8601 strings (the resource table types both so, Pendente items included);
// counterpart.name a string,
// counterpart.document a string that does not carry a whole CPF or CNPJ (fewer
// than 11 digits); counterpart.bank with its five string fields.
func expectListingItem(it map[string]any) {
	ginkgo.GinkgoHelper()
	str := gomega.BeAssignableToTypeOf("")
	id := fmt.Sprint(it["transactionId"])
	gomega.Expect(it).To(framework.HaveJSONField("transactionId", gomega.And(str, gomega.Not(gomega.BeEmpty()))))
	gomega.Expect(it).To(framework.HaveJSONField("externalId", str), "item %s", id)
	gomega.Expect(it).To(framework.HaveJSONField("status", gomega.BeElementOf(labelPendente, labelConfirmado, labelError)), "item %s", id)
	gomega.Expect(it).To(framework.HaveJSONField("operationType", gomega.BeElementOf(labelPixIn, labelPixOut, labelRefundIn, labelRefundOut)), "item %s", id)
	op, _ := it["operationType"].(string)
	gomega.Expect(it).To(framework.HaveJSONField("movementType", movementOf[op]), "movementType of %s item %s", op, id)
	for _, p := range []string{"originalAmount", "feeAmount", "finalAmount"} {
		gomega.Expect(it).To(framework.HaveJSONField(p, framework.BeDecimal2Number()), "item %s", id)
	}
	gomega.Expect(it).To(framework.HaveJSONField("endToEndId", str), "item %s", id)
	gomega.Expect(it).To(framework.HaveJSONField("createdAt", framework.BeISO8601()), "item %s", id)
	gomega.Expect(it).To(framework.HaveJSONField("processedAt", framework.BeISO8601()), "processedAt of %s item %s", it["status"], id)
	gomega.Expect(it).To(framework.HaveJSONField("counterpart.name", str), "item %s", id)
	gomega.Expect(it).To(framework.HaveJSONField("counterpart.document", str), "item %s", id)
	doc, _ := apiclient.Lookup(it, "counterpart.document")
	s, _ := doc.(string)
	digits := strings.Count(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0'
		}
		return -1
	}, s), "0")
	gomega.Expect(digits).To(gomega.BeNumerically("<", 11), "counterpart.document %q of item %s is not masked", s, id)
	for _, p := range []string{"bankISPB", "bankName", "bankCode", "accountBranch", "accountNumber"} {
		gomega.Expect(it).To(framework.HaveJSONField("counterpart.bank."+p, str), "item %s", id)
	}
}

// expectSandboxItem checks an item as the sandbox fills it (Gap G-53), beyond
// expectListingItem: transactionId the transaction's number, finalAmount
// amount + fee for a debit and amount − fee for a credit, and the counterpart
// document empty or masked as ***.456.789-** or **.345.678/9012-**.
func expectSandboxItem(it map[string]any) {
	ginkgo.GinkgoHelper()
	expectListingItem(it)
	id := fmt.Sprint(it["transactionId"])
	gomega.Expect(id).To(gomega.MatchRegexp(`^[0-9]+$`), "transactionId is the transaction's number")
	orig, fee, final := itemCents(it, "originalAmount"), itemCents(it, "feeAmount"), itemCents(it, "finalAmount")
	if it["movementType"] == "DEBIT" {
		gomega.Expect(brl(final)).To(gomega.Equal(brl(orig+fee)), "finalAmount = originalAmount + feeAmount of debit item %s", id)
	} else {
		gomega.Expect(brl(final)).To(gomega.Equal(brl(orig-fee)), "finalAmount = originalAmount − feeAmount of credit item %s", id)
	}
	gomega.Expect(it).To(framework.HaveJSONField("counterpart.document",
		gomega.Or(gomega.BeEmpty(), gomega.MatchRegexp(maskedCPFPattern), gomega.MatchRegexp(maskedCNPJPattern))), "item %s", id)
}

// listedItem is an item a sandbox check expects in a listing: found by field
// = value, with its labels and originalAmount (decimal text).
type listedItem struct {
	what, field, value string
	op, status, amount string
}

// expectListed finds the one item of items whose field is want.value and
// checks its operationType, movementType, status and originalAmount.
func expectListed(items []map[string]any, want listedItem) map[string]any {
	ginkgo.GinkgoHelper()
	var found []map[string]any
	for _, it := range items {
		if fmt.Sprint(it[want.field]) == want.value {
			found = append(found, it)
		}
	}
	gomega.Expect(found).To(gomega.HaveLen(1), "items of %s (%s %s) among %v", want.what, want.field, want.value, itemIDs(items))
	it := found[0]
	gomega.Expect(it).To(framework.HaveJSONField("operationType", want.op), want.what)
	gomega.Expect(it).To(framework.HaveJSONField("movementType", movementOf[want.op]), want.what)
	gomega.Expect(it).To(framework.HaveJSONField("status", want.status), want.what)
	gomega.Expect(brl(itemCents(it, "originalAmount"))).To(gomega.Equal(want.amount), "originalAmount of %s", want.what)
	expectSandboxItem(it)
	return it
}

// seedHistory gives the spec's account, on a target with a control plane, a
// PIX received (Confirmado) and a cash-out still pending (Pendente), so that
// the checks of the item shape have items to read. Elsewhere it does nothing.
func seedHistory(ctx context.Context, f *framework.Framework) {
	ginkgo.GinkgoHelper()
	if !f.ControlPlane {
		return
	}
	receivePIX(ctx, f, "10.00")
	acceptCashOut(ctx, f, cashOutRequest(f, "1.00"), "")
}

// cashOutToKey returns a cash-out body of value to key of keyType.
func cashOutToKey(f *framework.Framework, value, keyType, key string) map[string]any {
	return cashOutRequest(f, value, func(_, d map[string]any) { d["keyType"], d["key"] = keyType, key })
}

// expectListingRejected checks a listing request refused with 400.
func expectListingRejected(ctx context.Context, f *framework.Framework, path string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	r := f.Do(ctx, http.MethodGet, path, f.Token(ctx), nil, nil)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusBadRequest))
	return r
}

// keyWindowStart and keyWindowEnd are exactly 31 days apart: the longest
// interval the key listing accepts.
const (
	keyWindowStart = "2026-02-01T00:00:00Z"
	keyWindowEnd   = "2026-03-04T00:00:00Z"
)

// expectRefusedWithControl checks a refusal and its control: GET refused
// MUST be answered 400, and GET control, the same request without the fault,
// 200; when the control is not, the check ends as control refused.
func expectRefusedWithControl(ctx context.Context, f *framework.Framework, refused, control string) {
	ginkgo.GinkgoHelper()
	expectListingRejected(ctx, f, refused)
	ginkgo.By("the control: GET " + control + " is accepted")
	framework.Control("the same request without the fault", nil, f.Do(ctx, http.MethodGet, control, f.Token(ctx), nil, nil), http.StatusOK)
}

// day renders t's UTC calendar date, an ISO 8601 date.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

var _ = ginkgo.Describe("GET /api/transactions", framework.Res("transactions"), framework.FamilyStd, func() {
	f := framework.New("transactions")

	/*
		Check: transactions/list-shape
		Spec: "Endpoints > GET /api/transactions" (all parameters optional; page default 1; size default 20; response 200: list envelope); "Resources > Transaction listing item" (the fields, their types, the display labels, counterpart.document masked; list envelope data and metadata {page, size, total, totalPages (numbers), hasNext, hasPrevious (booleans)}); display mapping
		Description: GET /api/transactions without parameters MUST answer 200 with data an array
		and metadata page 1, size 20, total and totalPages JSON numbers (totalPages the pages of 20
		that total fills), hasNext and hasPrevious booleans (hasNext exactly when page < totalPages,
		hasPrevious false on page 1), and data holding min(total, 20) items. Every item MUST have
		transactionId a non-empty string; externalId and endToEndId strings; status Pendente,
		Confirmado or Error; operationType Pix in, Pix out, Refund in or Refund out, with
		movementType CREDIT for Pix in and Refund out and DEBIT for Pix out and Refund in;
		originalAmount, feeAmount and finalAmount JSON numbers of at most 2 decimals; createdAt and
		processedAt ISO 8601 strings (the resource table types processedAt so, for Pendente items
		too); counterpart.name a string; counterpart.document a string that does not carry a whole
		CPF or CNPJ (fewer than 11 digits); counterpart.bank.bankISPB, bankName, bankCode,
		accountBranch and accountNumber strings. On a sandbox the account first receives a PIX and
		sends a cash-out that stays pending, so that there are items to read.
	*/
	framework.SpecIt("lists the account's transactions in the list envelope, every item with its fields and display labels", func(ctx ginkgo.SpecContext) {
		seedHistory(ctx, f)
		r := listAs(ctx, f, f.Token(ctx), transactionsPath)
		total := expectListingEnvelope(r, 1, listingDefaultSize)
		if f.ControlPlane {
			gomega.Expect(total).To(gomega.Equal(2), "metadata.total after one PIX received and one cash-out")
		}
		for _, it := range dataItems(r) {
			expectListingItem(it)
		}
	})

	/*
		Check: transactions/params-accepted
		Spec: "Endpoints > GET /api/transactions" (size max 100; startDate an ISO 8601 date; max interval 31 days); "Limits", size and date interval rows
		Description: GET /api/transactions MUST answer 200 in the list envelope with size=100
		(metadata.size 100), with page=2&size=1 (metadata.page 2, size 1), with the 31 days
		of startDate=2026-02-01&endDate=2026-03-03 (both days included: the longest interval
		every reading of "31 days" allows), and with startDate=2026-02-01&endDate=2026-03-04, whose
		dates are 31 days apart: the window's edge at the day precision of the route's dates, where
		the contract ("max interval between startDate and endDate is 31 days") and the sandbox (the
		interval runs from startDate to the start of endDate's day) agree.
	*/
	ginkgo.DescribeTable("accepts the parameter",
		func(ctx ginkgo.SpecContext, query string, page, size int) {
			r := listAs(ctx, f, f.Token(ctx), withQuery(transactionsPath, query))
			expectListingEnvelope(r, page, size)
		},
		ginkgo.Entry("size=100", framework.Spec, "size=100", 1, accountMaxSize),
		ginkgo.Entry("page=2&size=1", framework.Spec, "page=2&size=1", 2, 1),
		ginkgo.Entry("startDate=2026-02-01&endDate=2026-03-03 (31 days)", framework.Spec, "startDate=2026-02-01&endDate=2026-03-03", 1, listingDefaultSize),
		ginkgo.Entry("startDate=2026-02-01&endDate=2026-03-04 (dates 31 days apart)", framework.Spec, "startDate=2026-02-01&endDate=2026-03-04", 1, listingDefaultSize),
	)

	/*
		Check: transactions/params-invalid
		Spec: "Endpoints > GET /api/transactions" (page integer from 1; size max 100; status PENDING, CONFIRMED, ERROR; type PAYMENT, WITHDRAW, REFUND_IN, REFUND_OUT; startDate and endDate ISO 8601 dates; max interval 31 days; errors 400); "Limits", size and date interval rows
		Gap G-53 (the entry "startDate after endDate", sandbox-choice): the spec does not say what an interval that ends before it starts is; the sandbox refuses it with 400
		Description: GET /api/transactions with one invalid parameter (page 0, size 0, size 101,
		status FOO, type FOO, startDate not-a-date, endDate 2026-13-01, or startDate=2026-02-01 with
		endDate=2026-03-05, dates 32 days apart: one day past the edge that transactions/params-accepted
		accepts) MUST be answered 400; on a sandbox, startDate=2026-03-05 with endDate=2026-03-01
		too. As the control, the same query with the parameter made valid (page 1, size 1, size 100,
		status CONFIRMED, type PAYMENT, a startDate or endDate of 2026-03-01..2026-03-05, dates 31
		days apart, the dates in order) MUST be answered 200.
	*/
	ginkgo.DescribeTable("rejects with 400",
		func(ctx ginkgo.SpecContext, query, control string) {
			expectRefusedWithControl(ctx, f, withQuery(transactionsPath, query), withQuery(transactionsPath, control))
		},
		ginkgo.Entry("page=0", framework.Spec, "page=0", "page=1"),
		ginkgo.Entry("size=0", framework.Spec, "size=0", "size=1"),
		ginkgo.Entry("size=101", framework.Spec, "size=101", "size=100"),
		ginkgo.Entry("status=FOO", framework.Spec, "status=FOO", "status=CONFIRMED"),
		ginkgo.Entry("type=FOO", framework.Spec, "type=FOO", "type=PAYMENT"),
		ginkgo.Entry("startDate=not-a-date", framework.Spec, "startDate=not-a-date&endDate=2026-03-05", "startDate=2026-03-01&endDate=2026-03-05"),
		ginkgo.Entry("endDate=2026-13-01", framework.Spec, "startDate=2026-03-01&endDate=2026-13-01", "startDate=2026-03-01&endDate=2026-03-05"),
		ginkgo.Entry("an interval of 32 days (startDate=2026-02-01&endDate=2026-03-05)", framework.Spec, "startDate=2026-02-01&endDate=2026-03-05", "startDate=2026-02-01&endDate=2026-03-04"),
		ginkgo.Entry("startDate after endDate (startDate=2026-03-05&endDate=2026-03-01)", framework.SandboxChoice, "startDate=2026-03-05&endDate=2026-03-01", "startDate=2026-03-01&endDate=2026-03-05"),
	)

	/*
		Check: transactions/error-shape
		Spec: "Errors > Shapes", item 3 (the minimal shape on the routes without their own)
		Gap: error bodies of the transaction listings are "not shown" ("Errors > Central Bank-compatible routes", last paragraph); the sandbox answers them in the minimal shape
		Description: A listing request refused with 400 (size=101 on GET /api/transactions,
		size=1001 on the key listing) MUST carry the minimal error shape: statusCode 400, message,
		error.
	*/
	framework.SandboxChoiceIt("answers a refused listing request in the minimal error shape", func(ctx ginkgo.SpecContext) {
		for _, path := range []string{
			withQuery(transactionsPath, "size=101"),
			withQuery(keyListingPath(url.PathEscape(freshEmailKey(f))), "size=1001"),
		} {
			gomega.Expect(expectListingRejected(ctx, f, path)).To(framework.HaveMinimalErrorShape())
		}
	})

	/*
		Check: transactions/paging
		Spec: "Endpoints > GET /api/transactions" (page 1-indexed, size); "Resources > Transaction listing item" (metadata hasNext, hasPrevious)
		Description: With at least two transactions in the default window (on a sandbox the account
		first receives three PIX; elsewhere the check is skipped when the account has fewer than
		two), pages 1 and 2 of size 1 MUST each hold one item, different from each other, with
		metadata.size 1 and totalPages equal to total; page 1 MUST have hasPrevious false and
		hasNext true, page 2 hasPrevious true and hasNext exactly when total > 2; on a sandbox page
		3 MUST hold the third item, with hasNext false.
	*/
	framework.SpecIt("pages with size=1 without repeating items, with hasPrevious on page 2", func(ctx ginkgo.SpecContext) {
		if f.ControlPlane {
			for range 3 {
				receivePIX(ctx, f, "1.00")
			}
		}
		tok := f.Token(ctx)
		first := listAs(ctx, f, tok, withQuery(transactionsPath, "page=1&size=1"))
		total := expectListingEnvelope(first, 1, 1)
		if total < 2 {
			ginkgo.Skip(fmt.Sprintf("the account has %d transaction(s) in the default window of GET /api/transactions; paging needs two", total))
		}
		second := listAs(ctx, f, tok, withQuery(transactionsPath, "page=2&size=1"))
		expectListingEnvelope(second, 2, 1)
		gomega.Expect(second).To(framework.HaveJSONField("metadata.hasPrevious", true))
		seen := append(itemIDs(dataItems(first)), itemIDs(dataItems(second))...)
		gomega.Expect(seen[1]).NotTo(gomega.Equal(seen[0]), "page 2 repeats the item of page 1")
		if f.ControlPlane {
			gomega.Expect(total).To(gomega.Equal(3), "metadata.total after three PIX received")
			third := listAs(ctx, f, tok, withQuery(transactionsPath, "page=3&size=1"))
			expectListingEnvelope(third, 3, 1)
			gomega.Expect(third).To(framework.HaveJSONField("metadata.hasNext", false))
			seen = append(seen, itemIDs(dataItems(third))...)
			gomega.Expect(map[string]bool{seen[0]: true, seen[1]: true, seen[2]: true}).To(gomega.HaveLen(3), "pages 1, 2 and 3 hold different items: %v", seen)
		}
	})

	/*
		Check: transactions/every-kind
		Spec: "Endpoints > GET /api/transactions" (display mapping: PAYMENT = Pix in, WITHDRAW = Pix out, REFUND_IN = Refund in, REFUND_OUT = Refund out; movementType); "What the service does", capability 7
		Gap G-53: every kind appears: cash-out, DICT transfer and split (Pix out), received PIX and paid or pending charges (Pix in), refunds of both routes and MED refunds (Refund in), refunds received (Refund out); transactionId the transaction's number; finalAmount amount + fee for a debit, amount − fee for a credit; documents masked as ***.456.789-**
		Sandbox: a second account from POST /_sandbox/accounts paying the spec's EVP key with POST /dict/pix; X-Sandbox-Scenario: ORDER_REJECTED; POST /_sandbox/dict/keys; POST /_sandbox/payments; POST /_sandbox/pix-in; POST /_sandbox/med, /analyze, /refund; GET /_sandbox/transactions/{id}; POST /_sandbox/clock/advance
		Description: After a cash-out of 10.00, a cash-out of 3.00 failed by the scenario
		ORDER_REJECTED, a DICT transfer of 12.34, a cash-in charge of 100.00 paid with an immediate
		FIXED split of 10.00, a charge of 5.00 left unpaid, PIX of 20.00 and 15.00 received through
		POST /_sandbox/pix-in, a PIX of 25.00 from another sandbox account, a refund of 5.00 of
		that PIX by PUT /pix/{e2eid}/devolucao/{id}, a refund-in of 2.00 of the PIX of 20.00, and a
		MED on the PIX of 15.00 approved and refunded, all settled, GET /api/transactions?size=100
		MUST list exactly those 12 transactions: the cash-out, the transfer and the split as Pix
		out, DEBIT, Confirmado; the failed cash-out as Pix out, DEBIT, Error; the paid charge, the
		two PIX and the PIX from the other account as Pix in, CREDIT, Confirmado; the unpaid charge
		as Pix in, CREDIT, Pendente; the two refunds and the MED refund as Refund in, DEBIT,
		Confirmado; each with its originalAmount, transactionId the number, finalAmount amount ±
		fee and masked documents (the payer of the PIX of 20.00, CPF 12345678909, as
		***.456.789-**). The other account MUST list exactly its transfer as Pix out and the refund
		it received as Refund out, CREDIT, Confirmado, of 5.00. The key listing of the split's key
		MUST list the split. Filtered by the endToEndId of the PIX between the two accounts, each
		account MUST list its own side alone: the spec's account its Pix in, the other account its
		transfer.
	*/
	framework.SandboxIt("lists every kind of transaction with its display labels", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		payer, err := f.Sandbox.CreateAccount(ctx, sandbox.AccountOptions{Balance: "100.00"})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		payerToken := f.TokenFor(ctx, framework.IdentityOf(payer))
		sent := f.Do(ctx, http.MethodPost, transferPath, payerToken, transferBody(evpKey(f.Account), "25.00"), transferHeaders(framework.UUIDv4(), ""))
		gomega.Expect(sent).To(framework.HaveSuccessStatus())
		payerTransfer := transferID(sent)

		co := cashOutRequest(f, "10.00")
		coNumber := transaction(ctx, f, acceptCashOut(ctx, f, co, "")).ID.String()
		failed := transaction(ctx, f, acceptCashOut(ctx, f, cashOutRequest(f, "3.00"), "ORDER_REJECTED")).ID.String()
		dest := transferDestination(ctx, f)
		tr := transferID(acceptTransfer(ctx, f, framework.UUIDv4(), transferBody(dest.key, transferAmount), ""))
		split := splitItem(f, "FIXED", "10.00", true)
		paid := acceptCashIn(ctx, f, cashInRequest(f, "100.00", withSplits(split)), "")
		pay(ctx, f, sandbox.PaymentRequest{PixCode: paid.pixCode})
		unpaid := acceptCashIn(ctx, f, cashInRequest(f, "5.00"), "")
		in := receivePIXAs(ctx, f, f.Account, "20.00", nil)
		contested := receivePIXAs(ctx, f, f.Account, "15.00", nil)
		advance(ctx, f, framework.SettlementWindow)

		fromPayer := transaction(ctx, f, payerTransfer)
		gomega.Expect(fromPayer.Status).To(gomega.Equal("CONFIRMED"), "the other account's transfer after settlement")
		refundID := newRefundID(f)
		rtr := stringField(createRefund(ctx, f, fromPayer.EndToEndID, refundID, refundBody("5.00"), ""), "rtrId")
		refundIn := stringField(createRefundIn(ctx, f, in.txID, refundInBody(f, "2.00")), "transactionId")
		med := openMED(ctx, f, sandbox.MEDRequest{EndToEndID: contested.e2e})
		medStep(ctx, f, med.ID.String(), sandbox.MEDAnalyze, analysis(medApproved, medApprovalDetails))
		medRefund := medStep(ctx, f, med.ID.String(), sandbox.MEDRefund, nil).RefundID
		gomega.Expect(medRefund).NotTo(gomega.BeEmpty(), "refundId of the refunded MED")
		medRtr := stringField(getRefundAs(ctx, f, f.Token(ctx), contested.e2e, medRefund), "rtrId")
		advance(ctx, f, framework.SettlementWindow)

		tok := f.Token(ctx)
		splitItems := dataItems(listAs(ctx, f, tok, keyListingPath(url.PathEscape(splitKey(split)))))
		gomega.Expect(splitItems).To(gomega.HaveLen(1), "the key listing of the split's key")
		splitNumber := fmt.Sprint(splitItems[0]["transactionId"])

		r := listAs(ctx, f, tok, withQuery(transactionsPath, "size=100"))
		items := dataItems(r)
		for _, want := range []listedItem{
			{what: "the cash-out", field: "transactionId", value: coNumber, op: labelPixOut, status: labelConfirmado, amount: "10.00"},
			{what: "the failed cash-out", field: "transactionId", value: failed, op: labelPixOut, status: labelError, amount: "3.00"},
			{what: "the DICT transfer", field: "transactionId", value: tr, op: labelPixOut, status: labelConfirmado, amount: transferAmount},
			{what: "the split", field: "transactionId", value: splitNumber, op: labelPixOut, status: labelConfirmado, amount: "10.00"},
			{what: "the paid charge", field: "transactionId", value: paid.id, op: labelPixIn, status: labelConfirmado, amount: "100.00"},
			{what: "the unpaid charge", field: "transactionId", value: unpaid.id, op: labelPixIn, status: labelPendente, amount: "5.00"},
			{what: "the PIX of 20.00", field: "transactionId", value: in.txID, op: labelPixIn, status: labelConfirmado, amount: "20.00"},
			{what: "the PIX of 15.00", field: "transactionId", value: contested.txID, op: labelPixIn, status: labelConfirmado, amount: "15.00"},
			{what: "the PIX from the other account", field: "endToEndId", value: fromPayer.EndToEndID, op: labelPixIn, status: labelConfirmado, amount: "25.00"},
			{what: "the refund by PUT", field: "endToEndId", value: rtr, op: labelRefundIn, status: labelConfirmado, amount: "5.00"},
			{what: "the refund-in", field: "transactionId", value: refundIn, op: labelRefundIn, status: labelConfirmado, amount: "2.00"},
			{what: "the MED refund", field: "endToEndId", value: medRtr, op: labelRefundIn, status: labelConfirmado, amount: "15.00"},
		} {
			it := expectListed(items, want)
			if want.value == in.txID {
				gomega.Expect(it).To(framework.HaveJSONField("counterpart.document", "***.456.789-**"), "the payer's document %s, masked", sampleCPF)
			}
		}
		gomega.Expect(items).To(gomega.HaveLen(12), "every transaction of the account: %v", itemIDs(items))
		gomega.Expect(r).To(framework.HaveJSONField("metadata.total", 12))

		payerItems := dataItems(listAs(ctx, f, payerToken, withQuery(transactionsPath, "size=100")))
		expectListed(payerItems, listedItem{what: "the other account's transfer", field: "transactionId", value: payerTransfer, op: labelPixOut, status: labelConfirmado, amount: "25.00"})
		expectListed(payerItems, listedItem{what: "the refund the other account received", field: "endToEndId", value: rtr, op: labelRefundOut, status: labelConfirmado, amount: "5.00"})
		gomega.Expect(payerItems).To(gomega.HaveLen(2), "every transaction of the other account: %v", itemIDs(payerItems))

		byE2E := withQuery(transactionsPath, "endToEndId="+url.QueryEscape(fromPayer.EndToEndID))
		mine := dataItems(listAs(ctx, f, tok, byE2E))
		gomega.Expect(mine).To(gomega.HaveLen(1), "the spec's account filtered by the endToEndId of the PIX between the accounts")
		gomega.Expect(mine[0]).To(framework.HaveJSONField("operationType", labelPixIn), "the spec's account's side of the PIX")
		theirs := dataItems(listAs(ctx, f, payerToken, byE2E))
		gomega.Expect(itemIDs(theirs)).To(gomega.Equal([]string{payerTransfer}), "the other account filtered by the same endToEndId")
	})

	/*
		Check: transactions/order
		Gap G-53: the order of the listings is "not shown"; the sandbox lists newest first (createdAt descending, then the number descending)
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: Of three PIX received, the first one second before the other two (the third
		after the second; on a virtual clock both at the same instant, so that only their numbers
		order them), GET /api/transactions MUST list the third, the second, then the first, with
		createdAt of the first earlier than the others' and the second's not later than the
		third's.
	*/
	framework.SandboxIt("lists newest first, then by number descending", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p1 := receivePIX(ctx, f, "1.00")
		advance(ctx, f, time.Second)
		p2 := receivePIX(ctx, f, "2.00")
		p3 := receivePIX(ctx, f, "3.00")
		r := listAs(ctx, f, f.Token(ctx), transactionsPath)
		items := dataItems(r)
		gomega.Expect(itemIDs(items)).To(gomega.Equal([]string{p3.txID, p2.txID, p1.txID}), "newest first, then by number")
		created := func(i int) time.Time {
			s, _ := items[i]["createdAt"].(string)
			return parseTime(s)
		}
		gomega.Expect(created(2)).To(gomega.BeTemporally("<", created(1)), "createdAt of the first PIX")
		gomega.Expect(created(1)).To(gomega.BeTemporally("<=", created(0)), "createdAt of the second PIX against the third's")
		if f.ClockMode == "virtual" {
			gomega.Expect(created(1)).To(gomega.BeTemporally("==", created(0)), "createdAt of the second and third PIX on a virtual clock")
		}
	})

	/*
		Check: transactions/dates
		Spec: "Endpoints > GET /api/transactions" (startDate an ISO 8601 date; max interval 31 days)
		Gap G-53: a date alone starts at 00:00 UTC and, as endDate, covers its whole day; the interval is measured from startDate to the start of endDate's day, so 31 days of dates are accepted and one day more is 400
		Sandbox: POST /_sandbox/pix-in
		Description: For a PIX received on UTC day D (after 00:00), GET /api/transactions MUST list
		it with endDate=D, with startDate=D&endDate=D, and with startDate=D−31 days&endDate=D; MUST
		NOT list it with endDate=D−1 day nor with startDate=D+1&endDate=D+1; and MUST answer 400 to
		startDate=D−32 days&endDate=D.
	*/
	framework.SandboxIt("reads a date-only endDate as its whole day and accepts 31 days of dates", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "1.00")
		tok := f.Token(ctx)
		items := dataItems(listAs(ctx, f, tok, transactionsPath))
		gomega.Expect(itemIDs(items)).To(gomega.Equal([]string{p.txID}), "the PIX received")
		s, _ := items[0]["createdAt"].(string)
		created := parseTime(s)
		d := time.Date(created.UTC().Year(), created.UTC().Month(), created.UTC().Day(), 0, 0, 0, 0, time.UTC)
		list := func(query string) []string {
			ginkgo.GinkgoHelper()
			return listedIDs(ctx, f, tok, withQuery(transactionsPath, query))
		}
		gomega.Expect(list("endDate="+day(d))).To(gomega.Equal([]string{p.txID}), "endDate=%s (createdAt %s)", day(d), s)
		gomega.Expect(list("startDate="+day(d)+"&endDate="+day(d))).To(gomega.Equal([]string{p.txID}), "startDate=endDate=%s", day(d))
		gomega.Expect(list("startDate="+day(d.AddDate(0, 0, -31))+"&endDate="+day(d))).To(gomega.Equal([]string{p.txID}), "31 days ending on %s", day(d))
		gomega.Expect(list("endDate="+day(d.AddDate(0, 0, -1)))).To(gomega.BeEmpty(), "endDate the day before")
		gomega.Expect(list("startDate="+day(d.AddDate(0, 0, 1))+"&endDate="+day(d.AddDate(0, 0, 1)))).To(gomega.BeEmpty(), "the day after")
		expectListingRejected(ctx, f, withQuery(transactionsPath, "startDate="+day(d.AddDate(0, 0, -32))+"&endDate="+day(d)))
	})

	/*
		Check: transactions/default-window
		Spec: "Endpoints > GET /api/transactions" (startDate default 31 days back); "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (startDate default 30 days back)
		Gap G-53: the defaults count back from endDate (now): 31 days for the account listing, 30 for the key listing
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: A PIX received at the account's EVP key MUST, 30 days and 1 hour later, still
		be listed by GET /api/transactions without dates but no longer by the key listing of the
		EVP key; 31 days and 1 hour after it was received, GET /api/transactions without dates
		MUST no longer list it.
	*/
	framework.SandboxIt("defaults to the last 31 days, and the key listing to the last 30", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "1.00")
		evp := keyListingPath(url.PathEscape(evpKey(f.Account)))
		tok := f.Token(ctx)
		gomega.Expect(listedIDs(ctx, f, tok, evp)).To(gomega.Equal([]string{p.txID}), "the key listing right after the PIX")
		advance(ctx, f, 30*24*time.Hour+time.Hour)
		tok = freshToken(ctx, f)
		gomega.Expect(listedIDs(ctx, f, tok, transactionsPath)).To(gomega.Equal([]string{p.txID}), "GET /api/transactions 30 days and 1 hour later")
		gomega.Expect(listedIDs(ctx, f, tok, evp)).To(gomega.BeEmpty(), "the key listing 30 days and 1 hour later")
		advance(ctx, f, 24*time.Hour)
		tok = freshToken(ctx, f)
		gomega.Expect(listedIDs(ctx, f, tok, transactionsPath)).To(gomega.BeEmpty(), "GET /api/transactions 31 days and 1 hour later")
	})

	/*
		Check: transactions/window-total
		Spec: "Endpoints > GET /api/transactions" (startDate, endDate; response: list envelope); "Resources > Transaction listing item" (metadata.total)
		Sandbox: POST /_sandbox/pix-in; POST /_sandbox/clock/advance
		Description: With PIX received at T, T+30 s, T+1 h and T+1 day (T the clock when the check
		starts; each instant read from the item's createdAt), GET /api/transactions with startDate
		and endDate date-times one second before or after any two of those instants MUST list
		exactly the PIX created inside the window,
		metadata.total counting them, whether the window's edges fall inside a minute, an hour or a
		day.
	*/
	framework.SandboxIt("counts in metadata.total exactly the transactions of a date-time window", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		type received struct {
			id string
			at time.Time
		}
		var got []received
		for _, step := range []time.Duration{0, 30 * time.Second, time.Hour - 30*time.Second, 23 * time.Hour} {
			if step > 0 {
				advance(ctx, f, step)
			}
			got = append(got, received{id: receivePIX(ctx, f, "1.00").txID})
		}
		tok := freshToken(ctx, f)
		created := map[string]time.Time{}
		for _, it := range dataItems(listAs(ctx, f, tok, withQuery(transactionsPath, "size=100"))) {
			s, _ := it["createdAt"].(string)
			created[fmt.Sprint(it["transactionId"])] = parseTime(s)
		}
		for i := range got {
			gomega.Expect(created).To(gomega.HaveKey(got[i].id), "the PIX received are listed")
			got[i].at = created[got[i].id]
		}
		stamp := func(t time.Time) string { return url.QueryEscape(t.UTC().Format(time.RFC3339Nano)) }
		for i, from := range got {
			for _, to := range got[i:] {
				for _, edge := range [][2]time.Duration{{-time.Second, time.Second}, {time.Second, time.Second}, {-time.Second, -time.Second}, {time.Second, -time.Second}} {
					start, end := from.at.Add(edge[0]), to.at.Add(edge[1])
					if start.After(end) {
						continue
					}
					var want []string
					for _, p := range got {
						if !p.at.Before(start) && !p.at.After(end) {
							want = append(want, p.id)
						}
					}
					query := "size=100&startDate=" + stamp(start) + "&endDate=" + stamp(end)
					gomega.Expect(listedIDs(ctx, f, tok, withQuery(transactionsPath, query))).To(gomega.ConsistOf(want), "?%s", query)
				}
			}
		}
	})

	/*
		Check: transactions/filters
		Spec: "Endpoints > GET /api/transactions" (status PENDING, CONFIRMED, ERROR; type PAYMENT, WITHDRAW, REFUND_IN, REFUND_OUT; externalId; endToEndId; display mapping)
		Sandbox: POST /_sandbox/pix-in; X-Sandbox-Scenario: SETTLEMENT_PENDING; GET /_sandbox/transactions/{id}; POST /_sandbox/transactions/{id}/settle
		Description: With a PIX received (CONFIRMED, PAYMENT), a cash-out held pending (WITHDRAW) and
		a refund-in of 1.00 of the PIX (pending, REFUND_IN), each filter MUST list exactly its
		transactions, metadata.total counting them: status=PENDING the cash-out and the refund,
		status=CONFIRMED the PIX, status=ERROR none, type=PAYMENT the PIX, type=WITHDRAW the
		cash-out, type=REFUND_IN the refund, type=REFUND_OUT none, externalId the cash-out's the
		cash-out, endToEndId the PIX's the PIX, endToEndId the refund's rtrId (its
		providerTransactionId) the refund, an unknown externalId none, externalId the
		cash-out's with status=CONFIRMED none. Once the cash-out is settled, status=PENDING MUST
		list the refund alone and status=CONFIRMED the PIX and the cash-out.
	*/
	framework.SandboxIt("filters by status, type, externalId and endToEndId", func(ctx ginkgo.SpecContext) {
		p := receivePIX(ctx, f, "10.00")
		co := cashOutRequest(f, "1.00")
		coUUID := acceptCashOut(ctx, f, co, "SETTLEMENT_PENDING")
		coNumber := transaction(ctx, f, coUUID).ID.String()
		refund := createRefundIn(ctx, f, p.txID, refundInBody(f, "1.00"))
		rin, rtr := stringField(refund, "transactionId"), stringField(refund, "providerTransactionId")
		tok := f.Token(ctx)
		list := func(query string) []string {
			ginkgo.GinkgoHelper()
			return listedIDs(ctx, f, tok, withQuery(transactionsPath, query))
		}
		ext := url.QueryEscape(externalID(co))
		for query, want := range map[string][]string{
			"status=PENDING":                          {coNumber, rin},
			"status=CONFIRMED":                        {p.txID},
			"status=ERROR":                            {},
			"type=PAYMENT":                            {p.txID},
			"type=WITHDRAW":                           {coNumber},
			"type=REFUND_IN":                          {rin},
			"type=REFUND_OUT":                         {},
			"externalId=" + ext:                       {coNumber},
			"endToEndId=" + url.QueryEscape(p.e2e):    {p.txID},
			"endToEndId=" + url.QueryEscape(rtr):      {rin},
			"externalId=" + f.UniqueID("unknown"):     {},
			"externalId=" + ext + "&status=CONFIRMED": {},
		} {
			gomega.Expect(list(query)).To(gomega.ConsistOf(want), "?%s", query)
		}
		_, err := f.Sandbox.SettleTransaction(ctx, coUUID)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(list("status=PENDING")).To(gomega.ConsistOf(rin), "?status=PENDING once the cash-out settled")
		gomega.Expect(list("status=CONFIRMED")).To(gomega.ConsistOf(p.txID, coNumber), "?status=CONFIRMED once the cash-out settled")
	})
})

var _ = ginkgo.Describe("GET /api/pix/transactions/pix-key/{pixKey}", framework.Res("transactions"), framework.FamilyStd, func() {
	f := framework.New("transactions-by-key")

	/*
		Check: key-listing/list-shape
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (response 200: list envelope; size default 20; at most 1000 results in total; labels mapped for display; counterpart documents masked); "Resources > Transaction listing item"
		Description: The key listing of a key (-pix-key when given; on a sandbox the account's EVP
		key, after a PIX received there; else a fresh email key) MUST answer 200 in the list
		envelope (page 1, size 20, as in transactions/list-shape) with metadata.total at most 1000,
		every item with the fields of the listing item (as in transactions/list-shape); with
		size=1000 it MUST answer 200 with metadata.size 1000.
	*/
	framework.SpecIt("lists a key's transactions in the list envelope, at most 1000 in total", func(ctx ginkgo.SpecContext) {
		key := f.Config.PixKey
		switch {
		case key != "":
		case f.ControlPlane:
			key = evpKey(f.Account)
			receivePIX(ctx, f, "10.00")
		default:
			key = freshEmailKey(f)
		}
		path := keyListingPath(url.PathEscape(key))
		tok := f.Token(ctx)
		r := listAs(ctx, f, tok, path)
		total := expectListingEnvelope(r, 1, listingDefaultSize)
		gomega.Expect(total).To(gomega.BeNumerically("<=", keyMaxResults), "metadata.total of a key listing")
		if f.ControlPlane && f.Config.PixKey == "" {
			gomega.Expect(total).To(gomega.Equal(1), "metadata.total after one PIX received at the key")
		}
		for _, it := range dataItems(r) {
			expectListingItem(it)
		}
		big := listAs(ctx, f, tok, withQuery(path, "size=1000"))
		gomega.Expect(expectListingEnvelope(big, 1, keyMaxSize)).To(gomega.BeNumerically("<=", keyMaxResults), "metadata.total with size=1000")
	})

	/*
		Check: key-listing/key-forms
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (pixKey: CPF, CNPJ, phone, email or EVP); "Authentication", rule 3 (a literal + is encoded as %2B)
		Description: The key listing MUST answer 200 in the list envelope for an email key sent as
		is, for a +55 phone key with its + sent as is, and for the same phone key with the + sent as
		%2B.
	*/
	ginkgo.DescribeTable("accepts the key",
		func(ctx ginkgo.SpecContext, segment func() string) {
			r := listAs(ctx, f, f.Token(ctx), keyListingPath(segment()))
			gomega.Expect(expectListingEnvelope(r, 1, listingDefaultSize)).To(gomega.BeNumerically("<=", keyMaxResults))
		},
		ginkgo.Entry("an email key", framework.Spec, func() string { return freshEmailKey(f) }),
		ginkgo.Entry("a +55 phone key with a raw +", framework.Spec, func() string { return samplePhoneKey }),
		ginkgo.Entry("a +55 phone key with + as %2B", framework.Spec, func() string { return "%2B" + strings.TrimPrefix(samplePhoneKey, "+") }),
	)

	/*
		Check: key-listing/params-accepted
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (size max 1000; startDate and endDate ISO 8601; max interval 31 days); "Limits", size by PIX key and date interval rows
		Description: The key listing of an email key MUST answer 200 in the list envelope with
		size=1000 (metadata.size 1000) and with startDate=2026-02-01T00:00:00Z and
		endDate=2026-03-04T00:00:00Z, exactly 31 days.
	*/
	ginkgo.DescribeTable("accepts the parameter",
		func(ctx ginkgo.SpecContext, query string, size int) {
			r := listAs(ctx, f, f.Token(ctx), withQuery(keyListingPath(url.PathEscape(freshEmailKey(f))), query))
			expectListingEnvelope(r, 1, size)
		},
		ginkgo.Entry("size=1000", framework.Spec, "size=1000", keyMaxSize),
		ginkgo.Entry("an interval of exactly 31 days", framework.Spec, "startDate="+keyWindowStart+"&endDate="+keyWindowEnd, listingDefaultSize),
	)

	/*
		Check: key-listing/params-invalid
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (page 1-indexed; size max 1000; status and type enumerations; startDate and endDate ISO 8601; max interval 31 days; 400 invalid parameters or interval over 31 days); "Limits", size by PIX key row
		Gap G-53 (the entry "startDate after endDate", sandbox-choice): an interval that ends before it starts is refused with 400; G-54 (the entry "a key without a DICT key's form", sandbox-choice): the key must have the form of a CPF, CNPJ, email, +55 phone or EVP key
		Description: The key listing of an email key with one invalid parameter (page 0, size 0,
		size 1001, status FOO, type FOO, startDate not-a-date, endDate 2026-13-01, an interval of
		32 days, or of 31 days and 1 second: one second past the edge key-listing/params-accepted
		accepts) MUST be answered 400; on a sandbox, startDate after endDate and the key not-a-key
		too. As the control, the same request with the parameter made valid (page 1, size 1, size
		1000, status CONFIRMED, type PAYMENT, valid dates, an interval of exactly 31 days, the
		dates in order, a fresh email key) MUST be answered 200.
	*/
	ginkgo.DescribeTable("rejects with 400",
		func(ctx ginkgo.SpecContext, key func() string, query, control string) {
			expectRefusedWithControl(ctx, f, withQuery(keyListingPath(url.PathEscape(key())), query),
				withQuery(keyListingPath(url.PathEscape(freshEmailKey(f))), control))
		},
		ginkgo.Entry("page=0", framework.Spec, func() string { return freshEmailKey(f) }, "page=0", "page=1"),
		ginkgo.Entry("size=0", framework.Spec, func() string { return freshEmailKey(f) }, "size=0", "size=1"),
		ginkgo.Entry("size=1001", framework.Spec, func() string { return freshEmailKey(f) }, "size=1001", "size=1000"),
		ginkgo.Entry("status=FOO", framework.Spec, func() string { return freshEmailKey(f) }, "status=FOO", "status=CONFIRMED"),
		ginkgo.Entry("type=FOO", framework.Spec, func() string { return freshEmailKey(f) }, "type=FOO", "type=PAYMENT"),
		ginkgo.Entry("startDate=not-a-date", framework.Spec, func() string { return freshEmailKey(f) }, "startDate=not-a-date&endDate="+keyWindowEnd, "startDate="+keyWindowStart+"&endDate="+keyWindowEnd),
		ginkgo.Entry("endDate=2026-13-01", framework.Spec, func() string { return freshEmailKey(f) }, "startDate="+keyWindowStart+"&endDate=2026-13-01", "startDate="+keyWindowStart+"&endDate="+keyWindowEnd),
		ginkgo.Entry("an interval of 32 days", framework.Spec, func() string { return freshEmailKey(f) }, "startDate="+keyWindowStart+"&endDate=2026-03-05T00:00:00Z", "startDate="+keyWindowStart+"&endDate="+keyWindowEnd),
		ginkgo.Entry("an interval of 31 days and 1 second", framework.Spec, func() string { return freshEmailKey(f) }, "startDate="+keyWindowStart+"&endDate=2026-03-04T00:00:01Z", "startDate="+keyWindowStart+"&endDate="+keyWindowEnd),
		ginkgo.Entry("startDate after endDate", framework.SandboxChoice, func() string { return freshEmailKey(f) }, "startDate="+keyWindowEnd+"&endDate="+keyWindowStart, "startDate="+keyWindowStart+"&endDate="+keyWindowEnd),
		ginkgo.Entry("a key without a DICT key's form", framework.SandboxChoice, func() string { return "not-a-key" }, "", ""),
	)

	/*
		Check: key-listing/only-that-key
		Spec: "Endpoints > GET /api/pix/transactions/pix-key/{pixKey}" (the transactions of one PIX key); "What the service does", capability 7
		Gap G-53: the key listing holds the transactions whose key is the path's: PIX received at it and PIX sent to it
		Sandbox: POST /_sandbox/pix-in
		Description: With two PIX received at the account's EVP key and cash-outs to two email keys
		X and Y, the key listing of the EVP key MUST list exactly the two PIX (Pix in), that of X
		exactly the cash-out to X (Pix out), that of Y exactly the cash-out to Y, and that of an
		email key no transaction names nothing, metadata.total counting the items each time.
	*/
	framework.SandboxIt("lists only the transactions of the key: PIX received at it and sent to it", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		p1 := receivePIX(ctx, f, "1.00")
		p2 := receivePIX(ctx, f, "2.00")
		x, y := freshEmailKey(f), freshEmailKey(f)
		toX := transaction(ctx, f, acceptCashOut(ctx, f, cashOutToKey(f, "1.00", "EMAIL", x), "")).ID.String()
		toY := transaction(ctx, f, acceptCashOut(ctx, f, cashOutToKey(f, "1.00", "EMAIL", y), "")).ID.String()
		tok := f.Token(ctx)
		list := func(key string) []string {
			ginkgo.GinkgoHelper()
			return listedIDs(ctx, f, tok, keyListingPath(url.PathEscape(key)))
		}
		gomega.Expect(list(evpKey(f.Account))).To(gomega.ConsistOf(p1.txID, p2.txID), "the EVP key")
		gomega.Expect(list(x)).To(gomega.ConsistOf(toX), "key %s", x)
		gomega.Expect(list(y)).To(gomega.ConsistOf(toY), "key %s", y)
		gomega.Expect(list(freshEmailKey(f))).To(gomega.BeEmpty(), "a key no transaction names")
		items := dataItems(listAs(ctx, f, tok, keyListingPath(url.PathEscape(x))))
		gomega.Expect(items[0]).To(framework.HaveJSONField("operationType", labelPixOut))
		for _, it := range dataItems(listAs(ctx, f, tok, keyListingPath(url.PathEscape(evpKey(f.Account))))) {
			gomega.Expect(it).To(framework.HaveJSONField("operationType", labelPixIn))
		}
	})

	/*
		Check: key-listing/key-encodings
		Gap G-54: the key is matched on the decoded path: a phone's + as is or as %2B, an email's @ as is or as %40, emails in lower case
		Sandbox: GET /_sandbox/transactions/{id} (the numbers of a cash-out to a PHONE key and one to an EMAIL key)
		Description: After a cash-out to the PHONE key 11987654321 and one to a fresh email key,
		the key listing MUST list the first for +5511987654321 sent with a raw + and with %2B, and
		the second for the email sent as is, with its @ as %40, and in upper case.
	*/
	framework.SandboxIt("matches the key on the decoded path: + or %2B, @ or %40, any case of an email", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		phone := transaction(ctx, f, acceptCashOut(ctx, f, cashOutToKey(f, "1.00", "PHONE", samplePhoneDigits), "")).ID.String()
		email := freshEmailKey(f)
		mail := transaction(ctx, f, acceptCashOut(ctx, f, cashOutToKey(f, "1.00", "EMAIL", email), "")).ID.String()
		tok := f.Token(ctx)
		local, domain, _ := strings.Cut(email, "@")
		for segment, want := range map[string]string{
			samplePhoneKey: phone,
			"%2B" + strings.TrimPrefix(samplePhoneKey, "+"): phone,
			email:                  mail,
			local + "%40" + domain: mail,
			strings.ToUpper(email): mail,
		} {
			gomega.Expect(listedIDs(ctx, f, tok, keyListingPath(segment))).To(gomega.Equal([]string{want}), "the key listing of %s", segment)
		}
	})
})
