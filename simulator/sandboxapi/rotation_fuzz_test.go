package sandboxapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxRotateSecretRequest fuzzes the body and the {id} of POST
// /_sandbox/webhook-targets/{id}/rotate-secret and of POST
// /_sandbox/listeners/{id}/rotate-secret: every answer is 200 with a whsec_
// secret, or the minimal error shape naming a field.
func FuzzSandboxRotateSecretRequest(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	for _, b := range []string{``, `{}`, `{"overlap":"24h"}`, `{"overlap":0}`, `{"overlap":86400}`, `{"overlap":1.5}`, `{"overlap":"-1s"}`,
		`{"overlap":"169h"}`, `{"overlap":1e99}`, `{"overlap":-0}`, `{"overlap":true}`, `{"overlap":["24h"]}`, `{"overlap":null}`,
		`{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`, `{"secret":"whsec_"}`, `{"secret":7}`, `[]`, `{"overlap":"1d"}`} {
		f.Add(b, "1")
		f.Add(b, "lst_0")
	}
	f.Add(`{}`, "0")
	f.Add(`{}`, "9223372036854775808")
	f.Fuzz(func(t *testing.T, body, id string) {
		for _, path := range []string{"/_sandbox/webhook-targets/", "/_sandbox/listeners/"} {
			rq := apitest.Request{Method: http.MethodPost, Path: path + id + "/rotate-secret", Body: body}
			a := fs.Serve(t, rq)
			a.Check(t, rq, apitest.Minimal, "id", "overlap", "secret", "body")
			if s, _ := a.Body["secret"].(string); a.Status == http.StatusOK && !strings.HasPrefix(s, "whsec_") {
				t.Fatalf("%s: 200 with secret %q", rq.Path, s)
			}
		}
	})
}
