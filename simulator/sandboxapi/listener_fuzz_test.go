package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxListenerRequest fuzzes the body of POST /_sandbox/listeners and
// the {id} of renew and delete.
func FuzzSandboxListenerRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, b := range []string{`{"accountId":1,"url":"http://127.0.0.1:9/h"}`, `{"all":true,"url":"http://127.0.0.1:9/h","events":["cash_out"]}`,
		`{"accountId":1,"url":"http://127.0.0.1:9/h","ttlSeconds":1.5}`, `{"accountId":-1}`, `{"url":1}`, `{"events":"cash_out"}`,
		`{"accountId":1,"url":"http://127.0.0.1:9/h","ttlSeconds":1e99}`, `{"accountId":1,"url":"http://127.0.0.1:9/h","secret":"whsec_"}`, ``, `[]`} {
		f.Add(b, "lst_0")
	}
	f.Fuzz(func(t *testing.T, body, id string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/listeners", Body: body}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal, "accountId", "url", "events", "ttlSeconds", "secret", "eventType")
		if a.Status == http.StatusCreated {
			// Leave nothing behind for the next input.
			del := apitest.Request{Method: http.MethodDelete, Path: "/_sandbox/listeners/" + a.Body["id"].(string)}
			if d := fs.Serve(t, del); d.Status != http.StatusOK {
				t.Fatalf("DELETE %s = %d %s", del.Path, d.Status, d.Raw)
			}
		}
		for _, rq := range []apitest.Request{{Method: http.MethodPost, Path: "/_sandbox/listeners/" + id + "/renew"}, {Method: http.MethodDelete, Path: "/_sandbox/listeners/" + id}} {
			fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "id")
		}
	})
}
