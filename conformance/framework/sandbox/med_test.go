package sandbox

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// medJSON is a MED as the fake control plane answers it: reconciled, received.
const medJSON = `{"id":12,"endToEnd":"E60701190202603021200abcdefghijk","status":"RECEIVED","reason":"REFUND_REQUEST",` +
	`"cause":"UNAUTHORIZED_TRANSACTION","description":null,"analysisResult":null,"analysisDetails":null,` +
	`"requestingBank":{"ispb":"60701190","name":"Itaú"},"contestedBank":{"ispb":"99999999","name":"PIX Sandbox"},` +
	`"originalTransaction":{"amount":100.00,"type":"PAYMENT","transactionType":"PIX","name":"P","document":"***.456.789-**","dateTime":"2026-03-02T12:00:00.000Z"},` +
	`"isReconciled":true,"originalTransactionId":41,"createdAt":"2026-03-02T12:00:00.000Z","updatedAt":"2026-03-02T13:00:00.000Z",` +
	`"accountId":1000,"contestedAmount":100.00,"blockedAmount":100.00,"scenario":""}`

func TestSandboxClient_MED(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := requestBody(t, r)
		mu.Lock()
		seen, bodies = append(seen, r.Method+" "+r.URL.Path), append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.Method + " " + r.URL.Path {
		case "POST /_sandbox/med":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, medJSON)
		case "GET /_sandbox/med/12", "POST /_sandbox/med/12/receive", "POST /_sandbox/med/12/analyze":
			io.WriteString(w, medJSON)
		case "POST /_sandbox/med/12/cancel":
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"statusCode":409,"message":"MED 12 is ANALYZED and cannot be cancelled","error":"Conflict"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"statusCode":404,"message":"not found","error":"Not Found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	sb := New(apiclient.NewClient(srv.URL, 5*time.Second), "")
	ctx := context.Background()
	last := func() (string, map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		return seen[len(seen)-1], bodies[len(bodies)-1]
	}

	m, err := sb.OpenMED(ctx, MEDRequest{AccountID: "1000", EndToEndID: "E60701190202603021200abcdefghijk", Amount: "50.00",
		RequestingBank: &MEDBank{ISPB: "60701190"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "12" || m.Status != "RECEIVED" || !m.IsReconciled || m.OriginalTransactionID != "41" || m.AnalysisResult != "" ||
		m.OriginalTransaction == nil || m.OriginalTransaction.Amount != "100.00" || m.BlockedAmount != "100.00" || m.RequestingBank.Name != "Itaú" {
		t.Errorf("OpenMED = %+v", m)
	}
	req, body := last()
	bank, _ := body["requestingBank"].(map[string]any)
	if req != "POST /_sandbox/med" || body["accountId"] != json.Number("1000") || body["amount"] != json.Number("50.00") ||
		body["endToEndId"] != "E60701190202603021200abcdefghijk" || bank["ispb"] != "60701190" || len(bank) != 1 || len(body) != 4 {
		t.Errorf("request %s %v, want accountId and amount as numbers, endToEndId and requestingBank{ispb} only", req, body)
	}
	if _, err := sb.OpenMED(ctx, MEDRequest{AccountID: "acc", EndToEndID: "x"}); err == nil {
		t.Error("OpenMED with a non-numeric account id was sent")
	}
	if _, err := sb.OpenMED(ctx, MEDRequest{AccountID: "1", EndToEndID: "x", Amount: "1.001"}); err == nil {
		t.Error("OpenMED with an amount of 3 decimals was sent")
	}

	if m, err := sb.MED(ctx, "12"); err != nil || m.ID != "12" {
		t.Errorf("MED = %+v, %v", m, err)
	}
	if _, err := sb.MEDStep(ctx, "12", MEDReceive, nil); err != nil {
		t.Fatal(err)
	}
	if req, body := last(); req != "POST /_sandbox/med/12/receive" || body == nil || len(body) != 0 {
		t.Errorf("request %s %v, want {}", req, body)
	}
	if _, err := sb.MEDStep(ctx, "12", MEDAnalyze, map[string]string{"result": "REJECTED", "details": "d"}); err != nil {
		t.Fatal(err)
	}
	if req, body := last(); req != "POST /_sandbox/med/12/analyze" || body["result"] != "REJECTED" || body["details"] != "d" {
		t.Errorf("request %s %v", req, body)
	}
	if _, err := sb.MEDStep(ctx, "12", MEDCancel, nil); ErrorStatus(err) != http.StatusConflict {
		t.Errorf("MEDStep(cancel) = %v, want a 409 StatusError", err)
	}
	if _, err := sb.MEDStep(ctx, "12", "receive/../cancel", nil); err == nil {
		t.Error("MEDStep with an action that is not a path segment was sent")
	}
}

func TestSandboxClient_PutSettingsMEDRateLimit(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v, _ := apiclient.DecodeJSON(b)
		got, _ = v.(map[string]any)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"perTransactionLimit":0.00,"dailyLimit":0.00,"nightLimit":0.00,"fee":0.00,"cashInFee":0.00,"minExpirationTime":60,"splitSchedule":"","medRateLimit":3}`)
	}))
	t.Cleanup(srv.Close)
	sb := New(apiclient.NewClient(srv.URL, 5*time.Second), "")
	st, err := sb.PutSettings(context.Background(), "1000", SettingsUpdate{MEDRateLimit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got["medRateLimit"] != json.Number("3") || len(got) != 1 {
		t.Errorf("PUT body = %v, want medRateLimit 3 only", got)
	}
	if st.MEDRateLimit != "3" {
		t.Errorf("MEDRateLimit = %q, want 3", st.MEDRateLimit)
	}
}
