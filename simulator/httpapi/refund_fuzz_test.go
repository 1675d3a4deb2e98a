package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzRefundGetPath fuzzes the {e2eid} and {id} of GET /pix/{e2eid}/devolucao/{id}.
func FuzzRefundGetPath(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("E13140088202603021200abcdefghijk", "r1")
	f.Add("E13140088202603021200abcdefghij", "r1")
	f.Add("E13140088202603021200abcdefghijk", "")
	f.Add("E13140088202603021200abcdefghijk", "1234567890123456789012345678901234567")
	f.Add("", "a")
	f.Add("E13140088202603021200abcdefghijk", "a/b")
	f.Add("e13140088202603021200abcdefghijk", "r-1")
	f.Fuzz(func(t *testing.T, e2e, id string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/pix/" + e2e + "/devolucao/" + id, Auth: true}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "e2eid", "id")
	})
}

// FuzzRefundInPath fuzzes the {id} of POST /api/pix/refund-in/{id} with its body.
func FuzzRefundInPath(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add("1", `{"refundValue":1}`)
	f.Add("0", `{"refundValue":"1.00","reason":"r","externalId":"x"}`)
	f.Add("-1", `{"refundValue":1}`)
	f.Add("9223372036854775808", `{"refundValue":1}`)
	f.Add("E13140088202603021200abcdefghijk", `{"refundValue":1}`)
	f.Add("abc", `{}`)
	f.Add("1 ", `{"refundValue":0.001}`)
	f.Fuzz(func(t *testing.T, id, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/api/pix/refund-in/" + id, Body: body, Auth: true,
			Header: map[string]string{"Content-Type": "application/json"}}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "refundValue", "reason", "externalId")
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
