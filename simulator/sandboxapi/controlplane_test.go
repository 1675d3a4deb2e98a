package sandboxapi_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

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
