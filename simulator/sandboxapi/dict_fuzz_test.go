package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxDictRequest fuzzes POST /_sandbox/dict/keys and the {key} of GET
// /_sandbox/dict/keys/{key}.
func FuzzSandboxDictRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(`{"Key":"fuzz@example.com","Type":"EMAIL","Name":"F","Document":"52998224725","ISPB":"00000000","Branch":"0001","AccountNumber":"1","AccountType":"CACC"}`, "fuzz@example.com")
	f.Add(`{"Key":"52998224725","Type":"EMAIL"}`, "52998224725")
	f.Add(`{"Key":"+5511987654321","Type":"PHONE","ISPB":"x","Scenario":"nope"}`, "+5511987654321")
	f.Add(`{"Key":""}`, "")
	f.Add(`{"Key":1}`, "%2B55")
	f.Add(`{}`, "a/b")
	f.Add(``, "pix@bcb.gov.br")
	f.Fuzz(func(t *testing.T, body, key string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/dict/keys", Body: body}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "key", "type", "name", "document", "ispb", "branch", "accountNumber",
			"accountType", "scenario", "Key", "Type", "Name", "Document", "ISPB", "Branch", "AccountNumber", "AccountType", "Scenario")
		get := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/dict/keys/" + key}
		fs.Serve(t, get).Check(t, get, apitest.Minimal, "key")
	})
}
