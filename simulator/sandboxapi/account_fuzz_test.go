package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxAccountRequest fuzzes POST /_sandbox/accounts, and the {id} and
// body of GET /_sandbox/accounts/{id} and POST /_sandbox/accounts/{id}/certificates.
func FuzzSandboxAccountRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(uint8(0), "", `{"name":"Ana","document":"52998224725","balance":100.5}`)
	f.Add(uint8(0), "", `{"name":"","document":"1","balance":-1}`)
	f.Add(uint8(0), "", `{"balance":"1e3"}`)
	f.Add(uint8(0), "", `{"balance":99999999999999}`)
	f.Add(uint8(0), "", `{"name":1}`)
	f.Add(uint8(1), "1", "")
	f.Add(uint8(1), "0", "")
	f.Add(uint8(1), "9223372036854775808", "")
	f.Add(uint8(1), "999", "")
	f.Add(uint8(2), "1", `{"notBefore":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","revoked":true}`)
	f.Add(uint8(2), "1", `{"notBefore":"2027-01-01T00:00:00Z","notAfter":"2026-01-01T00:00:00Z"}`)
	f.Add(uint8(2), "1", `{"notAfter":"0001-01-01T00:00:00Z"}`)
	f.Add(uint8(2), "1", "")
	f.Add(uint8(2), "x", `{}`)
	f.Fuzz(func(t *testing.T, op uint8, id, body string) {
		var rq apitest.Request
		switch op % 3 {
		case 0:
			rq = apitest.Request{Method: http.MethodPost, Path: "/_sandbox/accounts", Body: body}
		case 1:
			rq = apitest.Request{Method: http.MethodGet, Path: "/_sandbox/accounts/" + id}
		case 2:
			rq = apitest.Request{Method: http.MethodPost, Path: "/_sandbox/accounts/" + id + "/certificates", Body: body}
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id", "name", "document", "balance", "notBefore", "notAfter", "revoked")
	})
}
