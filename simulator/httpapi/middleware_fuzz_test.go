package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// FuzzAuthorizationHeader fuzzes the bearer token check of the protected
// routes: any Authorization header answers 200 or 401 in the route family's
// shape, never 5xx.
func FuzzAuthorizationHeader(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add(uint8(0), "Bearer "+fs.tok)
	f.Add(uint8(1), "bearer "+fs.tok)
	f.Add(uint8(0), "Bearer")
	f.Add(uint8(1), "Bearer a.b.c")
	f.Add(uint8(0), "Basic dXNlcjpwYXNz")
	f.Add(uint8(1), "Bearer "+strings.Repeat("x", 5000))
	f.Add(uint8(0), "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.")
	f.Add(uint8(1), "")
	f.Fuzz(func(t *testing.T, route uint8, header string) {
		rq := fuzzRequest{method: http.MethodGet, path: "/api/balance", header: map[string]string{"Authorization": header}}
		sh := minimalErrors
		if route%2 == 1 {
			rq = fuzzRequest{method: http.MethodPost, path: "/api/pix/cash-out", body: `{}`,
				header: map[string]string{"Authorization": header, "Content-Type": "application/json"}}
			sh = extendedErrors
		}
		a := fs.serve(t, rq)
		a.check(t, rq, sh)
		if a.status >= 300 && a.status != http.StatusUnauthorized && a.status != http.StatusBadRequest {
			t.Fatalf("Authorization %q: status %d %s", header, a.status, a.raw)
		}
	})
}

// FuzzAdminTokenHeader fuzzes the control plane's admin token check: any
// X-Sandbox-Admin-Token answers 200 only for the configured token, else an
// error in the minimal shape, never 5xx.
func FuzzAdminTokenHeader(f *testing.F) {
	const admin = "s3cret-admin-token"
	env := simulatortest.New(f, simulatortest.Options{AdminToken: admin})
	fs := &fuzzServer{env: env}
	for _, s := range []string{admin, "", "s3cret", admin + " ", " " + admin, strings.ToUpper(admin), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		rq := fuzzRequest{method: http.MethodGet, path: "/_sandbox/clock", header: map[string]string{"X-Sandbox-Admin-Token": token}}
		a := fs.serve(t, rq)
		a.check(t, rq, minimalErrors)
		if (a.status == http.StatusOK) != (token == admin) {
			t.Fatalf("admin token %q: status %d %s", token, a.status, a.raw)
		}
	})
}
