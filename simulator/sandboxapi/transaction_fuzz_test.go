package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxTransactionRequest fuzzes the {id} of GET /_sandbox/transactions/{id}
// and its settle and fail actions, and the fail body. A pending cash-out is
// created first so that the actions also reach a real transaction.
func FuzzSandboxTransactionRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	co := apitest.Request{Method: http.MethodPost, Path: "/api/pix/cash-out", Auth: true, Header: map[string]string{"Content-Type": "application/json"},
		Body: `{"value":1,"externalId":"fuzz-co","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`}
	if a := fs.Serve(f, co); a.Status != http.StatusCreated {
		f.Fatalf("cash-out = %d %s", a.Status, a.Raw)
	}
	f.Add(uint8(0), "1", "")
	f.Add(uint8(1), "1", "")
	f.Add(uint8(2), "1", `{"errorCode":"ACCOUNT_CLOSED"}`)
	f.Add(uint8(2), "1", `{"errorCode":"NOPE"}`)
	f.Add(uint8(2), "1", `{"errorCode":1}`)
	f.Add(uint8(2), "1", `{}`)
	f.Add(uint8(0), "fuzz-co", "")
	f.Add(uint8(0), "E13140088202603021200abcdefghijk", "")
	f.Add(uint8(1), "-1", "")
	f.Add(uint8(0), "9223372036854775808", "")
	f.Fuzz(func(t *testing.T, op uint8, id, body string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/transactions/" + id}
		switch op % 3 {
		case 1:
			rq.Method, rq.Path = http.MethodPost, rq.Path+"/settle"
		case 2:
			rq.Method, rq.Path, rq.Body = http.MethodPost, rq.Path+"/fail", body
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "errorCode")
	})
}
