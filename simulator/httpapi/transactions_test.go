package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// newAccountToken creates an account with a balance and returns it with a token.
func newAccountToken(t *testing.T, env *simulatortest.Env, balance pix.Cents) (pix.CreatedAccount, string) {
	t.Helper()
	ctx := context.Background()
	a, err := env.Sim.CreateAccount(ctx, pix.NewAccount{Balance: balance})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := env.Sim.IssueToken(ctx, pix.TokenRequest{HasCertHeader: true, CertHeader: pix.EncodeCertHeader(a.Certificate.CertificatePEM),
		ClientID: a.ClientID, ClientSecret: a.ClientSecret}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	return a, tok.AccessToken
}

// TestListings_EveryKind: every kind of transaction appears in the listing with
// its labels, movementType, amounts and a masked counterpart document.
func TestListings_EveryKind(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	sim, ctx := env.Sim, context.Background()
	a, tok := newAccountToken(t, env, 1000_00)
	b, _ := newAccountToken(t, env, 1000_00)
	if _, err := sim.SetAccountSettings(ctx, a.Account.ID, pix.Settings{Fee: 50, CashInFee: 25}); err != nil {
		t.Fatal(err)
	}
	var key, doc string
	for _, k := range env.Fixtures.DICT() {
		if k.Scenario == "" && k.Type == "EMAIL" {
			key, doc = k.Key, k.Document
			break
		}
	}
	advance := func(d time.Duration) {
		if _, err := sim.AdvanceClock(ctx, d, pix.ClockWaitWebhooks); err != nil {
			t.Fatal(err)
		}
	}
	co, err := sim.CreateCashOut(ctx, a.Account.ID, pix.CashOutRequest{Value: "10", ExternalID: "co-1", Key: key, KeyType: "EMAIL", Name: "N", Document: doc}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := sim.CreateTransfer(ctx, a.Account.ID, pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: key, Currency: "BRL", Amount: "5"}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	ci, _, err := sim.CreateCashIn(ctx, a.Account.ID, pix.CashInRequest{Value: "30", Description: "d", ExternalID: "ci-1", PayerName: "P", PayerDocument: "52998224725",
		Splits: []pix.SplitRequest{{PixKey: key, PixKeyType: "EMAIL", Name: "S", Document: doc, Type: "FIXED", Value: "3", Immediate: true}}}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Pay(ctx, pix.Payment{TransactionID: fmt.Sprint(ci.ID)}); err != nil {
		t.Fatal(err)
	}
	in, err := sim.PixIn(ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: "40"})
	if err != nil {
		t.Fatal(err)
	}
	// b pays a, a refunds part of it: a has REFUND_IN, b has REFUND_OUT.
	btr, _, err := sim.CreateTransfer(ctx, b.Account.ID, pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: a.Account.PixKeys[3].Key, Currency: "BRL", Amount: "20"}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Second)
	bIn, _ := sim.Transaction(ctx, fmt.Sprint(btr.ID))
	recv, _ := sim.Transaction(ctx, fmt.Sprint(bIn.RelatedID))
	inTx, _ := sim.Transaction(ctx, fmt.Sprint(in.TransactionID))
	if _, _, err := sim.CreateRefund(ctx, a.Account.ID, pix.RefundOriginal{EndToEndID: recv.EndToEndID}, pix.RefundRequest{ID: "r1", Amount: 2_00, Nature: pix.NatureOriginal}, scenarios.None); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.CreateRefund(ctx, a.Account.ID, pix.RefundOriginal{TransactionID: fmt.Sprint(inTx.ID)}, pix.RefundRequest{ID: "r2", Amount: 1_00, Nature: pix.NatureOriginal}, scenarios.None); err != nil {
		t.Fatal(err)
	}
	m, err := sim.OpenMED(ctx, pix.MEDOpen{AccountID: a.Account.ID, EndToEndID: inTx.EndToEndID, Cause: "SCAM"})
	if err != nil {
		t.Fatal(err)
	}
	sim.AnalyzeMED(ctx, m.ID, pix.MEDResultApproved, "")
	if _, err := sim.RefundMED(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Second)
	tok = refreshToken(t, env, a)

	h := map[string]string{"Authorization": "Bearer " + tok}
	r := apitest.Do(t, "GET", env.URL+"/api/transactions?size=100", nil, h)
	if r.Status != 200 {
		t.Fatalf("listing: %d %s", r.Status, r.Raw)
	}
	seen := map[string]int{}
	for _, raw := range r.Body["data"].([]any) {
		it := raw.(map[string]any)
		op, mv := it["operationType"].(string), it["movementType"].(string)
		seen[op]++
		if (op == "Pix in" || op == "Refund out") != (mv == "CREDIT") || it["status"] != "Confirmado" {
			t.Errorf("item %v: movement or status", it)
		}
		doc := it["counterpart"].(map[string]any)["document"].(string)
		if doc != "" && !strings.Contains(doc, "*") {
			t.Errorf("unmasked document %q", doc)
		}
		for _, f := range []string{"originalAmount", "feeAmount", "finalAmount"} {
			if !strings.Contains(string(mustJSON(it[f])), ".") {
				t.Errorf("%s = %v: not 2 decimals", f, it[f])
			}
		}
	}
	// cash-out, transfer, split: Pix out; cash-in, pix-in, received transfer: Pix in; 3 refunds (2 + MED): Refund in.
	if seen["Pix out"] != 3 || seen["Pix in"] != 3 || seen["Refund in"] != 3 {
		t.Fatalf("kinds = %v", seen)
	}
	// amounts: the cash-out of 10.00 with a 0.50 fee has finalAmount 10.50; the charge of 30.00 with 0.25 cash-in fee 29.75.
	one := func(q string) map[string]any {
		r := apitest.Do(t, "GET", env.URL+"/api/transactions?"+q, nil, h)
		if r.Status != 200 || len(r.Body["data"].([]any)) != 1 {
			t.Fatalf("?%s = %d %s", q, r.Status, r.Raw)
		}
		return r.Body["data"].([]any)[0].(map[string]any)
	}
	if it := one("externalId=co-1"); string(mustJSON(it["finalAmount"])) != "10.50" || it["transactionId"] != fmt.Sprint(co.ID) {
		t.Errorf("cash-out item = %v", it)
	}
	if it := one("externalId=ci-1"); string(mustJSON(it["finalAmount"])) != "29.75" {
		t.Errorf("cash-in item = %v", it)
	}
	trTx, _ := sim.Transaction(ctx, fmt.Sprint(tr.ID))
	one("endToEndId=" + trTx.EndToEndID)
	one("type=REFUND_IN&size=1&page=3")
	// A refund's externalId is its refund id, on both refund routes.
	if it := one("externalId=r1"); it["operationType"] != "Refund in" || it["externalId"] != "r1" {
		t.Errorf("refund item = %v", it)
	}
	// b sees its refund received (Refund out, a credit).
	btok := refreshToken(t, env, b)
	rb := apitest.Do(t, "GET", env.URL+"/api/transactions?type=REFUND_OUT", nil, map[string]string{"Authorization": "Bearer " + btok})
	if rb.Status != 200 || len(rb.Body["data"].([]any)) != 1 || rb.Body["data"].([]any)[0].(map[string]any)["movementType"] != "CREDIT" {
		t.Fatalf("b's refund out = %s", rb.Raw)
	}
	// The key listing: a's key received 40.00 by pix-in; + sent raw or as %2B for phones.
	rk := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/"+url.PathEscape(a.Account.PixKeys[1].Key), nil, h)
	if rk.Status != 200 || rk.Body["metadata"].(map[string]any)["total"].(json.Number).String() != "1" {
		t.Fatalf("key listing = %s", rk.Raw)
	}
	phone := a.Account.PixKeys[2].Key
	for _, p := range []string{phone, "%2B" + phone[1:]} {
		if r := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/"+p, nil, h); r.Status != 200 {
			t.Fatalf("phone key %q: %d %s", p, r.Status, r.Raw)
		}
	}
}

func refreshToken(t *testing.T, env *simulatortest.Env, a pix.CreatedAccount) string {
	t.Helper()
	tok, err := env.Sim.IssueToken(context.Background(), pix.TokenRequest{HasCertHeader: true, CertHeader: pix.EncodeCertHeader(a.Certificate.CertificatePEM),
		ClientID: a.ClientID, ClientSecret: a.ClientSecret}, scenarios.None)
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestListings_Parameters(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	h := map[string]string{"Authorization": "Bearer " + apitest.TokenFor(t, env, 0)}
	for q, field := range map[string]string{
		"page=0": "page", "size=0": "size", "size=101": "size", "status=DONE": "status", "type=PIX": "type",
		"startDate=x": "startDate", "endDate=2026-02-30": "endDate", "startDate=2026-01-01&endDate=2026-02-02": "endDate",
		"startDate=2026-03-02&endDate=2026-03-01": "startDate",
		"startDate=2026-01-29":                    "endDate", // endDate defaults to the current date (2026-03-02): 32 days
	} {
		r := apitest.Do(t, "GET", env.URL+"/api/transactions?"+q, nil, h)
		if r.Status != 400 || !strings.HasPrefix(r.Body["message"].(string), field) {
			t.Errorf("?%s = %d %s", q, r.Status, r.Raw)
		}
	}
	for _, q := range []string{"startDate=2026-02-01&endDate=2026-03-04", "size=100", "startDate=2026-01-30", "startDate=2026-02-01T00:00:00Z&endDate=2026-03-04T00:00:00Z"} {
		if r := apitest.Do(t, "GET", env.URL+"/api/transactions?"+q, nil, h); r.Status != 200 {
			t.Errorf("?%s = %d %s", q, r.Status, r.Raw)
		}
	}
	if r := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/x@y.com?size=1000", nil, h); r.Status != 200 {
		t.Errorf("key size 1000 = %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/x@y.com?size=1001", nil, h); r.Status != 400 {
		t.Errorf("key size 1001 = %d", r.Status)
	}
	if r := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/not-a-key", nil, h); r.Status != 400 {
		t.Errorf("bad key = %d", r.Status)
	}
	r := apitest.Do(t, "GET", env.URL+"/api/transactions", nil, h)
	md := r.Body["metadata"].(map[string]any)
	if md["page"].(json.Number).String() != "1" || md["size"].(json.Number).String() != "20" || md["hasNext"] != false || md["hasPrevious"] != false {
		t.Fatalf("defaults = %v", md)
	}
}

func TestResendAndRegistration(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	sim, ctx := env.Sim, context.Background()
	a, tok := newAccountToken(t, env, 100_00)
	h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	var mu sync.Mutex
	var ids []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		ids = append(ids, r.Header.Get("webhook-id"))
		mu.Unlock()
		w.WriteHeader(202)
	}))
	defer recv.Close()
	if _, _, err := sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: recv.URL, EventType: webhook.EventCashIn, Active: true}, false); err != nil {
		t.Fatal(err)
	}
	res, err := sim.PixIn(ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: "10"})
	if err != nil {
		t.Fatal(err)
	}
	sim.AdvanceClock(ctx, 0, pix.ClockWaitWebhooks)
	// By number, by end-to-end id, to the registered target and to a one-off URL: the same event id.
	for _, c := range []struct{ ident, body string }{{fmt.Sprint(res.TransactionID), ""}, {res.EndToEndID, `{"url":"` + recv.URL + `/once"}`}} {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/"+c.ident, body, h)
		if r.Status != 200 || r.Body["statusCode"].(json.Number).String() != "202" || r.Body["webhookLogId"] == nil || r.Body["sentAt"] == nil {
			t.Fatalf("resend %s: %d %s", c.ident, r.Status, r.Raw)
		}
	}
	mu.Lock()
	if len(ids) != 3 || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Fatalf("event ids = %v", ids)
	}
	mu.Unlock()
	if r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/999999", nil, h); r.Status != 404 {
		t.Fatalf("unknown: %d", r.Status)
	}
	other, otok := newAccountToken(t, env, 0)
	_ = other
	if r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/"+fmt.Sprint(res.TransactionID), nil, map[string]string{"Authorization": "Bearer " + otok}); r.Status != 404 {
		t.Fatalf("another account's transaction: %d", r.Status)
	}
	// No URL: a transaction whose type has no target and no body url → 400.
	res2, _ := sim.PixIn(ctx, pix.Payment{Key: a.Account.PixKeys[1].Key, Amount: "1"})
	sim.AdvanceClock(ctx, 0, pix.ClockWaitWebhooks)
	sim.DeleteWebhookTarget(ctx, 1)
	if r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/"+fmt.Sprint(res2.TransactionID), nil, h); r.Status != 400 {
		t.Fatalf("no URL: %d %s", r.Status, r.Raw)
	}
	// The 61st resend within a simulated minute answers 429; after 60 s it works again.
	sim.AdvanceClock(ctx, time.Minute-time.Duration(sim.Clock().Now().Second())*time.Second, pix.ClockWaitWebhooks)
	body := `{"url":"` + recv.URL + `"}`
	for i := 1; i <= 61; i++ {
		r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/"+fmt.Sprint(res.TransactionID), strings.NewReader(body), h)
		if want := 200; i == 61 {
			if r.Status != 429 || r.Header.Get("Retry-After") == "" {
				t.Fatalf("61st: %d %s", r.Status, r.Raw)
			}
		} else if r.Status != want {
			t.Fatalf("resend %d: %d %s", i, r.Status, r.Raw)
		}
	}
	sim.AdvanceClock(ctx, 60*time.Second, pix.ClockWaitWebhooks)
	h["Authorization"] = "Bearer " + refreshToken(t, env, a)
	if r := apitest.Do(t, "POST", env.URL+"/api/resend-webhook/"+fmt.Sprint(res.TransactionID), strings.NewReader(body), h); r.Status != 200 {
		t.Fatalf("after 60 s: %d %s", r.Status, r.Raw)
	}

	// Registration: disabled by default, exactly as the spec says.
	r := apitest.Do(t, "POST", env.URL+"/api/webhooks", strings.NewReader(`{"url":"https://x.example/h","eventType":"cash_in"}`), h)
	if r.Status != 200 || r.Body["success"] != false || r.Body["message"] == "" {
		t.Fatalf("disabled POST: %d %s", r.Status, r.Raw)
	}
	sim.RegisterWebhookTarget(ctx, webhook.Target{AccountID: int64(a.Account.ID), URL: "https://exists.example/h", EventType: "cash_out", Active: true}, false)
	if r := apitest.Do(t, "GET", env.URL+"/api/webhooks", nil, h); r.Status != 200 || len(r.Body["webhooks"].([]any)) != 0 {
		t.Fatalf("disabled GET: %d %s", r.Status, r.Raw)
	}
	sim.SetWebhookRegistration(true)
	for _, bad := range []string{`{"url":"http://x.example/h","eventType":"cash_in"}`, `{"url":"https://x.example/h","eventType":"nope"}`,
		`{"url":"https://x.example/h","eventType":"cash_in","headers":[{"key":"Host","value":"x"}]}`} {
		if r := apitest.Do(t, "POST", env.URL+"/api/webhooks", strings.NewReader(bad), h); r.Status != 400 {
			t.Errorf("enabled %s: %d %s", bad, r.Status, r.Raw)
		}
	}
	for i := 0; i < 3; i++ {
		if r := apitest.Do(t, "POST", env.URL+"/api/webhooks", strings.NewReader(fmt.Sprintf(`{"url":"https://h%d.example/h","eventType":"cash_in"}`, i)), h); r.Status != 200 || r.Body["success"] != true {
			t.Fatalf("register %d: %d %s", i, r.Status, r.Raw)
		}
	}
	if r := apitest.Do(t, "POST", env.URL+"/api/webhooks", strings.NewReader(`{"url":"https://h3.example/h","eventType":"cash_in"}`), h); r.Status != 400 {
		t.Fatalf("4th active URL: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "POST", env.URL+"/api/webhooks", strings.NewReader(`{"url":"https://h1.example/h","eventType":"cash_in","headers":[{"key":"X-Token","value":"t"}]}`), h); r.Status != 200 || r.Body["message"] != "Webhook updated." {
		t.Fatalf("re-register: %d %s", r.Status, r.Raw)
	}
	r = apitest.Do(t, "GET", env.URL+"/api/webhooks", nil, h)
	if r.Status != 200 || r.Body["total"].(json.Number).String() != "4" || r.Body["accountId"].(json.Number).String() != fmt.Sprint(a.Account.ID) {
		t.Fatalf("enabled GET: %d %s", r.Status, r.Raw)
	}
}
