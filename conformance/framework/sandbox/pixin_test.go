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

func TestSandboxClient_PayAndPixIn(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		v, err := apiclient.DecodeJSON(b)
		if err != nil {
			t.Errorf("%s: body is not JSON: %s", r.URL, b)
		}
		m, _ := v.(map[string]any)
		mu.Lock()
		paths, bodies = append(paths, r.Method+" "+r.URL.Path), append(bodies, m)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if m["txid"] == "paidalready0000000000000000" {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"statusCode":409,"message":"cob is CONCLUIDA","error":"Conflict"}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"endToEndId":"E60701190202603021200abcdefghijk","transactionId":"42","amount":25.00,"feeAmount":0.50,"finalAmount":24.50}`)
	}))
	t.Cleanup(srv.Close)
	sb := New(apiclient.NewClient(srv.URL, 5*time.Second), "")
	ctx := context.Background()

	res, err := sb.Pay(ctx, PaymentRequest{PixCode: "000201…", Amount: "25.00", Payer: &Payer{Name: "P", ISPB: "60701190"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.TransactionID != "42" || res.FinalAmount != "24.50" || res.EndToEndID == "" {
		t.Errorf("Pay = %+v", res)
	}
	body := bodies[len(bodies)-1]
	if paths[len(paths)-1] != "POST /_sandbox/payments" || body["pixCode"] != "000201…" || body["amount"] != json.Number("25.00") {
		t.Errorf("request %s %v", paths[len(paths)-1], body)
	}
	payer, _ := body["payer"].(map[string]any)
	if payer["name"] != "P" || payer["ispb"] != "60701190" || len(payer) != 2 || len(body) != 3 {
		t.Errorf("body = %v, want pixCode, amount and payer{name, ispb} only", body)
	}

	if _, err := sb.Pay(ctx, PaymentRequest{TransactionID: "7"}); err != nil {
		t.Fatal(err)
	}
	if body := bodies[len(bodies)-1]; body["transactionId"] != "7" || len(body) != 1 {
		t.Errorf("body = %v, want transactionId as a string only", body)
	}

	_, err = sb.Pay(ctx, PaymentRequest{TxID: "paidalready0000000000000000"})
	if ErrorStatus(err) != http.StatusConflict {
		t.Errorf("ErrorStatus(%v) = %d, want 409", err, ErrorStatus(err))
	}
	if ErrorStatus(nil) != 0 {
		t.Error("ErrorStatus(nil) != 0")
	}

	if _, err := sb.PixIn(ctx, PaymentRequest{Key: "a@example.com", Amount: "1.00"}); err != nil {
		t.Fatal(err)
	}
	if paths[len(paths)-1] != "POST /_sandbox/pix-in" || bodies[len(bodies)-1]["key"] != "a@example.com" {
		t.Errorf("request %s %v", paths[len(paths)-1], bodies[len(bodies)-1])
	}
	if _, err := sb.Pay(ctx, PaymentRequest{TxID: "x", Amount: "1.001"}); err == nil {
		t.Error("an amount of 3 decimals was sent")
	}
}
