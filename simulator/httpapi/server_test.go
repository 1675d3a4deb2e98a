package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

func checkTokenShape(t *testing.T, r apitest.Result, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d: %s", r.Status, status, r.Raw)
	}
	for _, f := range []string{"statusCode", "timestamp", "path", "method", "code", "message", "userMessage", "details", "errorId"} {
		if _, ok := r.Body[f]; !ok {
			t.Errorf("token error shape lacks %q: %s", f, r.Raw)
		}
	}
	if r.Body["code"] != code {
		t.Errorf("code = %v, want %s", r.Body["code"], code)
	}
	if n, _ := r.Body["statusCode"].(json.Number).Int64(); int(n) != status {
		t.Errorf("statusCode = %v, want %d", r.Body["statusCode"], status)
	}
	if r.Body["errorId"] != r.Header.Get("X-Request-Id") || r.Body["errorId"] == "" {
		t.Errorf("errorId %v != X-Request-Id %q", r.Body["errorId"], r.Header.Get("X-Request-Id"))
	}
	if details, ok := r.Body["details"].(map[string]any); !ok || details["hint"] == nil {
		t.Errorf("details.hint missing: %s", r.Raw)
	}
}

func TestTokenRoute_BadInput(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	a := env.Fixtures.Accounts[0]
	pemBytes, _ := env.Fixtures.ReadFile(a.Certificate)
	cert := pix.EncodeCertHeader(pemBytes)
	json := map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": cert}
	tests := []struct {
		name    string
		body    string
		headers map[string]string
		status  int
		code    string
		field   string
	}{
		{name: "not JSON", body: "hello", status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "truncated JSON", body: `{"clientId":"` + a.ClientID, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "wrong type", body: `{"clientId":123,"clientSecret":"x"}`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "clientId"},
		{name: "wrong type secret", body: `{"clientId":"` + a.ClientID + `","clientSecret":true}`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "clientSecret"},
		{name: "missing fields", body: `{}`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "clientId"},
		{name: "null fields", body: `{"clientId":null,"clientSecret":null}`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "clientId"},
		{name: "array body", body: `[1,2]`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "two objects", body: `{} {}`, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "empty body", body: ``, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "wrong content type", body: `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`,
			headers: map[string]string{"Content-Type": "text/plain", "X-SSL-Client-Cert": cert}, status: 400, code: "PUB_REQUEST_BODY_INVALID", field: "body"},
		{name: "over 1 MiB", body: `{"clientId":"` + strings.Repeat("a", 2<<20) + `"}`, status: 413, code: "PUB_REQUEST_BODY_INVALID"},
		{name: "unknown scenario", body: `{}`, headers: map[string]string{"X-Sandbox-Scenario": "NOPE", "X-SSL-Client-Cert": cert},
			status: 400, code: "SANDBOX_UNKNOWN_SCENARIO", field: "X-Sandbox-Scenario"},
		{name: "scenario upstream unavailable", body: `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`,
			headers: map[string]string{"X-Sandbox-Scenario": "PUB_AUTH_UPSTREAM_UNAVAILABLE", "X-SSL-Client-Cert": cert}, status: 503, code: "PUB_AUTH_UPSTREAM_UNAVAILABLE"},
		{name: "scenario upstream error", body: `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`,
			headers: map[string]string{"X-Sandbox-Scenario": "PUB_AUTH_UPSTREAM_ERROR", "X-SSL-Client-Cert": cert}, status: 502, code: "PUB_AUTH_UPSTREAM_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.headers
			if h == nil {
				h = json
			}
			r := apitest.Do(t, "POST", env.URL+"/api/auth/token", strings.NewReader(tt.body), h)
			checkTokenShape(t, r, tt.status, tt.code)
			if tt.field != "" && !strings.Contains(string(r.Raw), `"field":"`+tt.field+`"`) {
				t.Errorf("no violation naming %q: %s", tt.field, r.Raw)
			}
		})
	}
}

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

func TestBalanceRoutes(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	tok := apitest.TokenFor(t, env, 0)
	h := map[string]string{"Authorization": "Bearer " + tok}
	r := apitest.Do(t, "GET", env.URL+"/accounts/balances", nil, h)
	want := `{"data":[{"eventDate":"2026-03-02T12:00:00.000Z","balanceAmount":{"available":10000.00,"blocked":0.00,"overdraft":0.00}}]}`
	if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != want {
		t.Fatalf("GET /accounts/balances = %d %s\nwant %s", r.Status, r.Raw, want)
	}
	for _, p := range []string{"/balance", "/api/balance"} {
		r := apitest.Do(t, "GET", env.URL+p, nil, h)
		want := `{"grossBalance":10000.00,"blockedBalance":0.00,"netBalance":10000.00,"consultedAt":"2026-03-02T12:00:00.000Z"}`
		if r.Status != 200 || strings.TrimSpace(string(r.Raw)) != want {
			t.Fatalf("GET %s = %d %s", p, r.Status, r.Raw)
		}
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

func TestSandbox_BadInput(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	for _, tc := range []struct {
		path, body, field string
	}{
		{"/_sandbox/clock/advance", `{}`, "seconds"},
		{"/_sandbox/clock/advance", `{"seconds":-1}`, "seconds"},
		{"/_sandbox/clock/advance", `{"seconds":"x"}`, "seconds"},
		{"/_sandbox/clock/advance", `{"duration":"soon"}`, "duration"},
		{"/_sandbox/clock/advance", `{"seconds":1,"duration":"1s"}`, "seconds"},
		{"/_sandbox/clock", `{"now":"yesterday"}`, "now"},
		{"/_sandbox/clock", `{"now":"2020-01-01T00:00:00Z"}`, ""},
		{"/_sandbox/accounts", `{"balance":1.005}`, "balance"},
		{"/_sandbox/accounts", `{"balance":-5}`, "balance"},
		{"/_sandbox/accounts", `{"document":"123"}`, "document"},
		{"/_sandbox/accounts/abc/certificates", `{}`, "id"},
		{"/_sandbox/accounts/1/certificates", `{"notBefore":"x"}`, "notBefore"},
		{"/_sandbox/jobs", `{"kind":"settle","seconds":1}`, "kind"},
		{"/_sandbox/jobs", `not json`, "body"},
	} {
		r := apitest.Do(t, "POST", env.URL+tc.path, strings.NewReader(tc.body), nil)
		if r.Status != 400 || len(r.Body) != 3 || r.Body["error"] != "Bad Request" {
			t.Errorf("POST %s %s = %d %s", tc.path, tc.body, r.Status, r.Raw)
			continue
		}
		if tc.field != "" && !strings.HasPrefix(r.Body["message"].(string), tc.field) {
			t.Errorf("POST %s %s: message does not name %q: %s", tc.path, tc.body, tc.field, r.Raw)
		}
	}
	r := apitest.Do(t, "POST", env.URL+"/_sandbox/clock/advance", strings.NewReader(`{"duration":"30m"}`), nil)
	if r.Status != 200 || r.Body["now"] != "2026-03-02T12:30:00Z" || r.Body["jobsRun"] == nil {
		t.Fatalf("advance 30m: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "POST", env.URL+"/_sandbox/accounts/424242/certificates", strings.NewReader(`{}`), nil); r.Status != 404 {
		t.Fatalf("certificate for unknown account: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/invariants", nil, nil); r.Status != 200 || r.Body["ok"] != true {
		t.Fatalf("invariants: %d %s", r.Status, r.Raw)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/scenarios", nil, nil); r.Status != 200 || !strings.Contains(string(r.Raw), "PUB_AUTH_UPSTREAM_ERROR") {
		t.Fatalf("scenarios: %d %s", r.Status, r.Raw)
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

// TestSandbox_ResetUnderLoad: requests racing POST /_sandbox/reset wait for it
// instead of meeting a half-dropped store: no 5xx, and every reset answers 200.
func TestSandbox_ResetUnderLoad(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{Dir: t.TempDir()})
	tok := apitest.TokenFor(t, env, 0)
	auth := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad atomic.Value
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var r apitest.Result
				switch (w + i) % 3 {
				case 0:
					r = apitest.DoRaw(t, "GET", env.URL+"/api/balance", nil, auth)
				case 1:
					body := fmt.Sprintf(`{"value":0.01,"externalId":"reset-%d-%d","details":{"key":"11987654321","keyType":"PHONE","name":"F","document":"52998224725"}}`, w, i)
					r = apitest.DoRaw(t, "POST", env.URL+"/api/pix/cash-out", strings.NewReader(body), auth)
				default:
					r = apitest.DoRaw(t, "GET", env.URL+"/_sandbox/accounts", nil, nil)
				}
				if r.Status >= 500 {
					bad.Store(fmt.Sprintf("%d %s", r.Status, r.Raw))
					return
				}
			}
		}()
	}
	for range 5 {
		if r := apitest.DoRaw(t, "POST", env.URL+"/_sandbox/reset", nil, nil); r.Status != 200 {
			t.Errorf("reset: %d %s", r.Status, r.Raw)
		}
	}
	close(stop)
	wg.Wait()
	if v := bad.Load(); v != nil {
		t.Fatalf("a request racing the reset got %s", v)
	}
	if r := apitest.Do(t, "GET", env.URL+"/_sandbox/invariants", nil, nil); r.Status != 200 || r.Body["ok"] != true {
		t.Fatalf("invariants after the resets: %d %s", r.Status, r.Raw)
	}
}
