package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

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

// TestSandboxSettings_CashInWebhook: the account setting takes RECEIVE,
// CashIn and default, and refuses anything else naming the field.
func TestSandboxSettings_CashInWebhook(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	path := fmt.Sprintf("/_sandbox/accounts/%d/settings", fs.Env.Fixtures.Accounts[0].ID)
	for _, v := range []string{"CashIn", "RECEIVE", "default"} {
		a := fs.Serve(t, apitest.Request{Method: "PUT", Path: path, Body: `{"cashInWebhook":"` + v + `"}`})
		if a.Status != http.StatusOK || a.Body["cashInWebhook"] != v {
			t.Fatalf("%s: %d %s", v, a.Status, a.Raw)
		}
	}
	a := fs.Serve(t, apitest.Request{Method: "PUT", Path: path, Body: `{"cashInWebhook":"receive"}`})
	if msg, _ := a.Body["message"].(string); a.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "cashInWebhook must be") {
		t.Fatalf("bad value: %d %s", a.Status, a.Raw)
	}
	a = fs.Serve(t, apitest.Request{Method: "GET", Path: path})
	if a.Body["cashInWebhook"] != "default" || a.Body["minExpirationTime"] != float64(30) {
		t.Fatalf("defaults: %s", a.Raw)
	}
}

// TestWebhooksCreate_EveryInvalidField: with registration enabled, a wrong
// JSON type and bad values of the other fields answer one 400 listing all.
func TestWebhooksCreate_EveryInvalidField(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
	fs.Serve(t, apitest.Request{Method: "PUT", Path: "/_sandbox/webhook-registration", Body: `{"mode":"enabled"}`})
	rq := apitest.Request{Method: "POST", Path: "/api/webhooks", Auth: true, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"url":5,"eventType":"nope"}`}
	a := fs.Serve(t, rq)
	a.Check(t, rq, apitest.Minimal, "url", "eventType")
	msg, _ := a.Body["message"].(string)
	if a.Status != http.StatusBadRequest || !strings.HasPrefix(msg, "url must be a string, not number; eventType must be one of") {
		t.Fatalf("%d %s", a.Status, a.Raw)
	}
}
