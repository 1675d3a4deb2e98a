package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// FuzzSandboxRequestsQuery fuzzes the query of GET /_sandbox/requests, and
// the bodies the journal records and masks (any bytes to the token route).
func FuzzSandboxRequestsQuery(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{JournalSize: 64})
	fs := &fuzzServer{env: env, tok: tokenFor(f, env, 0), tokenAt: env.Sim.Clock().Now()}
	for _, q := range []string{"", "status=4xx", "status=404", "status=99", "since=2026-03-02T12:00:00Z", "since=x",
		"account=1", "account=0", "after=9223372036854775807", "after=-1", "path=/api", "path=api", "ref=E1", "limit=64", "limit=65",
		"status=%00", "path=%2F%00", "limit=1&limit=2"} {
		f.Add(q, `{"clientId":"x","clientSecret":"y"}`)
	}
	f.Add("", `{"clientSecret":"unterminated`)
	f.Add("", `[{"certificate":{"a":1}}]`)
	f.Fuzz(func(t *testing.T, query, body string) {
		fs.serve(t, fuzzRequest{method: http.MethodPost, path: "/api/auth/token", body: body})
		rq := fuzzRequest{method: http.MethodGet, path: "/_sandbox/requests", query: query}
		fs.serve(t, rq).check(t, rq, minimalErrors, "status", "since", "account", "after", "path", "limit")
	})
}

// FuzzSandboxListenerRequest fuzzes the body of POST /_sandbox/listeners and
// the {id} of renew and delete.
func FuzzSandboxListenerRequest(f *testing.F) {
	fs := newFuzzServer(f)
	for _, b := range []string{`{"accountId":1,"url":"http://127.0.0.1:9/h"}`, `{"all":true,"url":"http://127.0.0.1:9/h","events":["cash_out"]}`,
		`{"accountId":1,"url":"http://127.0.0.1:9/h","ttlSeconds":1.5}`, `{"accountId":-1}`, `{"url":1}`, `{"events":"cash_out"}`,
		`{"accountId":1,"url":"http://127.0.0.1:9/h","ttlSeconds":1e99}`, `{"accountId":1,"url":"http://127.0.0.1:9/h","secret":"whsec_"}`, ``, `[]`} {
		f.Add(b, "lst_0")
	}
	f.Fuzz(func(t *testing.T, body, id string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/_sandbox/listeners", body: body}
		a := fs.serve(t, rq)
		a.check(t, rq, minimalErrors, "accountId", "url", "events", "ttlSeconds", "secret", "eventType")
		if a.status == http.StatusCreated {
			// Leave nothing behind for the next input.
			del := fuzzRequest{method: http.MethodDelete, path: "/_sandbox/listeners/" + a.body["id"].(string)}
			if d := fs.serve(t, del); d.status != http.StatusOK {
				t.Fatalf("DELETE %s = %d %s", del.path, d.status, d.raw)
			}
		}
		for _, rq := range []fuzzRequest{{method: http.MethodPost, path: "/_sandbox/listeners/" + id + "/renew"}, {method: http.MethodDelete, path: "/_sandbox/listeners/" + id}} {
			fs.serve(t, rq).check(t, rq, minimalErrors, "id")
		}
	})
}
