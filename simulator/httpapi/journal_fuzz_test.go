package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// FuzzSandboxRequestsQuery fuzzes the query of GET /_sandbox/requests, and
// the bodies the journal records and masks (any bytes to the token route).
func FuzzSandboxRequestsQuery(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{JournalSize: 64})
	fs := apitest.FuzzServerOf(f, env)
	for _, q := range []string{"", "status=4xx", "status=404", "status=99", "since=2026-03-02T12:00:00Z", "since=x",
		"account=1", "account=0", "after=9223372036854775807", "after=-1", "path=/api", "path=api", "ref=E1", "limit=64", "limit=65",
		"status=%00", "path=%2F%00", "limit=1&limit=2"} {
		f.Add(q, `{"clientId":"x","clientSecret":"y"}`)
	}
	f.Add("", `{"clientSecret":"unterminated`)
	f.Add("", `[{"certificate":{"a":1}}]`)
	f.Fuzz(func(t *testing.T, query, body string) {
		fs.Serve(t, apitest.Request{Method: http.MethodPost, Path: "/api/auth/token", Body: body})
		rq := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/requests", Query: query}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "status", "since", "account", "after", "path", "limit")
	})
}
