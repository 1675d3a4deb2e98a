package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// FuzzAuthorizationHeader fuzzes the bearer token check of the protected
// routes: any Authorization header answers 200 or 401 in the route family's
// shape, never 5xx.
func FuzzAuthorizationHeader(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
	f.Add(uint8(0), "Bearer "+fs.Token())
	f.Add(uint8(1), "bearer "+fs.Token())
	f.Add(uint8(0), "Bearer")
	f.Add(uint8(1), "Bearer a.b.c")
	f.Add(uint8(0), "Basic dXNlcjpwYXNz")
	f.Add(uint8(1), "Bearer "+strings.Repeat("x", 5000))
	f.Add(uint8(0), "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.")
	f.Add(uint8(1), "")
	f.Fuzz(func(t *testing.T, route uint8, header string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/api/balance", Header: map[string]string{"Authorization": header}}
		sh := apitest.Minimal
		if route%2 == 1 {
			rq = apitest.Request{Method: http.MethodPost, Path: "/api/pix/cash-out", Body: `{}`,
				Header: map[string]string{"Authorization": header, "Content-Type": "application/json"}}
			sh = apitest.Extended
		}
		a := fs.Serve(t, rq)
		a.Check(t, rq, sh)
		if a.Status >= 300 && a.Status != http.StatusUnauthorized && a.Status != http.StatusBadRequest {
			t.Fatalf("Authorization %q: status %d %s", header, a.Status, a.Raw)
		}
	})
}

// FuzzAdminTokenHeader fuzzes the control plane's admin token check: any
// X-Sandbox-Admin-Token answers 200 only for the configured token, else an
// error in the minimal shape, never 5xx.
func FuzzAdminTokenHeader(f *testing.F) {
	const admin = "s3cret-admin-token"
	env := simulatortest.New(f, simulatortest.Options{AdminToken: admin})
	fs := &apitest.FuzzServer{Env: env}
	for _, s := range []string{admin, "", "s3cret", admin + " ", " " + admin, strings.ToUpper(admin), "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		rq := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/clock", Header: map[string]string{"X-Sandbox-Admin-Token": token}}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal)
		if (a.Status == http.StatusOK) != (token == admin) {
			t.Fatalf("admin token %q: status %d %s", token, a.Status, a.Raw)
		}
	})
}
