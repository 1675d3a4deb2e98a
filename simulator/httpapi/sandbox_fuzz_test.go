package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzSandboxClock fuzzes the bodies of POST /_sandbox/clock (set) and POST
// /_sandbox/clock/advance.
func FuzzSandboxClock(f *testing.F) {
	fs := newFuzzServer(f)
	for _, s := range []struct {
		advance bool
		body    string
	}{
		{true, `{"seconds":10}`}, {true, `{"duration":"30m"}`}, {true, `{"seconds":1.5}`}, {true, `{"seconds":-1}`},
		{true, `{"seconds":1e30}`}, {true, `{"duration":"-1s"}`}, {true, `{"seconds":1,"duration":"1s"}`}, {true, `{}`},
		{true, `{"seconds":"10"}`}, {true, `{"duration":" 1h "}`}, {false, `{"now":"2027-01-01T00:00:00Z"}`},
		{false, `{"now":"2020-01-01T00:00:00Z"}`}, {false, `{"now":"9999-12-31T23:59:59Z"}`}, {false, `{"now":"tomorrow"}`},
		{false, `{"now":1}`}, {false, `{}`}, {false, ``}, {false, `{"now":"2026-03-02T12:00:00+99:00"}`},
	} {
		f.Add(s.advance, s.body)
	}
	f.Fuzz(func(t *testing.T, advance bool, body string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/_sandbox/clock", body: body}
		if advance {
			rq.path = "/_sandbox/clock/advance"
		}
		fs.serve(t, rq).check(t, rq, minimalErrors, "seconds", "duration", "now")
		get := fuzzRequest{method: http.MethodGet, path: "/_sandbox/clock"}
		if a := fs.serve(t, get); a.status != http.StatusOK {
			t.Fatalf("GET /_sandbox/clock = %d %s", a.status, a.raw)
		}
	})
}

// FuzzSandboxAccountRequest fuzzes POST /_sandbox/accounts, and the {id} and
// body of GET /_sandbox/accounts/{id} and POST /_sandbox/accounts/{id}/certificates.
func FuzzSandboxAccountRequest(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add(uint8(0), "", `{"name":"Ana","document":"52998224725","balance":100.5}`)
	f.Add(uint8(0), "", `{"name":"","document":"1","balance":-1}`)
	f.Add(uint8(0), "", `{"balance":"1e3"}`)
	f.Add(uint8(0), "", `{"balance":99999999999999}`)
	f.Add(uint8(0), "", `{"name":1}`)
	f.Add(uint8(1), "1", "")
	f.Add(uint8(1), "0", "")
	f.Add(uint8(1), "9223372036854775808", "")
	f.Add(uint8(1), "999", "")
	f.Add(uint8(2), "1", `{"notBefore":"2026-01-01T00:00:00Z","notAfter":"2027-01-01T00:00:00Z","revoked":true}`)
	f.Add(uint8(2), "1", `{"notBefore":"2027-01-01T00:00:00Z","notAfter":"2026-01-01T00:00:00Z"}`)
	f.Add(uint8(2), "1", `{"notAfter":"0001-01-01T00:00:00Z"}`)
	f.Add(uint8(2), "1", "")
	f.Add(uint8(2), "x", `{}`)
	f.Fuzz(func(t *testing.T, op uint8, id, body string) {
		var rq fuzzRequest
		switch op % 3 {
		case 0:
			rq = fuzzRequest{method: http.MethodPost, path: "/_sandbox/accounts", body: body}
		case 1:
			rq = fuzzRequest{method: http.MethodGet, path: "/_sandbox/accounts/" + id}
		case 2:
			rq = fuzzRequest{method: http.MethodPost, path: "/_sandbox/accounts/" + id + "/certificates", body: body}
		}
		fs.serve(t, rq).check(t, rq, minimalErrors, "id", "name", "document", "balance", "notBefore", "notAfter", "revoked")
	})
}

// FuzzSandboxSettingsRequest fuzzes the {id} and body of PUT and GET
// /_sandbox/accounts/{id}/settings.
func FuzzSandboxSettingsRequest(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add("1", `{"perTransactionLimit":1000,"dailyLimit":5000,"nightLimit":0,"fee":0.5,"cashInFee":"0.25","minExpirationTime":60,"splitSchedule":"0 3 * * *","medRateLimit":100}`)
	f.Add("1", `{"perTransactionLimit":-1,"fee":0.001,"minExpirationTime":29,"medRateLimit":0}`)
	f.Add("1", `{"minExpirationTime":1.5,"medRateLimit":1e9}`)
	f.Add("1", `{"splitSchedule":"not a cron"}`)
	f.Add("1", `{"splitSchedule":"@every 1s"}`)
	f.Add("1", `{"splitSchedule":""}`)
	f.Add("0", `{}`)
	f.Add("999", `{}`)
	f.Add("1", ``)
	f.Add("1", `{"dailyLimit":"abc"}`)
	f.Fuzz(func(t *testing.T, id, body string) {
		rq := fuzzRequest{method: http.MethodPut, path: "/_sandbox/accounts/" + id + "/settings", body: body}
		fs.serve(t, rq).check(t, rq, minimalErrors, "id", "perTransactionLimit", "dailyLimit", "nightLimit", "fee", "cashInFee",
			"minExpirationTime", "splitSchedule", "medRateLimit")
		get := fuzzRequest{method: http.MethodGet, path: "/_sandbox/accounts/" + id + "/settings"}
		fs.serve(t, get).check(t, get, minimalErrors, "id")
	})
}

// FuzzSandboxJobRequest fuzzes POST /_sandbox/jobs and the {id} of GET
// /_sandbox/jobs/{id}.
func FuzzSandboxJobRequest(f *testing.F) {
	fs := newFuzzServer(f)
	f.Add(`{"kind":"marker","seconds":60,"note":"n"}`, "1")
	f.Add(`{"duration":"1h"}`, "")
	f.Add(`{"kind":"settle","seconds":1}`, "x")
	f.Add(`{"seconds":1,"note":"`+strings.Repeat("a", 201)+`"}`, "%zz")
	f.Add(`{"seconds":1e20}`, "../jobs")
	f.Add(`{}`, "0000000000000000000000000000000000000001")
	f.Fuzz(func(t *testing.T, body, id string) {
		rq := fuzzRequest{method: http.MethodPost, path: "/_sandbox/jobs", body: body}
		fs.serve(t, rq).check(t, rq, minimalErrors, "kind", "seconds", "duration", "note")
		get := fuzzRequest{method: http.MethodGet, path: "/_sandbox/jobs/" + id}
		fs.serve(t, get).check(t, get, minimalErrors, "id")
	})
}

// FuzzSandboxRegistrationRequest fuzzes PUT /_sandbox/webhook-registration.
func FuzzSandboxRegistrationRequest(f *testing.F) {
	fs := newFuzzServer(f)
	for _, s := range []string{`{"mode":"enabled"}`, `{"mode":"disabled"}`, `{"mode":"ENABLED"}`, `{"mode":true}`, `{}`, ``, `{"mode":null}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rq := fuzzRequest{method: http.MethodPut, path: "/_sandbox/webhook-registration", body: body}
		a := fs.serve(t, rq)
		a.check(t, rq, minimalErrors, "mode")
		if a.status == http.StatusOK && a.body["mode"] != "enabled" && a.body["mode"] != "disabled" {
			t.Fatalf("200 with mode %v", a.body["mode"])
		}
	})
}

// TestSandboxClockLimit is the regression test of a 500 that FuzzSandboxClock
// found: a clock moved past year 9999 could not be stored. Moves past
// pix.MaxClockTime are a 400 naming the field; moves up to it still work.
func TestSandboxClockLimit(t *testing.T) {
	fs := newFuzzServer(t)
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"/_sandbox/clock", `{"now":"9999-12-31T23:59:59Z"}`, http.StatusBadRequest},
		{"/_sandbox/clock", `{"now":"9000-01-01T00:00:00.000000001Z"}`, http.StatusBadRequest},
		{"/_sandbox/clock", `{"now":"8999-12-31T23:59:00Z"}`, http.StatusOK},
		{"/_sandbox/clock/advance", `{"seconds":61}`, http.StatusBadRequest},
		{"/_sandbox/clock/advance", `{"duration":"2562047h"}`, http.StatusBadRequest},
		{"/_sandbox/clock/advance", `{"seconds":60}`, http.StatusOK},
		{"/_sandbox/clock/advance", `{"seconds":1}`, http.StatusBadRequest},
	} {
		rq := fuzzRequest{method: http.MethodPost, path: c.path, body: c.body}
		a := fs.serve(t, rq)
		a.check(t, rq, minimalErrors, "now", "seconds", "duration")
		if a.status != c.status {
			t.Fatalf("POST %s %s = %d %s, want %d", c.path, c.body, a.status, a.raw, c.status)
		}
	}
}
