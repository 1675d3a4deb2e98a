package sandboxapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxJobRequest fuzzes POST /_sandbox/jobs and the {id} of GET
// /_sandbox/jobs/{id}.
func FuzzSandboxJobRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(`{"kind":"marker","seconds":60,"note":"n"}`, "1")
	f.Add(`{"duration":"1h"}`, "")
	f.Add(`{"kind":"settle","seconds":1}`, "x")
	f.Add(`{"seconds":1,"note":"`+strings.Repeat("a", 201)+`"}`, "%zz")
	f.Add(`{"seconds":1e20}`, "../jobs")
	f.Add(`{}`, "0000000000000000000000000000000000000001")
	f.Fuzz(func(t *testing.T, body, id string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/jobs", Body: body}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "kind", "seconds", "duration", "note")
		get := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/jobs/" + id}
		fs.Serve(t, get).Check(t, get, apitest.Minimal, "id")
	})
}
