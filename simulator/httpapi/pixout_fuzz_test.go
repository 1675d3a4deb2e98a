package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// fuzzRoute sends arbitrary bodies (and one fuzzed header) to a protected
// POST route with a valid token and checks the answer with apitest.Answer.check:
// never 5xx, always JSON in the route family's error shape.
func fuzzRoute(f *testing.F, path string, extended bool, seeds []string, header func(string) map[string]string) {
	fs := apitest.NewFuzzServer(f)
	for _, s := range seeds {
		f.Add(s, "")
	}
	sh := apitest.Minimal
	if extended {
		sh = apitest.Extended
	}
	f.Fuzz(func(t *testing.T, body, hdr string) {
		h := header(hdr)
		h["Content-Type"] = "application/json"
		rq := apitest.Request{Method: http.MethodPost, Path: path, Body: body, Header: h, Auth: true}
		fs.Serve(t, rq).Check(t, rq, sh)
	})
}

// FuzzCashOutRequest fuzzes the POST /api/pix/cash-out decoder and validation.
func FuzzCashOutRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-out", true, []string{
		`{"value":10.5,"externalId":"e1","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`,
		`{"value":"10","details":null}`, `{"value":1e400}`, `{"value":-0.0,"externalId":"","details":{}}`, `[]`, `{`,
		`{"value":0.001,"externalId":"x","details":{"key":"a","keyType":"RANDOM","name":"n","document":"12345678901234"}}`,
	}, scenarioHeader)
}

// FuzzTransferRequest fuzzes the POST /dict/pix decoder and validation.
func FuzzTransferRequest(f *testing.F) {
	fuzzRoute(f, "/dict/pix", false, []string{
		`{"pixKey":"pix@bcb.gov.br","payment":{"currency":"BRL","amount":1}}`,
		`{"pixKey":"+5511987654321","priority":"HIGH","expiration":0,"payment":{"amount":"1"}}`,
		`{"ispbDeny":[1,2],"payment":[]}`, `{"expiration":1e9}`, `null`,
	}, func(h string) map[string]string {
		if h == "" {
			h = "2b28bc5f-714d-4515-9a30-06854d5df38c"
		}
		return map[string]string{"x-idempotency-key": h}
	})
}

// FuzzCashInRequest fuzzes the POST /api/pix/cash-in decoder and validation.
func FuzzCashInRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/cash-in", true, []string{
		`{"transaction":{"value":10,"description":"d","externalId":"e"},"payer":{"fullName":"P","document":"52998224725"}}`,
		`{"transaction":{"value":10,"description":"d","externalId":"e2","generateQrCode":true},"payer":{"fullName":"P","document":"52998224725"},"additionalInfo":{"a":"b"},"splits":[{"pixKey":"a@b.com","pixKeyType":"EMAIL","name":"n","document":"52998224725","type":"PERCENTAGE","value":10,"immediate":true}]}`,
		`{"transaction":{"value":"10"},"additionalInfo":{"a":1}}`, `{"splits":{}}`,
	}, scenarioHeader)
}

// FuzzCobRequest fuzzes the PUT /cob/{txid} decoder and validation.
func FuzzCobRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("abcdefghijklmnopqrstuvwxyz0", `{"calendario":{"expiracao":3600},"valor":{"original":"10.00"}}`)
	f.Add("short", `{}`)
	f.Add("abcdefghijklmnopqrstuvwxyz1", `{"calendario":{},"devedor":{"cpf":"1"},"valor":{"original":10},"infoAdicionais":[{"nome":1}]}`)
	f.Fuzz(func(t *testing.T, txid, body string) {
		rq := apitest.Request{Method: http.MethodPut, Path: "/cob/" + txid, Body: body, Auth: true}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal)
		if a.Status == http.StatusCreated && !pix.ValidTxID(txid) {
			t.Fatalf("201 for txid %q", txid)
		}
	})
}

// FuzzRefundRequest fuzzes the PUT /pix/{e2eid}/devolucao/{id} path and body.
func FuzzRefundRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("E13140088202603021200abcdefghijk", "r1", `{"valor":"1.00"}`)
	f.Add("short", "", `{"valor":1}`)
	f.Add("E13140088202603021200abcdefghijk", "a/b", `{"natureza":"MED_FRAUDE"}`)
	f.Fuzz(func(t *testing.T, e2e, id, body string) {
		rq := apitest.Request{Method: http.MethodPut, Path: "/pix/" + e2e + "/devolucao/" + id, Body: body, Auth: true}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal)
	})
}

// FuzzRefundInRequest fuzzes the POST /api/pix/refund-in/{id} decoder.
func FuzzRefundInRequest(f *testing.F) {
	fuzzRoute(f, "/api/pix/refund-in/1", false, []string{`{"refundValue":1}`, `{"refundValue":"1","externalId":"x-y"}`, `{"reason":1}`},
		scenarioHeader)
}

// scenarioHeader sends the fuzzed header as X-Sandbox-Scenario.
func scenarioHeader(h string) map[string]string { return map[string]string{"X-Sandbox-Scenario": h} }
