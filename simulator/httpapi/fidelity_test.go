package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestTransactions_ProcessedAtPending: a Pendente item's processedAt is an
// ISO 8601 string, its createdAt, never null (Gap G-53).
func TestTransactions_ProcessedAtPending(t *testing.T) {
	fs := newFuzzServer(t)
	body := `{"value":1,"externalId":"pending-1","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`
	rq := fuzzRequest{method: "POST", path: "/api/pix/cash-out", body: body, auth: true,
		header: map[string]string{"Content-Type": "application/json", "X-Sandbox-Scenario": "SETTLEMENT_PENDING"}}
	if a := fs.serve(t, rq); a.status != http.StatusCreated {
		t.Fatalf("cash-out: %d %s", a.status, a.raw)
	}
	a := fs.serve(t, fuzzRequest{method: "GET", path: "/api/transactions", query: "externalId=pending-1", auth: true})
	items, _ := a.body["data"].([]any)
	if a.status != http.StatusOK || len(items) != 1 {
		t.Fatalf("listing: %d %s", a.status, a.raw)
	}
	it := items[0].(map[string]any)
	if it["status"] != "Pendente" || it["processedAt"] != it["createdAt"] || it["processedAt"] == nil {
		t.Fatalf("pending item: %v", it)
	}
}

// TestTransactions_IntervalMessage: the 31-day refusal is a sentence that
// starts with the field's name and a verb.
func TestTransactions_IntervalMessage(t *testing.T) {
	fs := newFuzzServer(t)
	a := fs.serve(t, fuzzRequest{method: "GET", path: "/api/transactions", query: "startDate=2026-02-01&endDate=2026-03-05", auth: true})
	if msg, _ := a.body["message"].(string); a.status != http.StatusBadRequest || !strings.HasPrefix(msg, "endDate must be at most 31 days after startDate") {
		t.Fatalf("%d %s", a.status, a.raw)
	}
}

// TestSandboxSettings_CashInWebhook: the account setting takes RECEIVE,
// CashIn and default, and refuses anything else naming the field.
func TestSandboxSettings_CashInWebhook(t *testing.T) {
	fs := newFuzzServer(t)
	path := fmt.Sprintf("/_sandbox/accounts/%d/settings", fs.env.Fixtures.Accounts[0].ID)
	for _, v := range []string{"CashIn", "RECEIVE", "default"} {
		a := fs.serve(t, fuzzRequest{method: "PUT", path: path, body: `{"cashInWebhook":"` + v + `"}`})
		if a.status != http.StatusOK || a.body["cashInWebhook"] != v {
			t.Fatalf("%s: %d %s", v, a.status, a.raw)
		}
	}
	a := fs.serve(t, fuzzRequest{method: "PUT", path: path, body: `{"cashInWebhook":"receive"}`})
	if msg, _ := a.body["message"].(string); a.status != http.StatusBadRequest || !strings.HasPrefix(msg, "cashInWebhook must be") {
		t.Fatalf("bad value: %d %s", a.status, a.raw)
	}
	a = fs.serve(t, fuzzRequest{method: "GET", path: path})
	if a.body["cashInWebhook"] != "default" || a.body["minExpirationTime"] != float64(30) {
		t.Fatalf("defaults: %s", a.raw)
	}
}

// TestWebhooksCreate_EveryInvalidField: with registration enabled, a wrong
// JSON type and bad values of the other fields answer one 400 listing all.
func TestWebhooksCreate_EveryInvalidField(t *testing.T) {
	fs := newFuzzServer(t)
	fs.serve(t, fuzzRequest{method: "PUT", path: "/_sandbox/webhook-registration", body: `{"mode":"enabled"}`})
	rq := fuzzRequest{method: "POST", path: "/api/webhooks", auth: true, header: map[string]string{"Content-Type": "application/json"},
		body: `{"url":5,"eventType":"nope"}`}
	a := fs.serve(t, rq)
	a.check(t, rq, minimalErrors, "url", "eventType")
	msg, _ := a.body["message"].(string)
	if a.status != http.StatusBadRequest || !strings.HasPrefix(msg, "url must be a string, not number; eventType must be one of") {
		t.Fatalf("%d %s", a.status, a.raw)
	}
}
