package sandboxapi_test

import (
	"net/http"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
)

// FuzzSandboxClock fuzzes the bodies of POST /_sandbox/clock (set) and POST
// /_sandbox/clock/advance.
func FuzzSandboxClock(f *testing.F) {
	fs := apitest.NewFuzzServer(f)
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
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/clock", Body: body}
		if advance {
			rq.Path = "/_sandbox/clock/advance"
		}
		fs.Serve(t, rq).Check(t, rq, apitest.Minimal, "seconds", "duration", "now")
		get := apitest.Request{Method: http.MethodGet, Path: "/_sandbox/clock"}
		if a := fs.Serve(t, get); a.Status != http.StatusOK {
			t.Fatalf("GET /_sandbox/clock = %d %s", a.Status, a.Raw)
		}
	})
}

// TestSandboxClockLimit is the regression test of a 500 that FuzzSandboxClock
// found: a clock moved past year 9999 could not be stored. Moves past
// pix.MaxClockTime are a 400 naming the field; moves up to it still work.
func TestSandboxClockLimit(t *testing.T) {
	fs := apitest.NewFuzzServer(t)
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
		rq := apitest.Request{Method: http.MethodPost, Path: c.path, Body: c.body}
		a := fs.Serve(t, rq)
		a.Check(t, rq, apitest.Minimal, "now", "seconds", "duration")
		if a.Status != c.status {
			t.Fatalf("POST %s %s = %d %s, want %d", c.path, c.body, a.Status, a.Raw, c.status)
		}
	}
}
