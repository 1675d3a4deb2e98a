package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
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
	a, _ := newAccountToken(t, env, 1000_00)
	b, _ := newAccountToken(t, env, 1000_00)
	if _, err := sim.SetAccountSettings(ctx, a.Account.ID, pix.Settings{Fee: 50, CashInFee: 25}); err != nil {
		t.Fatal(err)
	}
	co, tr := recordEveryKind(t, env, a, b)
	tok := refreshToken(t, env, a)

	h := map[string]string{"Authorization": "Bearer " + tok}
	r := apitest.Do(t, "GET", env.URL+"/api/transactions?size=100", nil, h)
	if r.Status != 200 {
		t.Fatalf("listing: %d %s", r.Status, r.Raw)
	}
	seen := checkListingItems(t, r)
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
	// A key the account does not hold lists the PIX it sent there (Gaps G-53,
	// G-54): a's cash-out, transfer and split to the other institution's key;
	// b's transfer to a's key. A key no transaction of the account used lists
	// nothing.
	byKey := func(key string, hdr map[string]string) (total string, types []string) {
		t.Helper()
		r := apitest.Do(t, "GET", env.URL+"/api/pix/transactions/pix-key/"+url.PathEscape(key), nil, hdr)
		if r.Status != 200 {
			t.Fatalf("key listing of %s: %d %s", key, r.Status, r.Raw)
		}
		for _, it := range r.Body["data"].([]any) {
			types = append(types, fmt.Sprint(it.(map[string]any)["operationType"]))
		}
		return r.Body["metadata"].(map[string]any)["total"].(json.Number).String(), types
	}
	bh := map[string]string{"Authorization": "Bearer " + btok}
	if total, types := byKey(co.PixKey, h); total != "3" || strings.Join(types, ",") != "Pix out,Pix out,Pix out" {
		t.Errorf("a's listing of the key it paid: total %s, %v; want 3 Pix out", total, types)
	}
	if total, types := byKey(a.Account.PixKeys[3].Key, bh); total != "1" || strings.Join(types, ",") != "Pix out" {
		t.Errorf("b's listing of a's key it paid: total %s, %v; want 1 Pix out", total, types)
	}
	if total, _ := byKey(co.PixKey, bh); total != "0" {
		t.Errorf("b's listing of a key it never used: total %s, want 0", total)
	}
}

// recordEveryKind makes a's transactions of every kind (a cash-out, a transfer,
// a paid cash-in with a split, a PIX in, a transfer from b, two refunds and a
// MED refund) and settles them; it returns the cash-out and the transfer.
func recordEveryKind(t *testing.T, env *simulatortest.Env, a, b pix.CreatedAccount) (co, tr pix.Transaction) {
	t.Helper()
	sim, ctx := env.Sim, context.Background()
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
	tr, _, err = sim.CreateTransfer(ctx, a.Account.ID, pix.TransferRequest{IdempotencyKey: uuid.NewString(), PixKey: key, Currency: "BRL", Amount: "5"}, scenarios.None)
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
	return co, tr
}

// checkListingItems checks every item of a listing answer (movement, status,
// masked document, amounts with 2 decimals) and counts them by operationType.
func checkListingItems(t *testing.T, r apitest.Result) map[string]int {
	t.Helper()
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
	return seen
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

// TestTransactions_ProcessedAtPending: a Pendente item's processedAt is an
// ISO 8601 string, its createdAt, never null (Gap G-53).
func TestTransactions_ProcessedAtPending(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	body := `{"value":1,"externalId":"pending-1","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`
	rq := apitest.Request{Method: "POST", Path: "/api/pix/cash-out", Body: body, Auth: true,
		Header: map[string]string{"Content-Type": "application/json", "X-Sandbox-Scenario": "SETTLEMENT_PENDING"}}
	if a := fs.Serve(t, rq); a.Status != http.StatusCreated {
		t.Fatalf("cash-out: %d %s", a.Status, a.Raw)
	}
	a := fs.Serve(t, apitest.Request{Method: "GET", Path: "/api/transactions", Query: "externalId=pending-1", Auth: true})
	items, _ := a.Body["data"].([]any)
	if a.Status != http.StatusOK || len(items) != 1 {
		t.Fatalf("listing: %d %s", a.Status, a.Raw)
	}
	it := items[0].(map[string]any)
	if it["status"] != "Pendente" || it["processedAt"] != it["createdAt"] || it["processedAt"] == nil {
		t.Fatalf("pending item: %v", it)
	}
}

// TestTransactions_IntervalMessage: the 31-day refusal is a sentence that
// starts with the field's name and a verb.
func TestTransactions_IntervalMessage(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	a := fs.Serve(t, apitest.Request{Method: "GET", Path: "/api/transactions", Query: "startDate=2026-02-01&endDate=2026-03-05", Auth: true})
	if msg, _ := a.Body["message"].(string); a.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "endDate must be at most 31 days after startDate") {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
}
