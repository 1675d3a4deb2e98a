package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxFaultRequest fuzzes POST /_sandbox/faults, the {id} of DELETE
// /_sandbox/faults/{id} and the fault filter of GET /_sandbox/requests. A
// rule made is removed again, so the workspace never fills up.
func FuzzSandboxFaultRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(uint8(0), `{"method":"POST","route":"/api/pix/cash-out","accountId":1,"fault":"reset-after","times":1}`)
	f.Add(uint8(0), `{"route":"GET /api/balance","fault":"status=503;body=json","probability":0.5,"seed":7}`)
	f.Add(uint8(0), `{"method":"*","route":"*","fault":"delay=2s","probability":1e-3}`)
	f.Add(uint8(0), `{"method":"get","route":"/cob/{txid}","fault":"trickle=64","seed":9007199254740992}`)
	f.Add(uint8(0), `{"method":"PUT","route":"/cob/x","fault":"timeout"}`)
	f.Add(uint8(0), `{"method":"*","route":"*","fault":"timeout","times":1.5}`)
	f.Add(uint8(0), `{"method":"*","route":"*","fault":null,"accountId":-3}`)
	f.Add(uint8(0), `[]`)
	f.Add(uint8(1), "1")
	f.Add(uint8(1), "0")
	f.Add(uint8(1), "99999999999999999999")
	f.Add(uint8(2), "fault=true")
	f.Add(uint8(2), "fault=1&matched=false")
	f.Fuzz(func(t *testing.T, op uint8, s string) {
		var rq apitest.Request
		switch op % 3 {
		case 0:
			rq = apitest.Request{Method: http.MethodPost, Path: "/_sandbox/faults", Body: s}
		case 1:
			rq = apitest.Request{Method: http.MethodDelete, Path: "/_sandbox/faults/" + s}
		case 2:
			rq = apitest.Request{Method: http.MethodGet, Path: "/_sandbox/requests", Query: s}
		}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal, "method", "route", "accountId", "fault", "times", "probability", "seed", "id",
			"fault", "matched", "account", "path", "status", "since", "after", "limit", "workspace", "body")
		if a.Status == http.StatusCreated {
			fs.Serve(t, apitest.Request{Method: http.MethodDelete, Path: "/_sandbox/faults"})
		}
	})
}
