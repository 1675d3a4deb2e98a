package httpapi_test

import (
	"net/http"
	"testing"
)

// FuzzSandboxTransactionRequest fuzzes the {id} of GET /_sandbox/transactions/{id}
// and its settle and fail actions, and the fail body. A pending cash-out is
// created first so that the actions also reach a real transaction.
func FuzzSandboxTransactionRequest(f *testing.F) {
	fs := newFuzzServer(f)
	co := fuzzRequest{method: http.MethodPost, path: "/api/pix/cash-out", auth: true, header: map[string]string{"Content-Type": "application/json"},
		body: `{"value":1,"externalId":"fuzz-co","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`}
	if a := fs.serve(f, co); a.status != http.StatusCreated {
		f.Fatalf("cash-out = %d %s", a.status, a.raw)
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
		rq := fuzzRequest{method: http.MethodGet, path: "/_sandbox/transactions/" + id}
		switch op % 3 {
		case 1:
			rq.method, rq.path = http.MethodPost, rq.path+"/settle"
		case 2:
			rq.method, rq.path, rq.body = http.MethodPost, rq.path+"/fail", body
		}
		fs.serve(t, rq).check(t, rq, minimalErrors, "id", "errorCode")
	})
}

// FuzzSandboxDictRequest fuzzes POST /_sandbox/dict/keys and the {key} of GET
// /_sandbox/dict/keys/{key}.
func FuzzSandboxDictRequest(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add(`{"Key":"fuzz@example.com","Type":"EMAIL","Name":"F","Document":"52998224725","ISPB":"00000000","Branch":"0001","AccountNumber":"1","AccountType":"CACC"}`, "fuzz@example.com")
	f.Add(`{"Key":"52998224725","Type":"EMAIL"}`, "52998224725")
	f.Add(`{"Key":"+5511987654321","Type":"PHONE","ISPB":"x","Scenario":"nope"}`, "+5511987654321")
	f.Add(`{"Key":""}`, "")
	f.Add(`{"Key":1}`, "%2B55")
	f.Add(`{}`, "a/b")
	f.Add(``, "pix@bcb.gov.br")
	f.Fuzz(func(t *testing.T, body, key string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/_sandbox/dict/keys", body: body}
		fs.serve(t, rq).check(t, rq, minimalErrors, "key", "type", "name", "document", "ispb", "branch", "accountNumber",
			"accountType", "scenario", "Key", "Type", "Name", "Document", "ISPB", "Branch", "AccountNumber", "AccountType", "Scenario")
		get := fuzzRequest{method: http.MethodGet, path: "/_sandbox/dict/keys/" + key}
		fs.serve(t, get).check(t, get, minimalErrors, "key")
	})
}

// FuzzSandboxWebhookTargetRequest fuzzes POST /_sandbox/webhook-targets, the
// {id} of DELETE /_sandbox/webhook-targets/{id}, and the queries of GET
// /_sandbox/webhook-targets and GET /_sandbox/webhook-deliveries.
func FuzzSandboxWebhookTargetRequest(f *testing.F) {
	fs := newFuzzServer(f)
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
		var rq fuzzRequest
		switch op % 4 {
		case 0:
			rq = fuzzRequest{method: http.MethodPost, path: "/_sandbox/webhook-targets", body: s}
		case 1:
			rq = fuzzRequest{method: http.MethodDelete, path: "/_sandbox/webhook-targets/" + s}
		case 2:
			rq = fuzzRequest{method: http.MethodGet, path: "/_sandbox/webhook-targets", query: s}
		case 3:
			rq = fuzzRequest{method: http.MethodGet, path: "/_sandbox/webhook-deliveries", query: s}
		}
		fs.serve(t, rq).check(t, rq, minimalErrors, "id", "accountId", "url", "eventType", "headers", "secret", "transactionId", "limit", "afterAttempt")
	})
}
