package sandboxclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// recorded is what the test server got.
type recorded struct {
	method, path, query string
	header              http.Header
	body                []byte
}

// serve starts a server that records each request and answers status and
// body, and returns a client of it with admin token "s3cret".
func serve(t *testing.T, status int, body string) (*sandboxclient.Client, chan recorded) {
	t.Helper()
	got := make(chan recorded, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- recorded{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery, header: r.Header.Clone(), body: b}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return sandboxclient.New(srv.URL+"/", "s3cret"), got
}

func TestCall_AdminTokenOnControlPlaneOnly(t *testing.T) {
	c, got := serve(t, http.StatusOK, `{}`)
	ctx := context.Background()
	for _, tc := range []struct {
		path  string
		token bool
	}{{"/_sandbox/clock", true}, {"/_sandbox", true}, {"/api/balance", false}, {"/_sandboxes", false}} {
		if _, err := c.Call(ctx, http.MethodGet, tc.path, nil, map[string]string{"X-Extra": "1"}, http.StatusOK); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		r := <-got
		if has := r.header.Get(sandboxclient.AdminHeader) == "s3cret"; has != tc.token {
			t.Errorf("%s: admin token sent %v, want %v", tc.path, has, tc.token)
		}
		if r.header.Get("X-Extra") != "1" || r.header.Get("Accept") != "application/json" {
			t.Errorf("%s: headers %v", tc.path, r.header)
		}
		if r.header.Get("Content-Type") != "" {
			t.Errorf("%s: a bodiless request carries Content-Type %q", tc.path, r.header.Get("Content-Type"))
		}
	}
}

func TestCall_Statuses(t *testing.T) {
	c, got := serve(t, http.StatusCreated, `{"ok":true}`)
	ctx := context.Background()
	r, err := c.Call(ctx, http.MethodPost, "/_sandbox/reset", map[string]int{"n": 1}, nil, http.StatusOK, http.StatusCreated)
	if err != nil || r.Status != http.StatusCreated || string(r.Body) != `{"ok":true}` {
		t.Fatalf("Call with 201 among the expected statuses: %v %+v", err, r)
	}
	if rec := <-got; rec.header.Get("Content-Type") != "application/json" || string(rec.body) != `{"n":1}` {
		t.Errorf("request body %q, Content-Type %q", rec.body, rec.header.Get("Content-Type"))
	}
	_, err = c.Call(ctx, http.MethodPost, "/_sandbox/reset", nil, nil, http.StatusOK)
	<-got
	var he *sandboxclient.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusCreated || he.Method != http.MethodPost || he.Path != "/_sandbox/reset" {
		t.Fatalf("Call with 201 not expected: %v", err)
	}
	if !sandboxclient.IsStatus(err, http.StatusCreated) || sandboxclient.IsStatus(err, http.StatusOK) {
		t.Errorf("IsStatus(%v) is wrong", err)
	}
	// Do answers whatever the status.
	if r, err := c.Do(ctx, http.MethodGet, "/x", nil, nil); err != nil || r.Status != http.StatusCreated {
		t.Errorf("Do: %v %+v", err, r)
	}
}

func TestHTTPError_Shapes(t *testing.T) {
	for _, tc := range []struct {
		name, body, token   string
		status              int
		message, code, hint string
		text                string
	}{
		{name: "minimal", status: 404, body: `{"statusCode":404,"message":"transaction 9 not found","error":"Not Found"}`,
			message: "transaction 9 not found", text: "GET /_sandbox/transactions/9 answered 404 Not Found: transaction 9 not found"},
		{name: "extended", status: 422, body: `{"errorCode":"INVALID_REQUEST","message":["value: required","key: bad"],"details":{"hint":"send value"}}`,
			message: "value: required; key: bad", code: "INVALID_REQUEST", hint: "send value",
			text: "GET /_sandbox/transactions/9 answered 422 Unprocessable Entity INVALID_REQUEST: value: required; key: bad\nsend value"},
		{name: "token", status: 400, body: `{"code":"INVALID_CLIENT","message":"bad secret"}`, message: "bad secret", code: "INVALID_CLIENT"},
		{name: "not JSON", status: 502, body: `bad gateway`, message: "bad gateway"},
		{name: "empty", status: 500, body: ``, message: "(empty body)"},
		{name: "no admin token", status: 401, body: `{"message":"admin token required"}`, message: "admin token required",
			hint: "The server runs with --admin-token: pass the same value with --admin-token or PIXSANDBOX_ADMIN_TOKEN."},
		{name: "wrong admin token", status: 401, token: "nope", body: `{"message":"admin token required"}`, message: "admin token required",
			hint: "The --admin-token given (or PIXSANDBOX_ADMIN_TOKEN) is not the server's --admin-token."},
		{name: "no control plane", status: 404, body: `{"message":"no route GET /_sandbox/transactions/9"}`, message: "no route GET /_sandbox/transactions/9",
			hint: "This server has no control plane: it was started with --control-plane=false, or --url is not a pixsandbox."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.status, tc.body)
			c.AdminToken = tc.token
			_, err := c.Transaction(context.Background(), "9")
			var he *sandboxclient.HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("error %T %v, want *HTTPError", err, err)
			}
			if he.Status != tc.status || he.Message != tc.message || he.Code != tc.code || he.Hint != tc.hint {
				t.Errorf("got status %d message %q code %q hint %q", he.Status, he.Message, he.Code, he.Hint)
			}
			if tc.text != "" && err.Error() != tc.text {
				t.Errorf("Error() = %q, want %q", err.Error(), tc.text)
			}
		})
	}
}

func TestCallJSON_Decoding(t *testing.T) {
	c, got := serve(t, http.StatusOK, `{"now":"2026-03-09T12:00:00Z","mode":"virtual","jobsRun":2,"webhooksPending":0}`)
	ctx := context.Background()
	clk, r, err := c.Advance(ctx, 90*time.Second, sandboxclient.WaitWebhooks)
	if err != nil {
		t.Fatal(err)
	}
	rec := <-got
	var sent map[string]string
	if json.Unmarshal(rec.body, &sent) != nil || sent["duration"] != "1m30s" || sent["wait"] != "webhooks" || rec.path != "/_sandbox/clock/advance" {
		t.Errorf("advance sent %s %s", rec.path, rec.body)
	}
	if clk.Mode != "virtual" || clk.JobsRun == nil || *clk.JobsRun != 2 || clk.WebhooksPending == nil || *clk.WebhooksPending != 0 || r.Status != 200 {
		t.Errorf("decoded %+v", clk)
	}
	if now, err := clk.Time(); err != nil || !now.Equal(time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("Time() = %v, %v", now, err)
	}
	// Numbers in interface values stay as written.
	var anyOut map[string]any
	if _, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/clock", nil, nil, &anyOut, http.StatusOK); err != nil {
		t.Fatal(err)
	}
	<-got
	if n, ok := anyOut["jobsRun"].(json.Number); !ok || n.String() != "2" {
		t.Errorf("jobsRun decoded as %T %v, want json.Number", anyOut["jobsRun"], anyOut["jobsRun"])
	}

	bad, _ := serve(t, http.StatusOK, `<html>`)
	_, _, err = bad.Clock(ctx)
	if err == nil || !strings.Contains(err.Error(), "GET /_sandbox/clock answered 200 with a body that is not the expected JSON") || !strings.Contains(err.Error(), "<html>") {
		t.Errorf("a body that is not JSON: %v", err)
	}
}

func TestTypedCalls_Requests(t *testing.T) {
	c, got := serve(t, http.StatusOK, `{"data":[]}`)
	ctx := context.Background()
	calls := []typedCall{
		{func() error { _, _, err := c.Clock(ctx); return err }, "GET", "/_sandbox/clock", ""},
		{func() error { _, _, err := c.SetClock(ctx, "2026-03-09T12:00:00Z", sandboxclient.WaitJobs); return err }, "POST", "/_sandbox/clock", `{"now":"2026-03-09T12:00:00Z","wait":"jobs"}`},
		{func() error { _, err := c.Deliveries(ctx, map[string][]string{"accountId": {"2"}}); return err }, "GET", "/_sandbox/webhook-deliveries?accountId=2", ""},
		{func() error { _, err := c.Requests(ctx, nil); return err }, "GET", "/_sandbox/requests", ""},
		{func() error { _, err := c.DictKey(ctx, "a b@x"); return err }, "GET", "/_sandbox/dict/keys/a%20b@x", ""},
		{func() error { return c.Account(ctx, 3, &struct{}{}) }, "GET", "/_sandbox/accounts/3", ""},
		{func() error { _, err := c.Listeners(ctx); return err }, "GET", "/_sandbox/listeners", ""},
		{func() error { _, err := c.RenewListener(ctx, "lst_1"); return err }, "POST", "/_sandbox/listeners/lst_1/renew", ""},
		{func() error { _, err := c.DeleteListener(ctx, "lst_1"); return err }, "DELETE", "/_sandbox/listeners/lst_1", ""},
		{func() error { _, _, err := c.ClearRequests(ctx); return err }, "DELETE", "/_sandbox/requests", ""},
		{func() error { _, err := c.Reset(ctx); return err }, "POST", "/_sandbox/reset", ""},
		{func() error {
			_, err := c.CreateListener(ctx, sandboxclient.ListenerRequest{URL: "http://h/", All: true, TTLSeconds: 30})
			return err
		}, "POST", "/_sandbox/listeners", `{"url":"http://h/","all":true,"ttlSeconds":30}`},
	}
	checkCalls(t, got, calls)
}

// typedCall is a typed call and the request it must send.
type typedCall struct {
	do                 func() error
	method, path, body string
}

// checkCalls makes each call against a server of serve answering 200 and
// checks the request it sent.
func checkCalls(t *testing.T, got chan recorded, calls []typedCall) {
	t.Helper()
	for _, tc := range calls {
		err := tc.do()
		rec := <-got
		if u := rec.path + map[bool]string{true: "?" + rec.query}[rec.query != ""]; rec.method != tc.method || u != tc.path || string(rec.body) != tc.body {
			t.Errorf("sent %s %s %s, want %s %s %s", rec.method, u, rec.body, tc.method, tc.path, tc.body)
		}
		if err != nil && !sandboxclient.IsStatus(err, http.StatusOK) {
			t.Errorf("%s %s: %v", tc.method, tc.path, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c := sandboxclient.New("http://"+addr, "")
	_, _, err = c.Clock(context.Background())
	var u *sandboxclient.Unreachable
	if !errors.As(err, &u) || u.Base != "http://"+addr || !strings.Contains(err.Error(), "cannot reach the simulator at http://"+addr) {
		t.Fatalf("error %T %v, want *Unreachable", err, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.Clock(ctx); err == nil || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "interrupted") {
		t.Errorf("a cancelled call: %v", err)
	}
}
