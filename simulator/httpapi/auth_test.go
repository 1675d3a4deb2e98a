package httpapi_test

import (
	"encoding/json"
	"strings"
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
