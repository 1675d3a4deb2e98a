package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

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

	checkRegistration(t, env, a, h)
}

// checkRegistration: POST/GET /api/webhooks are disabled by default, exactly
// as the spec says; enabled, they validate, cap active URLs at 3 a type and
// update a URL registered again.
func checkRegistration(t *testing.T, env *simulatortest.Env, a pix.CreatedAccount, h map[string]string) {
	t.Helper()
	sim, ctx := env.Sim, context.Background()
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
