package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// eventFields are the fields of POST /_sandbox/events/{event}'s body.
var eventFields = []string{"accountId", "amount", "key", "errorCode"}

// FuzzSandboxEventRequest fuzzes POST /_sandbox/events/{event}: never a 5xx,
// errors in the minimal shape, a 400 naming its field.
func FuzzSandboxEventRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, s := range []struct{ event, body string }{
		{"pixin.received", ``}, {"cashout.failed", `{"accountId":2,"amount":1.5,"errorCode":"TAX_ID_MISMATCH"}`},
		{"transfer.liquidated", `{"key":"+5581929503786"}`}, {"refundout.received", `{"key":"nobody@example.com"}`},
		{"med.refunded", `{"amount":0.01}`}, {"cob.paid", `{"amount":1e400}`}, {"cashin.paid", `{"accountId":-1}`},
		{"med.created", `{"key":1}`}, {"NOPE", `{}`}, {"cashout.confirmed", `[]`}, {"cashout.confirmed", `{"amount":"1"}`},
	} {
		f.Add(s.event, s.body)
	}
	f.Fuzz(func(t *testing.T, event, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/events/" + event, Body: body}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, eventFields...)
	})
}
