package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzWebhookRegisterRequest fuzzes the POST /api/webhooks decoder and
// validation with registration enabled, and the GET listing after it.
func FuzzWebhookRegisterRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	fs.Env.Sim.SetWebhookRegistration(true)
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
		rq := apitest.Request{Method: http.MethodPost, Path: "/api/webhooks", Body: body, Auth: true,
			Header: map[string]string{"Content-Type": contentType}}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "url", "eventType", "headers")
		list := apitest.Request{Method: http.MethodGet, Path: "/api/webhooks", Auth: true}
		if a := fs.Serve(t, list); a.Status != http.StatusOK {
			t.Fatalf("GET /api/webhooks = %d %s", a.Status, a.Raw)
		}
	})
}

// FuzzWebhookResendRequest fuzzes POST /api/resend-webhook/{transactionIdentifier}:
// the path identifier and the optional body.
func FuzzWebhookResendRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("1", "")
	f.Add("ext-1", `{"url":"http://127.0.0.1:1/hook"}`)
	f.Add("E13140088202603021200abcdefghijk", `{"url":"ftp://x"}`)
	f.Add("9223372036854775808", `{"url":1}`)
	f.Add("-1", `{}`)
	f.Add("a b", `  `)
	f.Add("", `[]`)
	f.Fuzz(func(t *testing.T, ident, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/api/resend-webhook/" + ident, Body: body, Auth: true,
			Header: map[string]string{"Content-Type": "application/json"}}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "url", "transactionIdentifier")
	})
}
