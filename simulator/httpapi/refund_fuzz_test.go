package httpapi_test

import (
	"net/http"
	"testing"
)

// FuzzRefundGetPath fuzzes the {e2eid} and {id} of GET /pix/{e2eid}/devolucao/{id}.
func FuzzRefundGetPath(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add("E13140088202603021200abcdefghijk", "r1")
	f.Add("E13140088202603021200abcdefghij", "r1")
	f.Add("E13140088202603021200abcdefghijk", "")
	f.Add("E13140088202603021200abcdefghijk", "1234567890123456789012345678901234567")
	f.Add("", "a")
	f.Add("E13140088202603021200abcdefghijk", "a/b")
	f.Add("e13140088202603021200abcdefghijk", "r-1")
	f.Fuzz(func(t *testing.T, e2e, id string) {
		rq := fuzzRequest{method: http.MethodGet, path: "/pix/" + e2e + "/devolucao/" + id, auth: true}
		fs.serve(t, rq).check(t, rq, minimalErrors, "e2eid", "id")
	})
}

// FuzzRefundInPath fuzzes the {id} of POST /api/pix/refund-in/{id} with its body.
func FuzzRefundInPath(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add("1", `{"refundValue":1}`)
	f.Add("0", `{"refundValue":"1.00","reason":"r","externalId":"x"}`)
	f.Add("-1", `{"refundValue":1}`)
	f.Add("9223372036854775808", `{"refundValue":1}`)
	f.Add("E13140088202603021200abcdefghijk", `{"refundValue":1}`)
	f.Add("abc", `{}`)
	f.Add("1 ", `{"refundValue":0.001}`)
	f.Fuzz(func(t *testing.T, id, body string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/api/pix/refund-in/" + id, body: body, auth: true,
			header: map[string]string{"Content-Type": "application/json"}}
		fs.serve(t, rq).check(t, rq, minimalErrors, "id", "refundValue", "reason", "externalId")
	})
}
