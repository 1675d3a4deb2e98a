package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxMEDRequest fuzzes POST /_sandbox/med, and the {id} and body of GET
// /_sandbox/med/{id} and its receive, analyze, cancel and refund actions.
func FuzzSandboxMEDRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(uint8(0), "", `{"accountId":1,"endToEndId":"E13140088202603021200abcdefghijk","cause":"UNAUTHORIZED_TRANSACTION","description":"d","amount":1,"requestingBank":{"ispb":"00000000","name":"B"}}`)
	f.Add(uint8(0), "", `{"accountId":-1,"endToEndId":""}`)
	f.Add(uint8(0), "", `{"accountId":9223372036854775807,"endToEndId":"x","amount":"1e3"}`)
	f.Add(uint8(0), "", `{"accountId":1.5}`)
	f.Add(uint8(0), "", `{"requestingBank":null}`)
	f.Add(uint8(1), "1", "")
	f.Add(uint8(2), "1", "")
	f.Add(uint8(3), "1", `{"result":"APPROVED","details":"d"}`)
	f.Add(uint8(3), "1", `{"result":"MAYBE"}`)
	f.Add(uint8(3), "1", ``)
	f.Add(uint8(4), "0", "")
	f.Add(uint8(5), "9223372036854775808", "")
	f.Add(uint8(5), "-1", "")
	f.Fuzz(func(t *testing.T, op uint8, id, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/med/" + id, Body: body}
		switch op % 6 {
		case 0:
			rq.Path = "/_sandbox/med"
		case 1:
			rq.Method = http.MethodGet
		case 2:
			rq.Path += "/receive"
		case 3:
			rq.Path += "/analyze"
		case 4:
			rq.Path += "/cancel"
		case 5:
			rq.Path += "/refund"
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "accountId", "endToEndId", "cause", "description", "amount",
			"requestingBank", "result", "details")
	})
}
