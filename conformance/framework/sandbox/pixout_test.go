package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// pixOutRequest is one request seen by the fake PIX-out control plane.
type pixOutRequest struct {
	method, uri string
	body        map[string]any
}

// startFakePixOut serves canned answers for the PIX-out control-plane routes
// and records each request with its decoded body.
func startFakePixOut(t *testing.T) (*Client, func() pixOutRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []pixOutRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := requestBody(t, r)
		mu.Lock()
		seen = append(seen, pixOutRequest{r.Method, r.URL.RequestURI(), body})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		tx := `{"id":7,"transactionId":"0b0e5f0a-3d2c-4c5e-9f00-000000000007","accountId":1000,"kind":"cash-out","status":"%s","amount":10.00,"fee":1.50,"externalId":"e1","errorCode":"%s","counterpart":{"name":"N","document":"***","ispb":"60701190","accountId":0}}`
		switch r.Method + " " + r.URL.Path {
		case "POST /_sandbox/webhook-targets":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":3,"accountId":1000,"url":"http://h/hooks/x","eventType":"cash_out","headers":[{"key":"X-A","value":"1"}],"signed":true,"isActive":true}`)
		case "GET /_sandbox/webhook-deliveries":
			io.WriteString(w, `{"data":[{"id":"d1","eventId":"evt_1","eventType":"cash_out","accountId":1000,"transactionId":7,"targetId":3,"url":"http://h","status":"delivered","attempts":[{"webhookLogId":11,"number":1,"sentAt":"2026-03-02T12:00:02.000Z","statusCode":500},{"webhookLogId":12,"number":2,"statusCode":200}]}]}`)
		case "GET /_sandbox/transactions/7":
			io.WriteString(w, strings.Replace(strings.Replace(tx, "%s", "PENDING", 1), "%s", "", 1))
		case "POST /_sandbox/transactions/7/settle":
			io.WriteString(w, strings.Replace(strings.Replace(tx, "%s", "CONFIRMED", 1), "%s", "", 1))
		case "POST /_sandbox/transactions/7/fail":
			io.WriteString(w, strings.Replace(strings.Replace(tx, "%s", "ERROR", 1), "%s", "ORDER_REJECTED", 1))
		case "POST /_sandbox/dict/keys":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"key":"a@example.com","type":"EMAIL","name":"N","document":"52998224725","ispb":"60701190","bankName":"Itaú","bankCode":"341","accountType":"CACC"}`)
		case "GET /_sandbox/dict/keys/a@example.com":
			io.WriteString(w, `{"key":"a@example.com","type":"EMAIL","name":"N","document":"52998224725","ispb":"60701190","accountId":1000}`)
		case "GET /_sandbox/banks":
			io.WriteString(w, `{"data":[{"ispb":"13140088","name":"sandbox","code":"999"},{"ispb":"60701190","name":"Itaú","code":"341"}]}`)
		case "GET /_sandbox/accounts/1000/settings", "PUT /_sandbox/accounts/1000/settings":
			io.WriteString(w, `{"perTransactionLimit":100000.00,"dailyLimit":200000.00,"nightLimit":1000.00,"fee":1.50,"cashInFee":0.50,"minExpirationTime":60,"splitSchedule":"CRON_TZ=America/Sao_Paulo 0 * * * *"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"statusCode":404,"message":"no such route","error":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	last := func() pixOutRequest {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1]
	}
	return New(apiclient.NewClient(srv.URL, 5*time.Second), ""), last
}

func TestSandboxClient_WebhookTargetsAndDeliveries(t *testing.T) {
	sb, last := startFakePixOut(t)
	ctx := context.Background()

	tg, err := sb.RegisterWebhookTarget(ctx, WebhookTargetOptions{AccountID: "1000", URL: "http://h/hooks/x", EventType: "cash_out",
		Headers: []Header{{Key: "X-A", Value: "1"}}, Secret: "whsec_AAAA"})
	if err != nil {
		t.Fatal(err)
	}
	if tg.ID != "3" || !tg.Signed || !tg.IsActive || len(tg.Headers) != 1 {
		t.Errorf("target = %+v", tg)
	}
	req := last()
	if n, ok := req.body["accountId"].(json.Number); !ok || n != "1000" {
		t.Errorf("accountId sent as %#v, want the number 1000", req.body["accountId"])
	}
	if req.body["secret"] != "whsec_AAAA" || req.body["eventType"] != "cash_out" || req.body["url"] != "http://h/hooks/x" {
		t.Errorf("body = %v", req.body)
	}
	if _, err := sb.RegisterWebhookTarget(ctx, WebhookTargetOptions{AccountID: "abc"}); err == nil {
		t.Error("a non-numeric account id was accepted")
	}
	if _, err := sb.RegisterWebhookTarget(ctx, WebhookTargetOptions{AccountID: "1000", URL: "u", EventType: "cash_in"}); err != nil {
		t.Fatal(err)
	}
	if _, has := last().body["secret"]; has {
		t.Error("an empty secret was sent")
	}

	ds, err := sb.Deliveries(ctx, DeliveryQuery{TransactionID: "7", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := last().uri; got != "/_sandbox/webhook-deliveries?limit=5&transactionId=7" {
		t.Errorf("query = %s", got)
	}
	if len(ds) != 1 || ds[0].EventID != "evt_1" || ds[0].TransactionID != "7" || ds[0].Status != "delivered" ||
		len(ds[0].Attempts) != 2 || ds[0].Attempts[0].StatusCode != 500 || ds[0].Attempts[1].Number != 2 {
		t.Errorf("deliveries = %+v", ds)
	}
	if _, err := sb.Deliveries(ctx, DeliveryQuery{}); err != nil || last().uri != "/_sandbox/webhook-deliveries" {
		t.Errorf("unfiltered: %v, %s", err, last().uri)
	}
}

func TestSandboxClient_Transactions(t *testing.T) {
	sb, last := startFakePixOut(t)
	ctx := context.Background()

	tx, err := sb.Transaction(ctx, "7")
	if err != nil {
		t.Fatal(err)
	}
	if tx.ID != "7" || tx.Status != "PENDING" || tx.Amount != "10.00" || tx.Fee != "1.50" || tx.Counterpart.ISPB != "60701190" {
		t.Errorf("transaction = %+v", tx)
	}
	if tx, err = sb.SettleTransaction(ctx, "7"); err != nil || tx.Status != "CONFIRMED" {
		t.Errorf("settle = %+v, %v", tx, err)
	}
	if tx, err = sb.FailTransaction(ctx, "7", "ORDER_REJECTED"); err != nil || tx.Status != "ERROR" || tx.ErrorCode != "ORDER_REJECTED" {
		t.Errorf("fail = %+v, %v", tx, err)
	}
	if got := last().body["errorCode"]; got != "ORDER_REJECTED" {
		t.Errorf("fail body errorCode = %v", got)
	}
	var se *StatusError
	if _, err := sb.Transaction(ctx, "8"); !errors.As(err, &se) || se.Want != http.StatusOK || se.Response.Status != http.StatusNotFound {
		t.Errorf("unknown transaction: %v", err)
	}
}

func TestSandboxClient_DictBanksSettings(t *testing.T) {
	sb, last := startFakePixOut(t)
	ctx := context.Background()

	e, err := sb.RegisterDictKey(ctx, DictEntry{Key: "a@example.com", Name: "N", Document: "52998224725", ISPB: "60701190"})
	if err != nil {
		t.Fatal(err)
	}
	if e.BankCode != "341" || e.Type != "EMAIL" {
		t.Errorf("entry = %+v", e)
	}
	body := last().body
	if body["key"] != "a@example.com" || body["ispb"] != "60701190" {
		t.Errorf("body = %v", body)
	}
	for _, k := range []string{"type", "scenario", "branch"} {
		if _, has := body[k]; has {
			t.Errorf("empty %s was sent", k)
		}
	}
	if e, err = sb.DictKey(ctx, "a@example.com"); err != nil || e.AccountID != "1000" {
		t.Errorf("DictKey = %+v, %v", e, err)
	}

	banks, err := sb.Banks(ctx)
	if err != nil || len(banks) != 2 || banks[1].Code != "341" {
		t.Errorf("Banks = %+v, %v", banks, err)
	}

	st, err := sb.Settings(ctx, "1000")
	if err != nil || st.Fee != "1.50" || st.NightLimit != "1000.00" {
		t.Errorf("Settings = %+v, %v", st, err)
	}
	if _, err := sb.PutSettings(ctx, "1000", SettingsUpdate{Fee: "1.50", NightLimit: "20"}); err != nil {
		t.Fatal(err)
	}
	body = last().body
	if body["fee"] != json.Number("1.50") || body["nightLimit"] != json.Number("20") || len(body) != 2 {
		t.Errorf("PUT body = %v, want fee and nightLimit as numbers only", body)
	}
	if _, err := sb.PutSettings(ctx, "1000", SettingsUpdate{Fee: "1.505"}); err == nil {
		t.Error("a fee of 3 decimals was sent")
	}
	if st.CashInFee != "0.50" || st.MinExpirationTime != "60" || st.SplitSchedule != "CRON_TZ=America/Sao_Paulo 0 * * * *" {
		t.Errorf("PIX-in settings = %+v", st)
	}
	if _, err := sb.PutSettings(ctx, "1000", SettingsUpdate{CashInFee: "0.50", MinExpirationTime: 300, SplitSchedule: "CRON_TZ=UTC 30 14 * * *"}); err != nil {
		t.Fatal(err)
	}
	body = last().body
	if body["cashInFee"] != json.Number("0.50") || body["minExpirationTime"] != json.Number("300") ||
		body["splitSchedule"] != "CRON_TZ=UTC 30 14 * * *" || len(body) != 3 {
		t.Errorf("PUT body = %v, want cashInFee, minExpirationTime and splitSchedule only", body)
	}
}
