package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxRegistrationRequest fuzzes PUT /_sandbox/webhook-registration.
func FuzzSandboxRegistrationRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, s := range []string{`{"mode":"enabled"}`, `{"mode":"disabled"}`, `{"mode":"ENABLED"}`, `{"mode":true}`, `{}`, ``, `{"mode":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rq := apitest.Request{Method: http.MethodPut, Path: "/_sandbox/webhook-registration", Body: body}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal, "mode")
		if a.Status == http.StatusOK && a.Body["mode"] != "enabled" && a.Body["mode"] != "disabled" {
			t.Fatalf("200 with mode %v", a.Body["mode"])
		}
	})
}

// FuzzSandboxWebhookTargetRequest fuzzes POST /_sandbox/webhook-targets, the
// {id} of DELETE /_sandbox/webhook-targets/{id}, and the queries of GET
// /_sandbox/webhook-targets and GET /_sandbox/webhook-deliveries.
func FuzzSandboxWebhookTargetRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(uint8(0), `{"accountId":1,"url":"http://127.0.0.1:1/hook","eventType":"CASH_OUT","headers":[{"key":"X-A","value":"b"}],"secret":"s"}`)
	f.Add(uint8(0), `{"accountId":1,"url":"https://example.com","eventType":"NOPE","headers":[{"key":"Host","value":"b"}]}`)
	f.Add(uint8(0), `{"accountId":0,"url":"x"}`)
	f.Add(uint8(0), `{"accountId":999,"url":"https://example.com","eventType":"CASH_IN"}`)
	f.Add(uint8(0), `{"url":"https://example.com"}`)
	f.Add(uint8(0), `{"accountId":"1"}`)
	f.Add(uint8(1), "1")
	f.Add(uint8(1), "0")
	f.Add(uint8(1), "9223372036854775808")
	f.Add(uint8(2), "accountId=1")
	f.Add(uint8(2), "")
	f.Add(uint8(2), "accountId=-1")
	f.Add(uint8(3), "accountId=1&transactionId=1&limit=10")
	f.Add(uint8(3), "limit=0")
	f.Add(uint8(3), "transactionId=x")
	f.Add(uint8(3), "limit=1001&accountId=%zz")
	f.Add(uint8(3), "afterAttempt=0&accountId=1")
	f.Add(uint8(3), "afterAttempt=-1")
	f.Add(uint8(3), "afterAttempt=5&transactionId=1")
	f.Fuzz(func(t *testing.T, op uint8, s string) {
		var rq apitest.Request
		switch op % 4 {
		case 0:
			rq = apitest.Request{Method: http.MethodPost, Path: "/_sandbox/webhook-targets", Body: s}
		case 1:
			rq = apitest.Request{Method: http.MethodDelete, Path: "/_sandbox/webhook-targets/" + s}
		case 2:
			rq = apitest.Request{Method: http.MethodGet, Path: "/_sandbox/webhook-targets", Query: s}
		case 3:
			rq = apitest.Request{Method: http.MethodGet, Path: "/_sandbox/webhook-deliveries", Query: s}
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "accountId", "url", "eventType", "headers", "secret", "transactionId", "limit", "afterAttempt")
	})
}
