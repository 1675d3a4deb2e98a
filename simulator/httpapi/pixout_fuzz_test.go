package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// fuzzRoute sends arbitrary bodies to a protected route with a valid token and
// checks the answer is never 5xx and always JSON in the route's error shape.
func fuzzRoute(f *testing.F, path string, extended bool, seeds []string, header func(*http.Request, string)) {
	env := simulatortest.New(f, simulatortest.Options{})
	tok := tokenFor(f, env, 0)
	for _, s := range seeds {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, body, hdr string) {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		header(req, hdr)
		rec := httptest.NewRecorder()
		env.Server.Config.Handler.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("status %d, body not JSON: %q", rec.Code, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Fatalf("status %d: %v", rec.Code, got)
		}
		if rec.Code < 300 {
			return
		}
		if got["statusCode"] == nil || got["message"] == nil || got["error"] == nil {
			t.Fatalf("status %d without the error shape: %v", rec.Code, got)
		}
		if extended && (got["code"] == nil || got["errorId"] == nil || got["path"] != "/public"+path) {
			t.Fatalf("status %d without the extended shape: %v", rec.Code, got)
		}
	})
}

// FuzzCashOutRequest fuzzes the POST /api/pix/cash-out decoder and validation.
func FuzzCashOutRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-out", true, []string{
		`{"value":10.5,"externalId":"e1","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`,
		`{"value":"10","details":null}`, `{"value":1e400}`, `{"value":-0.0,"externalId":"","details":{}}`, `[]`, `{`,
		`{"value":0.001,"externalId":"x","details":{"key":"a","keyType":"RANDOM","name":"n","document":"12345678901234"}}`,
	}, func(r *http.Request, h string) { r.Header.Set("X-Sandbox-Scenario", h) })
}

// FuzzTransferRequest fuzzes the POST /dict/pix decoder and validation.
func FuzzTransferRequest(f *testing.F) {
	fuzzRoute(f, "/dict/pix", false, []string{
		`{"pixKey":"pix@bcb.gov.br","payment":{"currency":"BRL","amount":1}}`,
		`{"pixKey":"+5511987654321","priority":"HIGH","expiration":0,"payment":{"amount":"1"}}`,
		`{"ispbDeny":[1,2],"payment":[]}`, `{"expiration":1e9}`, `null`,
	}, func(r *http.Request, h string) {
		if h != "" {
			r.Header.Set("x-idempotency-key", h)
		} else {
			r.Header.Set("x-idempotency-key", "2b28bc5f-714d-4515-9a30-06854d5df38c")
		}
	})
}

// FuzzCashInRequest fuzzes the POST /api/pix/cash-in decoder and validation.
func FuzzCashInRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-in", true, []string{
		`{"transaction":{"value":10,"description":"d","externalId":"e"},"payer":{"fullName":"P","document":"52998224725"}}`,
		`{"transaction":{"value":10,"description":"d","externalId":"e2","generateQrCode":true},"payer":{"fullName":"P","document":"52998224725"},"additionalInfo":{"a":"b"},"splits":[{"pixKey":"a@b.com","pixKeyType":"EMAIL","name":"n","document":"52998224725","type":"PERCENTAGE","value":10,"immediate":true}]}`,
		`{"transaction":{"value":"10"},"additionalInfo":{"a":1}}`, `{"splits":{}}`,
	}, func(r *http.Request, h string) { r.Header.Set("X-Sandbox-Scenario", h) })
}

// FuzzCobRequest fuzzes the PUT /cob/{txid} decoder and validation.
func FuzzCobRequest(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{})
	tok := tokenFor(f, env, 0)
	f.Add("abcdefghijklmnopqrstuvwxyz0", `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`)
	f.Add("short", `{}`)
	f.Add("abcdefghijklmnopqrstuvwxyz1", `{"calendario":{},"devedor":{"cpf":"1"},"valor":{"original":10},"infoAdicionais":[{"nome":1}]}`)
	f.Fuzz(func(t *testing.T, txid, body string) {
		req := httptest.NewRequest(http.MethodPut, "/cob/x", bytes.NewBufferString(body))
		req.URL.Path = "/cob/" + txid
		req.URL.RawPath = ""
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		env.Server.Config.Handler.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("status %d, body not JSON: %q", rec.Code, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Fatalf("status %d: %v", rec.Code, got)
		}
		if rec.Code == http.StatusCreated && !validTxID(txid) {
			t.Fatalf("201 for txid %q", txid)
		}
	})
}

func validTxID(s string) bool {
	if len(s) < 26 || len(s) > 35 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// FuzzRefundRequest fuzzes the PUT /pix/{e2eid}/devolucao/{id} path and body.
func FuzzRefundRequest(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{})
	tok := tokenFor(f, env, 0)
	f.Add("E13140088202603021200abcdefghijk", "r1", `{"valor":"1.00"}`)
	f.Add("short", "", `{"valor":1}`)
	f.Add("E13140088202603021200abcdefghijk", "a/b", `{"natureza":"MED_FRAUDE"}`)
	f.Fuzz(func(t *testing.T, e2e, id, body string) {
		req := httptest.NewRequest(http.MethodPut, "/x", bytes.NewBufferString(body))
		req.URL.Path = "/pix/" + e2e + "/devolucao/" + id
		req.URL.RawPath = ""
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		env.Server.Config.Handler.ServeHTTP(rec, req)
		var got map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("status %d, body not JSON: %q", rec.Code, rec.Body.String())
		}
		if rec.Code >= 500 {
			t.Fatalf("status %d: %v", rec.Code, got)
		}
	})
}

// FuzzRefundInRequest fuzzes the POST /api/pix/refund-in/{id} decoder.
func FuzzRefundInRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/refund-in/1", false, []string{`{"refundValue":1}`, `{"refundValue":"1","externalId":"x-y"}`, `{"reason":1}`},
		func(r *http.Request, h string) { r.Header.Set("X-Sandbox-Scenario", h) })
}
