package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/pixsandbox/pixsandbox/conformance/framework"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
	"github.com/pixsandbox/pixsandbox/conformance/framework/sandbox"
)

// cashInPath is the standard cash-in route.
const cashInPath = "/api/pix/cash-in"

// defaultCashInExpiration is the default transaction.expirationTime ("Endpoints
// > POST /api/pix/cash-in": default 86400).
const defaultCashInExpiration = 86400 * time.Second

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// payerName is the name the suite gives payers on a sandbox.
const payerName = "Beltrana Pagadora"

// cashInRequest returns a valid cash-in body for value (decimal text, sent as
// a JSON number), changed by mods; mods receive the body and its transaction
// and payer objects.
func cashInRequest(f *framework.Framework, value string, mods ...func(m, tr, payer map[string]any)) map[string]any {
	tr := map[string]any{
		"value":       json.Number(value),
		"description": "conformance cash-in",
		"externalId":  f.UniqueID("conformance"),
	}
	payer := map[string]any{"fullName": holderName, "document": sampleCPF}
	m := map[string]any{"transaction": tr, "payer": payer}
	for _, mod := range mods {
		mod(m, tr, payer)
	}
	return m
}

// cashInExternalID returns the body's transaction.externalId.
func cashInExternalID(m map[string]any) string {
	tr, _ := m["transaction"].(map[string]any)
	s, _ := tr["externalId"].(string)
	return s
}

// cashInValue returns the body's transaction.value in centavos.
func cashInValue(m map[string]any) int64 {
	ginkgo.GinkgoHelper()
	tr, _ := m["transaction"].(map[string]any)
	c, err := apiclient.Cents(tr["value"])
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "transaction.value")
	return c
}

// splitItem returns a splits[] item paying value (decimal text) of type FIXED
// or PERCENTAGE to a fresh email key.
func splitItem(f *framework.Framework, typ, value string, immediate bool) map[string]any {
	return map[string]any{
		"pixKey": freshEmailKey(f), "pixKeyType": "EMAIL", "name": "Sicrano Recebedor", "document": otherCPF,
		"type": typ, "value": json.Number(value), "immediate": immediate,
	}
}

// withSplits sets the body's splits.
func withSplits(items ...map[string]any) func(m, _, _ map[string]any) {
	return func(m, _, _ map[string]any) { m["splits"] = items }
}

// postCashIn sends POST /api/pix/cash-in with the spec's token.
func postCashIn(ctx context.Context, f *framework.Framework, m map[string]any, scenario string) *apiclient.Response {
	ginkgo.GinkgoHelper()
	return f.Do(ctx, http.MethodPost, cashInPath, f.Token(ctx), encodeJSON(m), withScenario(nil, scenario))
}

// cashInCharge is an accepted cash-in charge.
type cashInCharge struct {
	// id is the transactionId.
	id string
	// correlationID is the correlationId.
	correlationID string
	// pixCode is the BR Code.
	pixCode string
	// r is the creation response.
	r *apiclient.Response
}

// acceptCashIn sends a cash-in that must be accepted (201, status PENDING)
// and returns the charge.
func acceptCashIn(ctx context.Context, f *framework.Framework, m map[string]any, scenario string) cashInCharge {
	ginkgo.GinkgoHelper()
	r := postCashIn(ctx, f, m, scenario)
	gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
	gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
	return cashInCharge{id: stringField(r, "transactionId"), correlationID: stringField(r, "correlationId"), pixCode: stringField(r, "pixCode"), r: r}
}

// controlCashIn sends the control of a cash-in refusal, a cash-in with the
// spec's token that must be answered 201; otherwise the check ends as
// control refused (framework.Control).
func controlCashIn(ctx context.Context, f *framework.Framework, what string, m map[string]any) {
	ginkgo.GinkgoHelper()
	framework.Control(what, encodeJSON(m), postCashIn(ctx, f, m, ""), http.StatusCreated)
}

// setCashInWebhook chooses the shape of an account's cash-in charge webhooks
// (Gap G-38): "RECEIVE", "CashIn" or "default".
func setCashInWebhook(ctx context.Context, f *framework.Framework, accountID, shape string) {
	ginkgo.GinkgoHelper()
	r, err := f.Sandbox.Do(ctx, http.MethodPut, "/_sandbox/accounts/"+accountID+"/settings", map[string]any{"cashInWebhook": shape})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(r).To(framework.HaveStatus(http.StatusOK))
	gomega.Expect(r).To(framework.HaveJSONField("cashInWebhook", shape))
}

// expectDynamicBRCode checks that s is a valid BR Code of a dynamic charge:
// BeValidBRCode, and a location URL in 26-25.
func expectDynamicBRCode(s, what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(s).To(framework.BeValidBRCode(), what)
	code, err := codec.ParseBRCode(s)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), what)
	gomega.Expect(code.URL).NotTo(gomega.BeEmpty(), "%s is a dynamic code: a location URL in 26-25", what)
}

// expectLifetime checks that expirationDate − generateTime of a cash-in
// response is want, within a second (a target may render one of them with
// whole seconds).
func expectLifetime(r *apiclient.Response, want time.Duration) {
	ginkgo.GinkgoHelper()
	gen, err := apiclient.ParseISO8601(stringField(r, "generateTime"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "generateTime")
	exp, err := apiclient.ParseISO8601(stringField(r, "expirationDate"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "expirationDate")
	gomega.Expect(exp.Sub(gen)).To(gomega.BeNumerically("~", want, time.Second), "expirationDate − generateTime")
}

// cashInFee returns the account's cash-in fee in centavos from the control
// plane.
func cashInFee(ctx context.Context, f *framework.Framework) int64 {
	ginkgo.GinkgoHelper()
	st, err := f.Sandbox.Settings(ctx, f.Identity.ID)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	fee, err := apiclient.Cents(st.CashInFee)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "cashInFee of %+v", st)
	return fee
}

// externalPayer returns a payer at a participant outside the sandbox.
func externalPayer(ctx context.Context, f *framework.Framework) *sandbox.Payer {
	ginkgo.GinkgoHelper()
	return &sandbox.Payer{Name: payerName, Document: sampleCPF, ISPB: outsideISPB(ctx, f)}
}

// pay pays a charge through the control plane, failing the spec unless the
// payment is accepted (201).
func pay(ctx context.Context, f *framework.Framework, p sandbox.PaymentRequest) *sandbox.PaymentResult {
	ginkgo.GinkgoHelper()
	res, err := f.Sandbox.Pay(ctx, p)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "paying %+v", p)
	return res
}

// expectPaymentRefused checks that the control plane refuses a payment with
// status.
func expectPaymentRefused(ctx context.Context, f *framework.Framework, p sandbox.PaymentRequest, status int, why string) {
	ginkgo.GinkgoHelper()
	_, err := f.Sandbox.Pay(ctx, p)
	gomega.Expect(err).To(gomega.HaveOccurred(), "the payment of %s was accepted", why)
	gomega.Expect(sandbox.ErrorStatus(err)).To(gomega.Equal(status), "status of the payment of %s: %v", why, err)
}

// transaction reads a transaction from the control plane.
func transaction(ctx context.Context, f *framework.Framework, id string) *sandbox.Transaction {
	ginkgo.GinkgoHelper()
	tx, err := f.Sandbox.Transaction(ctx, id)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "GET /_sandbox/transactions/%s", id)
	return tx
}

// expectCashInWebhook checks a CashIn webhook of charge c against Gap G-38:
// the CashOut payload's fields with event CashIn and movementType CREDIT,
// status, the charge's identifiers, and the fee (in centavos).
func expectCashInWebhook(d framework.Delivery, c cashInCharge, m map[string]any, fee int64, status string) {
	ginkgo.GinkgoHelper()

	gomega.Expect(d).To(framework.HaveJSONField("event", "CashIn"))
	gomega.Expect(d).To(framework.HaveJSONField("status", status))
	gomega.Expect(d).To(framework.HaveJSONField("transactionType", "PIX"))
	gomega.Expect(d).To(framework.HaveJSONField("movementType", "CREDIT"))
	gomega.Expect(d).To(framework.HaveJSONField("transactionId", gomega.And(gomega.Equal(c.id), gomega.MatchRegexp(`^[0-9]+$`))))
	gomega.Expect(d).To(framework.HaveJSONField("externalId", cashInExternalID(m)))
	gomega.Expect(d).To(framework.HaveJSONField("correlationId", c.correlationID))
	for _, p := range []string{"feeAmount", "originalAmount", "finalAmount"} {
		gomega.Expect(d).To(framework.HaveJSONField(p, framework.BeDecimal2Number()))
	}
	gomega.Expect(brl(moneyField(d, "originalAmount"))).To(gomega.Equal(brl(cashInValue(m))), "originalAmount is the charge's value")
	gomega.Expect(d).To(framework.HaveJSONField("processingDate", framework.BeISO8601()))
	if status == "CONFIRMED" {
		gomega.Expect(brl(moneyField(d, "feeAmount"))).To(gomega.Equal(brl(fee)), "feeAmount is the account's cash-in fee")
		gomega.Expect(brl(moneyField(d, "finalAmount"))).To(gomega.Equal(brl(moneyField(d, "originalAmount")-moneyField(d, "feeAmount"))), "finalAmount = originalAmount − feeAmount")
		gomega.Expect(d).To(framework.HaveJSONField("endToEndId", gomega.MatchRegexp(endToEndPattern)))
		gomega.Expect(d).To(framework.HaveJSONField("errorCode", nil))
		gomega.Expect(d).To(framework.HaveJSONField("errorMessage", nil))
	}
	expectCounterpartAndMetadata(d)
}

// expectSandboxBRCode checks the sandbox's form of a BR Code (Gap G-42).
func expectSandboxBRCode(f *framework.Framework, s, what string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(s).To(framework.BeValidBRCode(), what)
	code, err := codec.ParseBRCode(s)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), what)
	gomega.Expect(code.LocationURLProblems()).To(gomega.BeEmpty(), "%s: a dynamic code's location", what)
	gomega.Expect(code.PointOfInitiation).To(gomega.Equal(codec.BRCodeDynamicPOI), "%s 01 (point of initiation)", what)
	gomega.Expect(code.URL).To(gomega.MatchRegexp(`^qr\.pixsandbox\.example/qr/v2/[0-9a-f]{32}$`), "%s 26-25 (location)", what)
	gomega.Expect(code.Key).To(gomega.BeEmpty(), "%s 26-01 (key) in a dynamic code", what)
	gomega.Expect(code.MCC).To(gomega.Equal("0000"), "%s 52", what)
	gomega.Expect(code.Amount).To(gomega.BeEmpty(), "%s 54 (amount) in a dynamic code", what)
	gomega.Expect(code.MerchantCity).To(gomega.Equal("SAO PAULO"), "%s 60", what)
	gomega.Expect(code.TxID).To(gomega.Equal("***"), "%s 62-05", what)
	if f.Account != nil {
		gomega.Expect(code.MerchantName).To(gomega.Equal(foldName(f.Account.Name, 25)), "%s 59 (the account holder)", what)
	}
}

// foldName is name with the Portuguese accented letters replaced by their
// base letters and cut to max characters: how a BR Code writes a holder.
func foldName(name string, max int) string {
	r := strings.NewReplacer(
		"á", "a", "à", "a", "â", "a", "ã", "a", "ä", "a", "é", "e", "ê", "e", "è", "e", "í", "i", "ï", "i",
		"ó", "o", "ô", "o", "õ", "o", "ö", "o", "ú", "u", "ü", "u", "ç", "c", "ñ", "n",
		"Á", "A", "À", "A", "Â", "A", "Ã", "A", "Ä", "A", "É", "E", "Ê", "E", "È", "E", "Í", "I", "Ï", "I",
		"Ó", "O", "Ô", "O", "Õ", "O", "Ö", "O", "Ú", "U", "Ü", "U", "Ç", "C", "Ñ", "N",
	)
	out := []rune(strings.TrimSpace(r.Replace(name)))
	if len(out) > max {
		out = out[:max]
	}
	return strings.TrimSpace(string(out))
}

// splitTransactions waits for the CashOut webhook of every split (one per
// pixKey) on inbox and returns, by pixKey, the SPLIT transactions its
// transactionId names (GET /_sandbox/transactions/{id}). With settle it first
// lets the splits settle (the spec must be ginkgo.Serial).
func splitTransactions(ctx context.Context, f *framework.Framework, inbox *framework.Inbox, settle bool, keys ...string) map[string]*sandbox.Transaction {
	ginkgo.GinkgoHelper()
	out := map[string]*sandbox.Transaction{}
	for i, key := range keys {
		d := awaitWebhook(ctx, f, inbox, settle && i == 0, "pixKey", key)
		gomega.Expect(d).To(framework.HaveJSONField("event", "CashOut"))
		id, ok := d.Field("transactionId")
		gomega.Expect(ok).To(gomega.BeTrue(), "transactionId of %s", d)
		s, _ := id.(string)
		gomega.Expect(s).To(gomega.MatchRegexp(`^[0-9]+$`), "transactionId of %s", d)
		out[key] = transaction(ctx, f, s)
	}
	return out
}

// expectSplit checks a split transaction: kind SPLIT, the charge's number as
// relatedId, status and amount (centavos).
func expectSplit(tx *sandbox.Transaction, chargeNumber string, status string, amount int64) {
	ginkgo.GinkgoHelper()
	gomega.Expect(tx.Kind).To(gomega.Equal("SPLIT"), "kind of transaction %s", tx.ID)
	gomega.Expect(tx.RelatedID.String()).To(gomega.Equal(chargeNumber), "relatedId of split %s", tx.ID)
	gomega.Expect(tx.Status).To(gomega.Equal(status), "status of split %s", tx.ID)
	got, err := apiclient.Cents(tx.Amount)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(brl(got)).To(gomega.Equal(brl(amount)), "amount of split %s", tx.ID)
}

// paidOut sums the amounts of the CONFIRMED split transactions, in centavos.
func paidOut(splits map[string]*sandbox.Transaction) int64 {
	ginkgo.GinkgoHelper()
	var sum int64
	for _, tx := range splits {
		if tx.Status == "CONFIRMED" {
			sum += cents(tx.Amount)
		}
	}
	return sum
}

// splitKey returns a splits[] item's pixKey.
func splitKey(item map[string]any) string {
	s, _ := item["pixKey"].(string)
	return s
}

var _ = ginkgo.Describe("POST /api/pix/cash-in", framework.Res("cash-in"), framework.FamilyStd, func() {
	f := framework.New("cash-in")

	/*
		Check: cash-in/created
		Spec: "Endpoints > POST /api/pix/cash-in" (response 201; expirationTime default 86400; generateQrCode default false); "Resources > Cash-in charge (response)"; "What the service does", capability 4 (a dynamic charge)
		Description: A valid cash-in without expirationTime or generateQrCode MUST be answered 201
		with transactionId a non-empty string, correlationId a UUID, externalId equal to the
		request's, status PENDING, generateTime and expirationDate in ISO 8601 with expirationDate
		86400 seconds after generateTime, pixCode a valid dynamic BR Code (framework.BeValidBRCode:
		CRC-16/CCITT-FALSE, GUI br.gov.bcb.pix, a location without scheme in 26-25, 53 = 986,
		58 = BR, 59 ≤ 25, 60 ≤ 15, ASCII only), and no qrCodeImage.
	*/
	framework.SpecIt("accepts a charge with 201, PENDING, a UUID correlationId, a 86400 s lifetime and a dynamic BR Code", func(ctx ginkgo.SpecContext) {
		m := cashInRequest(f, "25.00")
		r := postCashIn(ctx, f, m, "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		gomega.Expect(r).To(framework.HaveJSONField("transactionId", nonEmptyString()))
		gomega.Expect(r).To(framework.HaveJSONField("correlationId", gomega.MatchRegexp(uuidPattern)))
		gomega.Expect(r).To(framework.HaveJSONField("externalId", cashInExternalID(m)))
		gomega.Expect(r).To(framework.HaveJSONField("status", "PENDING"))
		gomega.Expect(r).To(framework.HaveJSONField("generateTime", framework.BeISO8601()))
		gomega.Expect(r).To(framework.HaveJSONField("expirationDate", framework.BeISO8601()))
		expectLifetime(r, defaultCashInExpiration)
		expectDynamicBRCode(stringField(r, "pixCode"), "pixCode")
		_, has := r.Field("qrCodeImage")
		gomega.Expect(has).To(gomega.BeFalse(), "qrCodeImage without generateQrCode in %s", r)
	})

	/*
		Check: cash-in/expiration-time
		Spec: "Endpoints > POST /api/pix/cash-in" (transaction.expirationTime: seconds); "Resources > Cash-in charge (response)"
		Description: A cash-in with expirationTime 3600 MUST be answered 201 with expirationDate
		3600 seconds after generateTime.
	*/
	framework.SpecIt("sets expirationDate expirationTime seconds after generateTime", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 3600 }), "")
		expectLifetime(c.r, time.Hour)
	})

	/*
		Check: cash-in/qr-code-image
		Spec: "Resources > Cash-in charge (response)", qrCodeImage (Base64 image; present only when generateQrCode is true); "Endpoints > POST /api/pix/cash-in", transaction.generateQrCode
		Description: A cash-in with generateQrCode true MUST be answered 201 with qrCodeImage a
		standard base64 string that decodes to a PNG image (the PNG signature, then an image of
		positive width and height) and a valid dynamic BR Code in pixCode.
	*/
	framework.SpecIt("returns qrCodeImage as a base64 PNG when generateQrCode is true", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["generateQrCode"] = true }), "")
		expectBase64PNG(stringField(c.r, "qrCodeImage"), "qrCodeImage")
		expectDynamicBRCode(c.pixCode, "pixCode")
	})

	/*
		Check: cash-in/body-invalid
		Spec: "Endpoints > POST /api/pix/cash-in" (body table); "Errors > Cash-out and cash-in codes", 400 HTTP_ERROR (message lists each problem) and the other causes of cash-in 400 (empty description or externalId; expirationTime outside 30..604800; splits sum above the transaction amount); "Limits" (description max 140; payer.fullName max 100; additionalInfo max 10 keys; splits max 10 items, name max 255, value min 0.01); "Errors > Shapes", item 2
		Description: A cash-in whose body breaks one rule (an empty description, an empty
		externalId, expirationTime 29 or 604801, two splits summing above the value, 11 splits,
		11 additionalInfo keys, payer.document of 10 digits, a description of 141 characters, a
		payer.fullName of 101, a split name of 256, a split value of 0.00) MUST be answered 400
		with code HTTP_ERROR, message an array of strings one of which names the field; as the
		control, the same body with the fault undone, at the limit where the rule has one (a
		description, a fresh externalId, expirationTime 30 or 604800, two splits summing to the
		value, 10 splits, 10 keys, a CPF of 11 digits, a description of exactly 140 characters, a
		fullName of 100, a split name of 255, a split value of 0.01) MUST be accepted (201,
		PENDING): each limit exactly and one step past it.
	*/
	ginkgo.DescribeTable("rejects a body that breaks a rule with 400 HTTP_ERROR naming the field:",
		func(ctx ginkgo.SpecContext, field string, fault, control func(m, tr, payer map[string]any)) {
			r := postCashIn(ctx, f, cashInRequest(f, "1.00", fault), "")
			expectCashOutError(r, "HTTP_ERROR")
			expectMessageNames(r, field)
			ginkgo.By("the control: the same body without the fault is accepted")
			controlCashIn(ctx, f, "the same body without the fault", cashInRequest(f, "1.00", fault, control))
		},
		ginkgo.Entry("an empty description", framework.Spec, "transaction.description",
			func(_, tr, _ map[string]any) { tr["description"] = "" }, func(_, tr, _ map[string]any) { tr["description"] = "d" }),
		ginkgo.Entry("an empty externalId", framework.Spec, "transaction.externalId",
			func(_, tr, _ map[string]any) { tr["externalId"] = "" }, func(_, tr, _ map[string]any) { tr["externalId"] = f.UniqueID("conformance") }),
		ginkgo.Entry("expirationTime 29", framework.Spec, "transaction.expirationTime",
			func(_, tr, _ map[string]any) { tr["expirationTime"] = 29 }, func(_, tr, _ map[string]any) { tr["expirationTime"] = 30 }),
		ginkgo.Entry("expirationTime 604801", framework.Spec, "transaction.expirationTime",
			func(_, tr, _ map[string]any) { tr["expirationTime"] = 604801 }, func(_, tr, _ map[string]any) { tr["expirationTime"] = 604800 }),
		ginkgo.Entry("splits summing above the value", framework.Spec, "splits", func(m, _, _ map[string]any) {
			m["splits"] = []map[string]any{splitItem(f, "FIXED", "0.60", true), splitItem(f, "FIXED", "0.50", true)}
		}, func(m, _, _ map[string]any) {
			m["splits"] = []map[string]any{splitItem(f, "FIXED", "0.50", true), splitItem(f, "FIXED", "0.50", true)}
		}),
		ginkgo.Entry("11 splits", framework.Spec, "splits", func(m, _, _ map[string]any) {
			items := make([]map[string]any, 11)
			for i := range items {
				items[i] = splitItem(f, "FIXED", "0.01", true)
			}
			m["splits"] = items
		}, func(m, _, _ map[string]any) { m["splits"] = m["splits"].([]map[string]any)[:10] }),
		ginkgo.Entry("11 additionalInfo keys", framework.Spec, "additionalInfo", func(m, _, _ map[string]any) {
			info := map[string]string{}
			for i := range 11 {
				info[fmt.Sprintf("key%02d", i)] = "value"
			}
			m["additionalInfo"] = info
		}, func(m, _, _ map[string]any) { delete(m["additionalInfo"].(map[string]string), "key10") }),
		ginkgo.Entry("a payer.document of 10 digits", framework.Spec, "payer.document",
			func(_, _, payer map[string]any) { payer["document"] = sampleCPF[:10] }, func(_, _, payer map[string]any) { payer["document"] = sampleCPF }),
		ginkgo.Entry("a description of 141 characters", framework.Spec, "transaction.description",
			func(_, tr, _ map[string]any) { tr["description"] = strings.Repeat("d", 141) },
			func(_, tr, _ map[string]any) { tr["description"] = strings.Repeat("d", 140) }),
		ginkgo.Entry("a payer.fullName of 101 characters", framework.Spec, "payer.fullName",
			func(_, _, payer map[string]any) { payer["fullName"] = strings.Repeat("n", 101) },
			func(_, _, payer map[string]any) { payer["fullName"] = strings.Repeat("n", 100) }),
		ginkgo.Entry("a split name of 256 characters", framework.Spec, "splits", func(m, _, _ map[string]any) {
			sp := splitItem(f, "FIXED", "0.50", true)
			sp["name"] = strings.Repeat("n", 256)
			m["splits"] = []map[string]any{sp}
		}, func(m, _, _ map[string]any) { m["splits"].([]map[string]any)[0]["name"] = strings.Repeat("n", 255) }),
		ginkgo.Entry("a split value of 0.00", framework.Spec, "splits", func(m, _, _ map[string]any) {
			m["splits"] = []map[string]any{splitItem(f, "FIXED", "0.00", true)}
		}, func(m, _, _ map[string]any) { m["splits"].([]map[string]any)[0]["value"] = json.Number("0.01") }),
	)

	/*
		Check: cash-in/limits-accepted
		Spec: "Endpoints > POST /api/pix/cash-in" (expirationTime min 30, max 604800; splits max 10 items, sum not above the amount); "Limits" (additionalInfo max 10 keys)
		Description: A cash-in at each limit (expirationTime 604800; 10 splits summing exactly to
		the value; 10 additionalInfo keys) MUST be answered 201 with status PENDING.
	*/
	ginkgo.DescribeTable("accepts a charge at the limit:",
		func(ctx ginkgo.SpecContext, mod func(m, tr, payer map[string]any)) {
			acceptCashIn(ctx, f, cashInRequest(f, "1.00", mod), "")
		},
		ginkgo.Entry("expirationTime 604800", framework.Spec, func(_, tr, _ map[string]any) { tr["expirationTime"] = 604800 }),
		ginkgo.Entry("10 splits summing to the value", framework.Spec, func(m, _, _ map[string]any) {
			items := make([]map[string]any, 10)
			for i := range items {
				items[i] = splitItem(f, "FIXED", "0.10", true)
			}
			m["splits"] = items
		}),
		ginkgo.Entry("10 additionalInfo keys", framework.Spec, func(m, _, _ map[string]any) {
			info := map[string]string{}
			for i := range 10 {
				info[fmt.Sprintf("key%02d", i)] = "value"
			}
			m["additionalInfo"] = info
		}),
	)

	/*
		Check: cash-in/invalid-amount
		Spec: "Errors > Cash-out and cash-in codes", PIX_INVALID_AMOUNT (amount below 0.01 or more than 2 decimals); "Limits", transaction.value
		Description: A cash-in whose transaction.value is 0.001 or 0 MUST be answered 400 with
		PIX_INVALID_AMOUNT (in code or errorCode); as the control, the same body with the value
		0.01 (the minimum, 2 decimals) MUST be accepted (201, PENDING).
	*/
	ginkgo.DescribeTable("rejects with 400 PIX_INVALID_AMOUNT a value",
		func(ctx ginkgo.SpecContext, value string) {
			m := cashInRequest(f, value)
			expectCashOutError(postCashIn(ctx, f, m, ""), "PIX_INVALID_AMOUNT")
			ginkgo.By("the control: the same body with the value 0.01 is accepted")
			m["transaction"].(map[string]any)["value"] = json.Number("0.01")
			controlCashIn(ctx, f, "the same body with the value 0.01", m)
		},
		ginkgo.Entry("of 3 decimals (0.001)", framework.Spec, "0.001"),
		ginkgo.Entry("of 0", framework.Spec, "0"),
	)

	/*
		Check: cash-in/duplicate-external-id
		Spec: "Errors > Cash-out and cash-in codes", PIX_DUPLICATE_EXTERNAL_ID (status 400, not 409; details holds externalId and existingTransactionId (number)); "Endpoints > POST /api/pix/cash-in" (transaction.externalId unique per account)
		Description: A second cash-in with the externalId of an accepted one MUST be answered 400
		(not 409) with PIX_DUPLICATE_EXTERNAL_ID (in code or errorCode), with
		details.externalId equal to the externalId and details.existingTransactionId a JSON number
		(on a sandbox, the number of the first charge's transactionId, Gap G-41).
	*/
	framework.SpecIt("rejects a reused externalId with 400 PIX_DUPLICATE_EXTERNAL_ID naming the existing charge", func(ctx ginkgo.SpecContext) {
		m := cashInRequest(f, "25.00")
		first := acceptCashIn(ctx, f, m, "")
		r := postCashIn(ctx, f, m, "")
		expectCashOutError(r, "PIX_DUPLICATE_EXTERNAL_ID")
		gomega.Expect(r).To(framework.HaveJSONField("details.externalId", cashInExternalID(m)))
		gomega.Expect(r).To(framework.HaveJSONNumber("details.existingTransactionId"))
		if f.ControlPlane {
			gomega.Expect(r).To(framework.HaveJSONField("details.existingTransactionId", json.Number(first.id)))
		}
	})

	/*
		Check: cash-in/provider-minimum
		Spec: "Endpoints > POST /api/pix/cash-in" (transaction.expirationTime: min 30); "Limits" (expirationTime 30 to 604800 seconds)
		Gap G-33: per-provider minimum expiration values are "not shown" (docs/spec-gaps.md); the sandbox's default minimum is the contract's floor of 30 s
		Description: With the account's default settings, a cash-in with expirationTime 30 (the
		contract's floor) MUST be accepted (201) with expirationDate 30 seconds after generateTime,
		and one with expirationTime 29 MUST be answered 400 HTTP_ERROR naming
		transaction.expirationTime.
	*/
	framework.SandboxChoiceIt("accepts expirationTime 30, the contract's floor, with the default provider minimum", func(ctx ginkgo.SpecContext) {
		r := postCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 30 }), "")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		expectLifetime(r, 30*time.Second)
		r = postCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 29 }), "")
		expectCashOutError(r, "HTTP_ERROR")
		expectMessageNames(r, "transaction.expirationTime")
	})

	/*
		Check: cash-in/provider-minimum-settings
		Spec: "Errors > Cash-out and cash-in codes", PROVIDER_EXPIRATION_BELOW_MINIMUM
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"minExpirationTime":300} (Gap G-33)
		Description: With the account's minimum set to 300 seconds, a cash-in with expirationTime
		299 MUST be answered 400 with PROVIDER_EXPIRATION_BELOW_MINIMUM and
		details.minimumExpirationTime 300, and one with expirationTime 300 MUST be accepted.
	*/
	framework.SandboxIt("rejects an expirationTime below the minimum set in the account settings with 400 PROVIDER_EXPIRATION_BELOW_MINIMUM", func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{MinExpirationTime: 300})
		r := postCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 299 }), "")
		expectCashOutError(r, "PROVIDER_EXPIRATION_BELOW_MINIMUM")
		gomega.Expect(r).To(framework.HaveJSONField("details.minimumExpirationTime", 300))
		acceptCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 300 }), "")
	})

	/*
		Check: cash-in/provider-failure
		Spec: "Errors > Cash-out and cash-in codes", 500 HTTP_ERROR (failure to reach the PIX provider on cash-in; retry); "Errors > Shapes", item 2
		Sandbox: X-Sandbox-Scenario: PROVIDER_FAILURE
		Description: A valid cash-in carrying PROVIDER_FAILURE MUST be answered 500 with code
		HTTP_ERROR, and the same body without the scenario MUST then be
		accepted (nothing was created).
	*/
	framework.SandboxIt("answers the PROVIDER_FAILURE scenario with 500 HTTP_ERROR", func(ctx ginkgo.SpecContext) {
		m := cashInRequest(f, "25.00")
		r := postCashIn(ctx, f, m, "PROVIDER_FAILURE")
		gomega.Expect(r).To(framework.HaveStatus(http.StatusInternalServerError))
		gomega.Expect(r).To(framework.HaveErrorCode("HTTP_ERROR"))
		acceptCashIn(ctx, f, m, "")
	})

	/*
		Check: cash-in/identifiers
		Gap G-41: the form of a cash-in charge's identifiers is "not shown" (docs/spec-gaps.md); the sandbox answers transactionId as the transaction's number in text, correlationId a UUID v4, and keeps the charge's own txid of 32 hex characters
		Sandbox: GET /_sandbox/transactions/{id}
		Description: An accepted cash-in MUST carry transactionId of digits only and correlationId a
		version 4 UUID; GET /_sandbox/transactions/{transactionId} MUST read the charge (kind
		CASH_IN, status PENDING, the externalId) with txId of 32 lowercase hexadecimal characters.
	*/
	framework.SandboxIt("numbers a charge, gives it a UUID v4 correlationId and a 32-hex txid", framework.SandboxChoice, func(ctx ginkgo.SpecContext) {
		m := cashInRequest(f, "25.00")
		c := acceptCashIn(ctx, f, m, "")
		gomega.Expect(c.id).To(gomega.MatchRegexp(`^[0-9]+$`), "transactionId")
		gomega.Expect(c.correlationID).To(gomega.MatchRegexp(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), "correlationId")
		tx := transaction(ctx, f, c.id)
		gomega.Expect(tx.ID.String()).To(gomega.Equal(c.id))
		gomega.Expect(tx.Kind).To(gomega.Equal("CASH_IN"))
		gomega.Expect(tx.Status).To(gomega.Equal("PENDING"))
		gomega.Expect(tx.ExternalID).To(gomega.Equal(cashInExternalID(m)))
		gomega.Expect(tx.TxID).To(gomega.MatchRegexp(`^[0-9a-f]{32}$`), "txId of the charge")
	})

	/*
		Check: cash-in/br-code-form
		Gap G-42: the BR Code's contents beyond the EMV rules are the issuer's (docs/spec-gaps.md); the sandbox issues dynamic codes: point of initiation 12, location qr.pixsandbox.example/qr/v2/<32 hex>, MCC 0000, no amount, city SAO PAULO, 62-05 ***
		Description: The pixCode of a cash-in MUST be a valid BR Code with 01 = 12, 26-25 =
		qr.pixsandbox.example/qr/v2/ followed by 32 lowercase hexadecimal characters, 52 = 0000, no
		field 54, 59 the account holder's name (on a sandbox) with accents removed and at most 25
		characters, 60 = SAO PAULO and 62-05 = ***.
	*/
	framework.SandboxChoiceIt("issues a dynamic BR Code with the sandbox's location, no amount and 62-05 ***", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		expectSandboxBRCode(f, c.pixCode, "pixCode")
	})

	/*
		Check: cash-in/paid
		Spec: "States and transitions > Cash-in charge" (PENDING → CONFIRMED when the payer pays: webhook sent); "Events > Other emissions" (POST /api/pix/cash-in: a webhook when the charge is paid); "What the service does", balance effects (PIX in: available increases and a RECEIVE webhook with status LIQUIDATED is sent); "Versioning" (webhook payloads are the V2 envelope)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"cashInFee":0.50}; POST /_sandbox/webhook-targets (cash_in); POST /_sandbox/payments {pixCode} (Gap G-40); GET /_sandbox/transactions/{id} (txId)
		Description: Paying a charge of 25.00 by its pixCode with a cash-in fee of 0.50 MUST be
		answered 201 with amount 25.00, feeAmount 0.50 and finalAmount 24.50; the charge MUST then
		be CONFIRMED with fee 0.50, available MUST have grown by 24.50 (value − fee) with blocked
		unchanged, and the cash_in target MUST receive a RECEIVE webhook with data.status LIQUIDATED
		whose data.txId is the charge's.
	*/
	framework.SandboxIt("confirms a charge paid by its pixCode, credits value − fee and sends a RECEIVE webhook", framework.Webhook, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{CashInFee: "0.50"})
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		gomega.Expect(transaction(ctx, f, c.id).Status).To(gomega.Equal("PENDING"), "before the payment")
		before := f.Balance(ctx)

		res := pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode, Payer: externalPayer(ctx, f)})
		gomega.Expect(res.Amount).To(gomega.Equal(json.Number("25.00")), "amount paid")
		gomega.Expect(res.FeeAmount).To(gomega.Equal(json.Number("0.50")), "feeAmount")
		gomega.Expect(res.FinalAmount).To(gomega.Equal(json.Number("24.50")), "finalAmount")
		tx := transaction(ctx, f, c.id)
		gomega.Expect(tx.Status).To(gomega.Equal("CONFIRMED"), "after the payment")
		gomega.Expect(tx.Fee).To(gomega.Equal(json.Number("0.50")), "fee of the charge")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 2450, Blocked: before.Blocked}, "after the payment")

		d := awaitWebhook(ctx, f, f.Webhooks, false, "data.txId", tx.TxID)
		gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
	})

	/*
		Check: cash-in/webhook-shape
		Gap G-38: the flat cash_in payload is an option (docs/spec-gaps.md; the default is V2 RECEIVE); it mirrors the CashOut payload with event CashIn and movementType CREDIT
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"cashInFee":0.50, "cashInWebhook":"CashIn"}; POST /_sandbox/webhook-targets (cash_in); POST /_sandbox/payments {transactionId, payer}
		Description: With the account's cashInWebhook setting CashIn, once a charge of 25.00 with two
		additionalInfo pairs is paid (cash-in fee 0.50), its CashIn webhook MUST carry event CashIn, status CONFIRMED, transactionType PIX,
		movementType CREDIT, transactionId equal to the charge's (numeric text), externalId,
		correlationId, endToEndId equal to the payment's (Central Bank form), feeAmount 0.50,
		originalAmount 25.00 and finalAmount 24.50 as JSON numbers, processingDate in ISO 8601,
		errorCode and errorMessage null, counterpart.name the payer's name, counterpart.document the
		payer's document masked, counterpart.bank.bankISPB the payer's ISPB with bankName and
		bankCode strings and accountBranch and accountNumber string or null, and metadata equal to
		additionalInfo.
	*/
	framework.SandboxIt("sends the CashIn webhook with every field of the sandbox's payload", framework.SandboxChoice, framework.Webhook, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{CashInFee: "0.50"})
		setCashInWebhook(ctx, f, f.Identity.ID, "CashIn")
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		info := map[string]any{"order": "A-1", "channel": "conformance"}
		m := cashInRequest(f, "25.00", func(m, _, _ map[string]any) { m["additionalInfo"] = info })
		c := acceptCashIn(ctx, f, m, "")
		payer := externalPayer(ctx, f)
		res := pay(ctx, f, sandbox.PaymentRequest{TransactionID: c.id, Payer: payer})

		d := awaitWebhook(ctx, f, f.Webhooks, false, "transactionId", c.id)
		expectCashInWebhook(d, c, m, 50, "CONFIRMED")
		gomega.Expect(d).To(framework.HaveJSONField("endToEndId", res.EndToEndID))
		gomega.Expect(brl(moneyField(d, "finalAmount"))).To(gomega.Equal("24.50"), "finalAmount")
		gomega.Expect(d).To(framework.HaveJSONField("counterpart.name", payer.Name))
		gomega.Expect(d).To(framework.HaveJSONField("counterpart.document", gomega.Not(gomega.Equal(payer.Document))), "the document is masked")
		gomega.Expect(d).To(framework.HaveJSONField("counterpart.bank.bankISPB", payer.ISPB))
		gomega.Expect(d).To(framework.HaveJSONField("metadata", info))
	})

	/*
		Check: cash-in/paid-twice
		Spec: "States and transitions > Cash-in charge" (CONFIRMED is reached once)
		Sandbox: POST /_sandbox/payments (Gap G-40: a paid charge is 409)
		Description: A second payment of a CONFIRMED charge MUST be refused with 409, and available
		MUST not change.
	*/
	framework.SandboxIt("refuses a second payment of a paid charge with 409", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		pay(ctx, f, sandbox.PaymentRequest{TransactionID: c.id})
		after := f.Balance(ctx)
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode}, http.StatusConflict, "a paid charge")
		gomega.Expect(transaction(ctx, f, c.id).Status).To(gomega.Equal("CONFIRMED"))
		expectBalance(f.Balance(ctx), after, "after the refused payment")
	})

	/*
		Check: cash-in/wrong-amount
		Spec: "Endpoints > POST /api/pix/cash-in" (transaction.value: the charge's amount)
		Sandbox: POST /_sandbox/payments {amount} (Gap G-40: a wrong amount is 422)
		Description: Paying a charge of 25.00 with 24.99 MUST be refused with 422, leaving the
		charge PENDING and available unchanged.
	*/
	framework.SandboxIt("refuses a payment of another amount with 422", func(ctx ginkgo.SpecContext) {
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "")
		before := f.Balance(ctx)
		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode, Amount: "24.99"}, http.StatusUnprocessableEntity, "24.99 for 25.00")
		gomega.Expect(transaction(ctx, f, c.id).Status).To(gomega.Equal("PENDING"))
		expectBalance(f.Balance(ctx), before, "after the refused payment")
	})

	/*
		Check: cash-in/expired
		Gap G-37: the state of a cash-in charge after expiry is "not shown" (docs/spec-gaps.md); the sandbox ends it in ERROR with PAYMENT_EXPIRED, sends a CashIn webhook with status ERROR (with the flat shape; RECEIVE with status ERROR by default, Gap G-38) and refuses later payments (409)
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"cashInWebhook":"CashIn"}; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}; POST /_sandbox/webhook-targets (cash_in); POST /_sandbox/payments
		Description: With the account's cashInWebhook setting CashIn, a charge with expirationTime 60 MUST still be PENDING 59 seconds later and MUST
		be ERROR with errorCode PAYMENT_EXPIRED 60 seconds after creation; a CashIn webhook with
		status ERROR, errorCode PAYMENT_EXPIRED, a non-empty errorMessage and endToEndId null MUST
		follow; a payment then MUST be refused with 409 and available MUST not change.
	*/
	framework.SandboxIt("ends a charge unpaid at expirationDate in ERROR PAYMENT_EXPIRED", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		setCashInWebhook(ctx, f, f.Identity.ID, "CashIn")
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		m := cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 60 })
		c := acceptCashIn(ctx, f, m, "")
		before := f.Balance(ctx)

		_, err := f.Sandbox.Advance(ctx, 59)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(transaction(ctx, f, c.id).Status).To(gomega.Equal("PENDING"), "59 s after creation")

		d := awaitWebhookAfter(ctx, f, f.Webhooks, time.Second, "transactionId", c.id)
		tx := transaction(ctx, f, c.id)
		gomega.Expect(tx.Status).To(gomega.Equal("ERROR"), "60 s after creation")
		gomega.Expect(tx.ErrorCode).To(gomega.Equal("PAYMENT_EXPIRED"))
		expectCashInWebhook(d, c, m, 0, "ERROR")
		gomega.Expect(d).To(framework.HaveJSONField("errorCode", "PAYMENT_EXPIRED"))
		gomega.Expect(d).To(framework.HaveJSONField("errorMessage", nonEmptyString()))
		gomega.Expect(d).To(framework.HaveJSONField("endToEndId", nil))

		expectPaymentRefused(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode}, http.StatusConflict, "an expired charge")
		expectBalance(f.Balance(ctx), before, "after expiry and the refused payment")
	})

	/*
		Check: cash-in/auto-payment
		Spec: "States and transitions > Cash-in charge" (PENDING → CONFIRMED when the payer pays)
		Sandbox: X-Sandbox-Scenario: AUTO_PAYMENT (a payer pays 10 s after creation); POST /_sandbox/clock/advance
		Description: A charge carrying AUTO_PAYMENT MUST still be PENDING 9 seconds after creation
		and MUST be CONFIRMED 10 seconds after it, with available grown by the value less the
		account's cash-in fee.
	*/
	framework.SandboxIt("confirms an AUTO_PAYMENT charge 10 s after creation", ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		fee := cashInFee(ctx, f)
		before := f.Balance(ctx)
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00"), "AUTO_PAYMENT")
		_, err := f.Sandbox.Advance(ctx, 9)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(transaction(ctx, f, c.id).Status).To(gomega.Equal("PENDING"), "9 s after creation")
		f.AwaitSettled(ctx, time.Second, func(g gomega.Gomega) {
			tx, err := f.Sandbox.Transaction(ctx, c.id)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(tx.Status).To(gomega.Equal("CONFIRMED"), "10 s after creation")
		})
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 2500 - fee, Blocked: before.Blocked}, "after the automatic payment")
	})

	/*
		Check: cash-in/late-payment
		Spec: "States and transitions > Cash-in charge" (CONFIRMED only by a payment)
		Gap G-37: a charge unpaid at expirationDate ends ERROR PAYMENT_EXPIRED and refuses later payments
		Sandbox: X-Sandbox-Scenario: LATE_PAYMENT (a payment 1 s after expiry); POST /_sandbox/clock/advance
		Description: A charge with expirationTime 60 carrying LATE_PAYMENT MUST, 61 seconds after
		creation, be ERROR with PAYMENT_EXPIRED and available MUST not have changed: the late
		payment is refused.
	*/
	framework.SandboxIt("refuses the LATE_PAYMENT payer of a charge that expired", framework.SandboxChoice, ginkgo.Serial, func(ctx ginkgo.SpecContext) {
		before := f.Balance(ctx)
		c := acceptCashIn(ctx, f, cashInRequest(f, "25.00", func(_, tr, _ map[string]any) { tr["expirationTime"] = 60 }), "LATE_PAYMENT")
		_, err := f.Sandbox.Advance(ctx, 61)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		tx := transaction(ctx, f, c.id)
		gomega.Expect(tx.Status).To(gomega.Equal("ERROR"), "61 s after creation")
		gomega.Expect(tx.ErrorCode).To(gomega.Equal("PAYMENT_EXPIRED"))
		expectBalance(f.Balance(ctx), before, "after the late payment")
	})

	/*
		Check: cash-in/paid-by-transfer
		Spec: "States and transitions > Cash-in charge" (PENDING → CONFIRMED when the payer pays: webhook sent)
		Gap G-39: a txId in the POST /dict/pix body is "not shown" (docs/spec-gaps.md); the sandbox lets a transfer to a key of the receiving sandbox account name its cash-in charge by the txid GET /_sandbox/transactions/{id} shows, and settlement pays it
		Sandbox: a second account from POST /_sandbox/accounts; GET /_sandbox/transactions/{id} (txId); POST /_sandbox/webhook-targets (cash_out for the payer, cash_in for the receiver); POST /_sandbox/clock/advance
		Description: A transfer of 25.00 from the spec's account to the EVP key of another sandbox
		account, with txId the txid of that account's PENDING charge of 25.00, MUST once settled
		confirm the charge, send the receiver's cash_in target a RECEIVE webhook with data.status
		LIQUIDATED and data.txId the charge's, raise the receiver's available by 25.00 (its cash-in fee 0.00) and
		leave the payer's available lower by 25.00 with blocked back to its value.
	*/
	framework.SandboxIt("confirms a charge paid by another sandbox account's POST /dict/pix naming its txid", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		receiver, inboxIn := peerAccount(ctx, f, eventCashIn)
		receiverToken := f.TokenFor(ctx, framework.IdentityOf(receiver))
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")

		r := f.Do(ctx, http.MethodPost, cashInPath, receiverToken, encodeJSON(cashInRequest(f, "25.00")), nil)
		gomega.Expect(r).To(framework.HaveStatus(http.StatusCreated))
		id := stringField(r, "transactionId")
		txid := transaction(ctx, f, id).TxID
		gomega.Expect(txid).NotTo(gomega.BeEmpty(), "txId of charge %s", id)
		before := f.Balance(ctx)

		idem := framework.UUIDv4()
		acceptTransfer(ctx, f, idem, transferBody(evpKey(receiver), "25.00", func(m map[string]any) { m["txId"] = txid }), "")
		out := awaitWebhook(ctx, f, f.Webhooks, true, "data.idempotencyKey", idem)
		gomega.Expect(out).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		in := awaitWebhook(ctx, f, inboxIn, false, "data.txId", txid)
		gomega.Expect(in).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(in).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(transaction(ctx, f, id).Status).To(gomega.Equal("CONFIRMED"))
		expectBalance(f.BalanceOf(ctx, receiverToken), framework.Balance{Available: 10000 + 2500, Blocked: 0}, "of the receiving account")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available - 2500, Blocked: before.Blocked}, "of the paying account")
	})

	/*
		Check: cash-in/splits-immediate
		Spec: "Endpoints > POST /api/pix/cash-in" (splits: FIXED in BRL, PERCENTAGE of the gross amount; immediate true executes the split right after confirmation; any remainder after splits stays with the account); "States and transitions > Cash-in charge" (splits executed if present)
		Gap G-34: the sandbox pays each split as a SPLIT transaction (a PIX out: hold, settlement, a CashOut webhook to cash_out targets), after the cash-in fee
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"cashInFee":0.50}; POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/payments; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: Paying a charge of 100.00 with an immediate FIXED split of 10.00 and an
		immediate PERCENTAGE split of 25 (a cash-in fee of 0.50) MUST at once hold 35.00 (available
		+ 100.00 − 0.50 − 35.00, blocked + 35.00); once settled, the cash_out target MUST receive a
		CashOut webhook with status CONFIRMED per split, whose transactionId names a SPLIT
		transaction related to the charge, CONFIRMED, of 10.00 and 25.00; blocked MUST be back to its
		value, and the value MUST equal the splits paid plus the remainder credited plus the fee,
		to the centavo.
	*/
	framework.SandboxIt("pays immediate FIXED and PERCENTAGE splits at confirmation and keeps the remainder", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		putSettings(ctx, f, sandbox.SettingsUpdate{CashInFee: "0.50"})
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fixed, pct := splitItem(f, "FIXED", "10.00", true), splitItem(f, "PERCENTAGE", "25", true)
		c := acceptCashIn(ctx, f, cashInRequest(f, "100.00", withSplits(fixed, pct)), "")
		before := f.Balance(ctx)

		pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 10000 - 50 - 3500, Blocked: before.Blocked + 3500}, "right after the payment")

		splits := splitTransactions(ctx, f, f.Webhooks, true, splitKey(fixed), splitKey(pct))
		expectSplit(splits[splitKey(fixed)], c.id, "CONFIRMED", 1000)
		expectSplit(splits[splitKey(pct)], c.id, "CONFIRMED", 2500)
		for _, key := range []string{splitKey(fixed), splitKey(pct)} {
			gomega.Expect(matching(f.Webhooks, "pixKey", key)[0]).To(framework.HaveJSONField("status", "CONFIRMED"))
		}
		after := f.Balance(ctx)
		expectBalance(after, framework.Balance{Available: before.Available + 10000 - 50 - 3500, Blocked: before.Blocked}, "after the splits settled")
		fee := cents(transaction(ctx, f, c.id).Fee)
		gomega.Expect(brl(paidOut(splits)+(after.Available-before.Available)+fee)).To(gomega.Equal("100.00"), "splits paid + remainder credited + fee")
	})

	/*
		Check: cash-in/splits-scheduled
		Spec: "Endpoints > POST /api/pix/cash-in" (splits[].immediate default false: the split follows the account's configured frequency)
		Gap G-34: the frequency is "not shown" (docs/spec-gaps.md); the sandbox pays non-immediate splits when the account's split schedule (a cron spec on the simulation clock) next fires
		Sandbox: PUT /_sandbox/accounts/{id}/settings {"splitSchedule":"CRON_TZ=UTC <m> <h> * * *"}; POST /_sandbox/clock; POST /_sandbox/clock/advance; POST /_sandbox/payments; GET /_sandbox/transactions/{id}
		Description: With the split schedule set to a minute T ahead, paying a charge of 50.00 with
		a FIXED split of 5.00 and a PERCENTAGE split of 20 (neither immediate) MUST credit the whole
		value (less the cash-in fee) and send no CashOut webhook until 1 second before T; at T the
		splits MUST be held (blocked + 15.00) and, once settled, be SPLIT transactions CONFIRMED of
		5.00 and 10.00 related to the charge, with blocked back to its value and the value equal to
		the splits plus the remainder plus the fee.
	*/
	framework.SandboxIt("pays non-immediate splits when the account's split schedule fires", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		clk, err := f.Sandbox.Clock(ctx)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		at := clk.Now.UTC().Truncate(time.Minute).Add(2 * time.Minute)
		putSettings(ctx, f, sandbox.SettingsUpdate{SplitSchedule: fmt.Sprintf("CRON_TZ=UTC %d %d * * *", at.Minute(), at.Hour())})
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := cashInFee(ctx, f)
		fixed, pct := splitItem(f, "FIXED", "5.00", false), splitItem(f, "PERCENTAGE", "20", false)
		c := acceptCashIn(ctx, f, cashInRequest(f, "50.00", withSplits(fixed, pct)), "")
		before := f.Balance(ctx)

		pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})
		_, err = f.Sandbox.SetClock(ctx, at.Add(-time.Second))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(f.Webhooks.Count()).To(gomega.BeZero(), "CashOut webhooks before the schedule fires")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 5000 - fee, Blocked: before.Blocked}, "1 s before the schedule fires")

		_, err = f.Sandbox.SetClock(ctx, at)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 5000 - fee - 1500, Blocked: before.Blocked + 1500}, "when the schedule fires")

		splits := splitTransactions(ctx, f, f.Webhooks, true, splitKey(fixed), splitKey(pct))
		expectSplit(splits[splitKey(fixed)], c.id, "CONFIRMED", 500)
		expectSplit(splits[splitKey(pct)], c.id, "CONFIRMED", 1000)
		after := f.Balance(ctx)
		expectBalance(after, framework.Balance{Available: before.Available + 5000 - fee - 1500, Blocked: before.Blocked}, "after the splits settled")
		gomega.Expect(brl(paidOut(splits)+(after.Available-before.Available)+cents(transaction(ctx, f, c.id).Fee))).To(gomega.Equal("50.00"), "splits paid + remainder credited + fee")
		gomega.Expect(brl(fee)).To(gomega.Equal(brl(cents(transaction(ctx, f, c.id).Fee))), "the charge's fee is the account's cash-in fee")
	})

	/*
		Check: cash-in/splits-rounding
		Spec: "Endpoints > POST /api/pix/cash-in" (PERCENTAGE: direct percent of the gross amount; any remainder after splits stays with the account)
		Gap G-34: rounding is "not shown" (docs/spec-gaps.md); the sandbox rounds a PERCENTAGE split down to the centavo, so splits never pay out more than was received
		Sandbox: POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/payments; POST /_sandbox/clock/advance; GET /_sandbox/transactions/{id}
		Description: Paying a charge of 10.05 with an immediate PERCENTAGE split of 50 MUST pay a
		split of 5.02 (5.025 rounded down), and the remaining 5.03 less the cash-in fee MUST stay in
		available.
	*/
	framework.SandboxIt("rounds a PERCENTAGE split down to the centavo", framework.SandboxChoice, ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := cashInFee(ctx, f)
		half := splitItem(f, "PERCENTAGE", "50", true)
		c := acceptCashIn(ctx, f, cashInRequest(f, "10.05", withSplits(half)), "")
		before := f.Balance(ctx)
		pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})
		splits := splitTransactions(ctx, f, f.Webhooks, true, splitKey(half))
		expectSplit(splits[splitKey(half)], c.id, "CONFIRMED", 502)
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 503 - fee, Blocked: before.Blocked}, "after the split settled")
	})

	/*
		Check: cash-in/split-failure
		Spec: "Endpoints > POST /api/pix/cash-in" (any remainder after splits stays with the account); "Resources > Cash-out webhook payload", errorCode ORDER_REJECTED
		Sandbox: X-Sandbox-Scenario: SPLIT_FAILURE (each split fails at settlement with ORDER_REJECTED); POST /_sandbox/webhook-targets (cash_out); POST /_sandbox/payments; POST /_sandbox/clock/advance
		Description: Paying a charge of 40.00 carrying SPLIT_FAILURE with an immediate FIXED split
		of 15.00 MUST end the split in ERROR with ORDER_REJECTED (a CashOut webhook with status
		ERROR and errorCode ORDER_REJECTED, a SPLIT transaction in ERROR related to the charge) and
		leave the whole value less the cash-in fee in available, blocked back to its value.
	*/
	framework.SandboxIt("leaves the money with the account when a split fails (SPLIT_FAILURE)", ginkgo.Serial, framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashOut, f.Webhooks, "")
		fee := cashInFee(ctx, f)
		fixed := splitItem(f, "FIXED", "15.00", true)
		c := acceptCashIn(ctx, f, cashInRequest(f, "40.00", withSplits(fixed)), "SPLIT_FAILURE")
		before := f.Balance(ctx)
		pay(ctx, f, sandbox.PaymentRequest{PixCode: c.pixCode})

		splits := splitTransactions(ctx, f, f.Webhooks, true, splitKey(fixed))
		expectSplit(splits[splitKey(fixed)], c.id, "ERROR", 1500)
		gomega.Expect(splits[splitKey(fixed)].ErrorCode).To(gomega.Equal("ORDER_REJECTED"))
		d := matching(f.Webhooks, "pixKey", splitKey(fixed))[0]
		gomega.Expect(d).To(framework.HaveJSONField("status", "ERROR"))
		gomega.Expect(d).To(framework.HaveJSONField("errorCode", "ORDER_REJECTED"))
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + 4000 - fee, Blocked: before.Blocked}, "after the failed split")
	})
})

var _ = ginkgo.Describe("POST /_sandbox/pix-in", framework.Res("pix-in"), framework.Sandbox, func() {
	f := framework.New("pix-in")

	/*
		Check: pix-in/credits-key
		Spec: "What the service does", balance effects (PIX in: on settlement available increases by the amount and a RECEIVE webhook with status LIQUIDATED is sent); "Events > Envelope V2", RECEIVE
		Gap G-40: the sandbox credits a PIX received by key through POST /_sandbox/pix-in; G-38: RECEIVE goes to the cash_in targets with txId null
		Sandbox: POST /_sandbox/pix-in {key, amount, payer}; POST /_sandbox/webhook-targets (cash_in)
		Description: A PIX of 12.34 to the EVP key of the spec's account MUST be answered 201 with
		an endToEndId in the Central Bank form, amount 12.34 and finalAmount = amount − feeAmount;
		available MUST grow by finalAmount, and the cash_in target MUST receive a RECEIVE webhook
		with data.txId null, data.status LIQUIDATED, data.payment.amount "12.34", currency BRL,
		data.endToEndId the response's, and data.debtorAccount naming the payer with a masked
		document.
	*/
	framework.SandboxIt("credits a key of a sandbox account and sends a RECEIVE webhook with txId null", framework.Webhook, func(ctx ginkgo.SpecContext) {
		registerTarget(ctx, f, f.Identity.ID, eventCashIn, f.Webhooks, "")
		before := f.Balance(ctx)
		payer := externalPayer(ctx, f)
		res, err := f.Sandbox.PixIn(ctx, sandbox.PaymentRequest{Key: evpKey(f.Account), Amount: "12.34", Payer: payer})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(res.EndToEndID).To(gomega.MatchRegexp(endToEndPattern))
		gomega.Expect(res.Amount).To(gomega.Equal(json.Number("12.34")))
		amount, fee, final := cents(res.Amount), cents(res.FeeAmount), cents(res.FinalAmount)
		gomega.Expect(brl(final)).To(gomega.Equal(brl(amount-fee)), "finalAmount = amount − feeAmount")
		expectBalance(f.Balance(ctx), framework.Balance{Available: before.Available + final, Blocked: before.Blocked}, "after the PIX in")

		d := awaitWebhook(ctx, f, f.Webhooks, false, "data.endToEndId", res.EndToEndID)
		gomega.Expect(d).To(framework.HaveJSONField("type", "RECEIVE"))
		gomega.Expect(d).To(framework.HaveJSONField("data.txId", nil))
		gomega.Expect(d).To(framework.HaveJSONField("data.status", "LIQUIDATED"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.amount", "12.34"))
		gomega.Expect(d).To(framework.HaveJSONField("data.payment.currency", "BRL"))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.name", payer.Name))
		gomega.Expect(d).To(framework.HaveJSONField("data.debtorAccount.document", gomega.And(
			gomega.BeAssignableToTypeOf(""), gomega.Not(gomega.BeEmpty()), gomega.Not(gomega.Equal(payer.Document)))))
	})

	/*
		Check: pix-in/key-outside-sandbox
		Gap G-40: POST /_sandbox/pix-in answers 404 for a key no sandbox account holds
		Sandbox: POST /_sandbox/dict/keys (a key at a participant outside the sandbox); POST /_sandbox/pix-in
		Description: A PIX in to a key registered in the DICT for a holder outside the sandbox, and
		one to a key the DICT does not know, MUST each be answered 404.
	*/
	framework.SandboxIt("answers 404 for a key outside the sandbox", func(ctx ginkgo.SpecContext) {
		e, err := f.Sandbox.RegisterDictKey(ctx, sandbox.DictEntry{Key: freshEmailKey(f), Name: holderName, Document: otherCPF, ISPB: outsideISPB(ctx, f)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, key := range []string{e.Key, freshEmailKey(f)} {
			_, err := f.Sandbox.PixIn(ctx, sandbox.PaymentRequest{Key: key, Amount: "1.00"})
			gomega.Expect(sandbox.ErrorStatus(err)).To(gomega.Equal(http.StatusNotFound), "PIX in to %s: %v", key, err)
		}
	})
})

// cents converts decimal text the control plane answered into centavos.
func cents(n json.Number) int64 {
	ginkgo.GinkgoHelper()
	c, err := apiclient.Cents(n)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return c
}
