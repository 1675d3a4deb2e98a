package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// protectedRoutes is every route that needs a bearer token, with its shape.
var protectedRoutes = []struct {
	method, path string
	extended     bool
}{
	{"GET", "/accounts/balances", false}, {"GET", "/balance", false}, {"GET", "/api/balance", false},
	{"POST", "/dict/pix", false}, {"POST", "/api/pix/cash-out", true}, {"POST", "/api/pix/cash-in", true},
	{"PUT", "/cob/abcdefghijklmnopqrstuvwxyz123", false}, {"GET", "/cob/abcdefghijklmnopqrstuvwxyz123", false},
	{"PATCH", "/cob/abcdefghijklmnopqrstuvwxyz123", false},
	{"PUT", "/pix/E12345678202603021200abcdefghijk/devolucao/r1", false},
	{"GET", "/pix/E12345678202603021200abcdefghijk/devolucao/r1", false},
	{"POST", "/api/pix/refund-in/1", false}, {"GET", "/api/med", false},
	{"GET", "/api/pix/transactions/pix-key/a@b.com", false}, {"GET", "/api/transactions", false},
	{"POST", "/api/webhooks", false}, {"GET", "/api/webhooks", false}, {"POST", "/api/resend-webhook/1", false},
}

func TestProtectedRoutes_Unauthorized(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	valid := apitest.TokenFor(t, env, 0)
	cases := map[string]string{
		"missing":       "",
		"not bearer":    "Basic " + valid,
		"malformed":     "Bearer not-a-jwt",
		"tampered":      "Bearer " + valid[:len(valid)-4] + "AAAA",
		"empty bearer":  "Bearer ",
		"lowercase ok?": "", // placeholder replaced below
	}
	delete(cases, "lowercase ok?")
	for _, rt := range protectedRoutes {
		for name, auth := range cases {
			t.Run(rt.method+" "+rt.path+"/"+name, func(t *testing.T) {
				h := map[string]string{"Content-Type": "application/json"}
				if auth != "" {
					h["Authorization"] = auth
				}
				r := apitest.Do(t, rt.method, env.URL+rt.path, strings.NewReader(`{}`), h)
				if r.Status != 401 {
					t.Fatalf("status = %d, want 401: %s", r.Status, r.Raw)
				}
				if rt.extended {
					if r.Body["code"] != "HTTP_ERROR" || !strings.HasPrefix(r.Body["path"].(string), "/public/") || r.Body["errorId"] == nil || r.Body["error"] != "Unauthorized" {
						t.Fatalf("not the extended shape: %s", r.Raw)
					}
				} else if len(r.Body) != 3 || r.Body["error"] != "Unauthorized" || r.Body["message"] == nil {
					t.Fatalf("not the minimal shape: %s", r.Raw)
				}
			})
		}
	}
	// With a valid token (scheme case-insensitive) no route answers 401.
	for _, rt := range protectedRoutes {
		r := apitest.Do(t, rt.method, env.URL+rt.path, strings.NewReader(`{}`), map[string]string{"Authorization": "bearer " + valid})
		if r.Status == 401 || r.Status >= 500 && r.Status != 501 {
			t.Errorf("%s %s with a valid token: %d %s", rt.method, rt.path, r.Status, r.Raw)
		}
	}
}

func TestUnmatchedRoutes(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	tok := apitest.TokenFor(t, env, 0)
	if r := apitest.Do(t, "GET", env.URL+"/nope", nil, nil); r.Status != 401 {
		t.Fatalf("unknown path without token: %d", r.Status)
	}
	if r := apitest.Do(t, "GET", env.URL+"/nope", nil, map[string]string{"Authorization": "Bearer " + tok}); r.Status != 404 || r.Body["error"] != "Not Found" {
		t.Fatalf("unknown path with token: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "DELETE", env.URL+"/accounts/balances", nil, map[string]string{"Authorization": "Bearer " + tok}); r.Status != 405 {
		t.Fatalf("wrong method: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/nope", nil, nil); r.Status != 404 {
		t.Fatalf("unknown sandbox path: %d", r.Status)
	}
	if r := apitest.Do(t, "GET", env.URL+"/healthz", nil, nil); r.Status != 200 || r.Body["status"] != "ok" {
		t.Fatalf("healthz: %d %s", r.Status, r.Raw)
	}
}

func TestSandbox_AdminToken(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{AdminToken: "s3cret"})
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/clock", nil, nil); r.Status != 401 {
		t.Fatalf("without admin token: %d", r.Status)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/clock", nil, map[string]string{"X-Sandbox-Admin-Token": "wrong"}); r.Status != 401 {
		t.Fatalf("wrong admin token: %d", r.Status)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/clock", nil, map[string]string{"X-Sandbox-Admin-Token": "s3cret"}); r.Status != 200 {
		t.Fatalf("right admin token: %d %s", r.Status, r.Raw)
	}
}

func TestSandbox_NotMounted(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{NoSandbox: true})
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/clock", nil, nil); r.Status != 404 {
		t.Fatalf("control plane off: %d", r.Status)
	}
}

func TestMetrics(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	apitest.Do(t, "GET", env.URL+"/cob/abcdefghijklmnopqrstuvwxyz123", nil, nil)
	resp, err := http.Get(env.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `pixsandbox_http_requests_total{code="401",method="GET",route="/cob/{txid}"} 1`) {
		t.Fatalf("metrics do not label by route template:\n%s", b)
	}
	if strings.Contains(string(b), "abcdefghijklmnopqrstuvwxyz123") {
		t.Fatal("metrics carry a raw path")
	}
}
