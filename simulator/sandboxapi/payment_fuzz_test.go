package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// paymentFields are the fields of the control plane's payment bodies.
var paymentFields = []string{"pixCode", "txid", "transactionId", "key", "amount", "payer"}

// FuzzSandboxPaymentRequest fuzzes POST /_sandbox/payments and POST
// /_sandbox/pix-in. A cash-in charge is created first so that payments can
// reach a real charge by transactionId.
func FuzzSandboxPaymentRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	ci := apitest.Request{Method: http.MethodPost, Path: "/api/pix/cash-in", Auth: true, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"transaction":{"value":10,"description":"d","externalId":"fuzz-charge"},"payer":{"fullName":"P","document":"52998224725"}}`}
	if a := fs.Serve(f, ci); a.Status != http.StatusCreated {
		f.Fatalf("cash-in = %d %s", a.Status, a.Raw)
	}
	for _, s := range []string{
		`{"transactionId":"1","amount":10,"payer":{"name":"P","document":"52998224725","ispb":"00000000"}}`,
		`{"transactionId":"1","amount":"10.00"}`, `{"transactionId":"1","amount":0.001}`, `{"txid":"abcdefghijklmnopqrstuvwxyz0"}`,
		`{"pixCode":"00020126"}`, `{"pixCode":"","txid":"","transactionId":""}`, `{"key":"52998224725","amount":1}`,
		`{"key":"nobody@example.com","amount":1}`, `{"key":"+5511987654321","amount":-1}`, `{"amount":1e400}`, `{"payer":[]}`, `{}`, ``,
	} {
		f.Add(false, s)
		f.Add(true, s)
	}
	f.Fuzz(func(t *testing.T, pixIn bool, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/payments", Body: body}
		if pixIn {
			rq.Path = "/_sandbox/pix-in"
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, paymentFields...)
	})
}

// FuzzSandboxQRCodeRequest fuzzes POST /_sandbox/qrcode: never a 5xx, errors in
// the minimal shape naming pixCode; a valid BR Code gets its image.
func FuzzSandboxQRCodeRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	ci := apitest.Request{Method: http.MethodPost, Path: "/api/pix/cash-in", Auth: true, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"transaction":{"value":10,"description":"d","externalId":"fuzz-qr"},"payer":{"fullName":"P","document":"52998224725"}}`}
	a := fs.Serve(f, ci)
	if a.Status != http.StatusCreated {
		f.Fatalf("cash-in = %d %s", a.Status, a.Raw)
	}
	code, _ := a.Body["pixCode"].(string)
	if code == "" {
		f.Fatalf("cash-in has no pixCode: %s", a.Raw)
	}
	ok := fs.Serve(f, apitest.Request{Method: http.MethodPost, Path: "/_sandbox/qrcode", Body: `{"pixCode":"` + code + `"}`})
	if img, _ := ok.Body["qrCodeImage"].(string); ok.Status != http.StatusOK || img == "" {
		f.Fatalf("qrcode of a charge's pixCode = %d %s", ok.Status, ok.Raw)
	}
	for _, s := range []string{`{"pixCode":"` + code + `"}`, `{"pixCode":"` + code[:len(code)-1] + `0"}`, `{"pixCode":"00020126"}`,
		`{"pixCode":""}`, `{"pixCode":1}`, `{"pixCode":null}`, `{}`, ``, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/qrcode", Body: body}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "pixCode")
	})
}
