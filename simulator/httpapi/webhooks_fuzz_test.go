package httpapi_test

import (
	"net/http"
	"testing"
)

// FuzzWebhookRegisterRequest fuzzes the POST /api/webhooks decoder and
// validation with registration enabled, and the GET listing after it.
func FuzzWebhookRegisterRequest(f *testing.F) {
	fs := newFuzzServer(f)
	fs.env.Sim.SetWebhookRegistration(true)
	for _, s := range []string{
		`{"url":"https://example.com/hook","eventType":"CASH_OUT","headers":[{"key":"X-Token","value":"v"}]}`,
		`{"url":"http://example.com/hook","eventType":"CASH_IN"}`,
		`{"url":"https://example.com/a","eventType":"NOPE","headers":[{"key":"Authorization","value":"x"}]}`,
		`{"url":"https://example.com/b","eventType":"CASH_OUT","headers":[{"key":"","value":""},{"key":"a\r\nb"}]}`,
		`{"url":1,"eventType":[]}`, `{"headers":{}}`, `{}`, `[]`, `null`, ``, `{"url":"https://h"}{}`,
	} {
		f.Add(s, "application/json")
	}
	f.Add(`{"url":"https://example.com/hook","eventType":"CASH_OUT"}`, "text/plain")
	f.Fuzz(func(t *testing.T, body, contentType string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/api/webhooks", body: body, auth: true,
			header: map[string]string{"Content-Type": contentType}}
		fs.serve(t, rq).check(t, rq, minimalErrors, "url", "eventType", "headers")
		list := fuzzRequest{method: http.MethodGet, path: "/api/webhooks", auth: true}
		if a := fs.serve(t, list); a.status != http.StatusOK {
			t.Fatalf("GET /api/webhooks = %d %s", a.status, a.raw)
		}
	})
}

// FuzzWebhookResendRequest fuzzes POST /api/resend-webhook/{transactionIdentifier}:
// the path identifier and the optional body.
func FuzzWebhookResendRequest(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add("1", "")
	f.Add("ext-1", `{"url":"http://127.0.0.1:1/hook"}`)
	f.Add("E13140088202603021200abcdefghijk", `{"url":"ftp://x"}`)
	f.Add("9223372036854775808", `{"url":1}`)
	f.Add("-1", `{}`)
	f.Add("a b", `  `)
	f.Add("", `[]`)
	f.Fuzz(func(t *testing.T, ident, body string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/api/resend-webhook/" + ident, body: body, auth: true,
			header: map[string]string{"Content-Type": "application/json"}}
		fs.serve(t, rq).check(t, rq, minimalErrors, "url", "transactionIdentifier")
	})
}
