package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/process"
	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxclient"
)

// MustRunMain starts the serve command on 127.0.0.1:0 with a virtual clock, in
// memory unless cfg says otherwise, and closes it at the end of the test.
func MustRunMain(tb testing.TB, edit func(*Config)) *Main {
	tb.Helper()
	m := NewMain(io.Discard, io.Discard)
	m.Config.Addr = "127.0.0.1:0"
	m.Config.InMemory = true
	m.Config.Clock = "virtual"
	m.Config.LogLevel = "error"
	if edit != nil {
		edit(&m.Config)
	}
	if err := m.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = m.Close() })
	return m
}

func call(tb testing.TB, method, url, body string, h map[string]string) (int, map[string]any) {
	tb.Helper()
	st, raw := rawCall(tb, method, url, body, h)
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		tb.Fatalf("%s %s: %d %q", method, url, st, raw)
	}
	return st, out
}

// rawCall returns a request's status and body as text.
func rawCall(tb testing.TB, method, url, body string, h map[string]string) (int, string) {
	tb.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}

// cmdResult is what a command printed and returned.
type cmdResult struct {
	code        int
	out, errOut string
}

// must fails the test unless the command exited with code and printed each
// of contains (on standard output or standard error).
func (r cmdResult) must(t *testing.T, code int, contains ...string) cmdResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.errOut)
	}
	for _, s := range contains {
		if !strings.Contains(r.out+r.errOut, s) {
			t.Fatalf("output lacks %q\nstdout:\n%s\nstderr:\n%s", s, r.out, r.errOut)
		}
	}
	return r
}

func fixtureToken(tb testing.TB, m *Main) string {
	tb.Helper()
	a := m.fixtures.Accounts[0]
	pemBytes, err := m.fixtures.ReadFile(a.Certificate)
	if err != nil {
		tb.Fatal(err)
	}
	st, body := call(tb, "POST", m.URL()+"/api/auth/token", `{"clientId":"`+a.ClientID+`","clientSecret":"`+a.ClientSecret+`"}`,
		map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)})
	if st != 201 {
		tb.Fatalf("token: %d %v", st, body)
	}
	return body["access_token"].(string)
}

// advance moves m's clock forward by d (a duration the control plane reads).
func advance(t *testing.T, m *Main, d string) {
	t.Helper()
	if st, c := call(t, "POST", m.URL()+"/_sandbox/clock/advance", `{"duration":"`+d+`"}`, nil); st != 200 {
		t.Fatalf("advance %s: %d %v", d, st, c)
	}
}

func TestMain_Smoke(t *testing.T) {
	var out bytes.Buffer
	m := NewMain(&out, io.Discard)
	m.Config.Addr, m.Config.InMemory, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", true, "virtual", "error"
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.PrintBanner()
	banner := out.String()
	for _, want := range []string{m.URL(), m.fixtures.Accounts[0].ClientID, m.fixtures.Accounts[0].ClientSecret, "account-1.pem", "/api/auth/token", "/accounts/balances", "/_sandbox/console", "webhooks tail"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	if st, body := call(t, "GET", m.URL()+"/healthz", "", nil); st != 200 || body["status"] != "ok" {
		t.Fatalf("healthz: %d %v", st, body)
	}
	tok := fixtureToken(t, m)
	st, body := call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok})
	if st != 200 || body["netBalance"].(json.Number).String() != "10000.00" {
		t.Fatalf("balance: %d %v", st, body)
	}
}

// TestMain_Restart: state, tokens and jobs survive a restart on the same data
// dir; a job that fell due while the server was down runs right after start.
func TestMain_Restart(t *testing.T) {
	dir := t.TempDir()
	start := func(clockStart time.Time) *Main {
		m := NewMain(io.Discard, io.Discard)
		m.Config.Addr, m.Config.DataDir, m.Config.Clock, m.Config.LogLevel = "127.0.0.1:0", dir, "virtual", "error"
		m.Config.ClockStart = clockStart
		if err := m.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := start(fixtures.Epoch)
	tok := fixtureToken(t, m)
	st, acct := call(t, "POST", m.URL()+"/_sandbox/accounts", `{"balance": 42.5}`, nil)
	if st != 201 {
		t.Fatalf("create account: %d %v", st, acct)
	}
	// A job at +10 s runs on advance 10.
	_, j1 := call(t, "POST", m.URL()+"/_sandbox/jobs", `{"seconds":10,"note":"ten"}`, nil)
	if st, c := call(t, "POST", m.URL()+"/_sandbox/clock/advance", `{"seconds":10}`, nil); st != 200 || c["jobsRun"].(json.Number).String() != "1" {
		t.Fatalf("advance: %d %v", st, c)
	}
	if _, j := call(t, "GET", m.URL()+"/_sandbox/jobs/"+j1["id"].(string), "", nil); j["status"] != "done" {
		t.Fatalf("job at +10 s after advance 10: %v", j)
	}
	// A job at +60 s is pending when the server stops.
	_, j2 := call(t, "POST", m.URL()+"/_sandbox/jobs", `{"seconds":60}`, nil)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}

	// Restart with the clock an hour later, as if time passed while it was down.
	m = start(fixtures.Epoch.Add(time.Hour))
	defer m.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, j := call(t, "GET", m.URL()+"/_sandbox/jobs/"+j2["id"].(string), "", nil)
		if j["status"] == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job due during the shutdown did not run after start: %v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The token from before this restart was issued at epoch+10 s; an hour of
	// simulation time has passed, so it has expired.
	st, _ = call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok})
	if st != 401 {
		t.Fatalf("a token older than 1800 s of simulation time must be refused, got %d", st)
	}
	tok = fixtureToken(t, m)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// A token issued before a restart keeps working until it expires; an earlier
	// --clock-start never moves the clock back.
	m = start(fixtures.Epoch)
	st, body := call(t, "GET", m.URL()+"/api/balance", "", map[string]string{"Authorization": "Bearer " + tok})
	if st != 200 || body["netBalance"].(json.Number).String() != "10000.00" {
		t.Fatalf("token issued before restart: %d %v", st, body)
	}
	_, c := call(t, "GET", m.URL()+"/_sandbox/clock", "", nil)
	if c["now"].(string) < fixtures.Epoch.Add(time.Hour).Format(time.RFC3339) {
		t.Fatalf("clock moved backwards across restart: %v", c)
	}
	_, a := call(t, "GET", m.URL()+"/_sandbox/accounts/"+acct["id"].(json.Number).String(), "", nil)
	if a["balance"].(map[string]any)["netBalance"].(json.Number).String() != "42.50" {
		t.Fatalf("created account after restart: %v", a)
	}
	if _, inv := call(t, "GET", m.URL()+"/_sandbox/invariants", "", nil); inv["ok"] != true {
		t.Fatalf("invariants after restart: %v", inv)
	}
}

// TestServe_ShutdownEndsFaultHolds: a request held by a timeout fault does
// not keep a shutting down server waiting for its client; the client sees
// its connection closed.
func TestServe_ShutdownEndsFaultHolds(t *testing.T) {
	m := MustRunMain(t, nil)
	ctx := context.Background()
	c := sandboxclient.New(m.URL(), "")
	if _, _, err := c.AddFault(ctx, sandboxclient.FaultRequest{Method: "GET", Route: "/accounts/balances", Fault: "timeout"}); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, m.URL()+"/accounts/balances", nil)
	req.Header.Set("Authorization", "Bearer "+fixtureToken(t, m))
	errc := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	// The rule counts the request when it starts to hold it.
	apitest.WaitFor(t, "the request to be held", func() bool {
		rules, _, err := c.Faults(ctx)
		return err == nil && len(rules) == 1 && rules[0].Matched == 1 && rules[0].Applied == 1
	})
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %s: it waited for the held request", took)
	}
	if err := <-errc; err == nil {
		t.Error("the held request was answered")
	}
}

func TestConfig(t *testing.T) {
	env := map[string]string{"PIXSANDBOX_ADDR": "127.0.0.1:9999", "PIXSANDBOX_CLOCK": "virtual", "PIXSANDBOX_IN_MEMORY": "true"}
	m := NewMain(io.Discard, io.Discard)
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	fsCfg := &m.Config
	fs := newFlagSet(fsCfg)
	if err := cmdline.ApplyEnv(fs, lookup, cmdline.EnvName); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--addr", "127.0.0.1:7777"}); err != nil {
		t.Fatal(err)
	}
	if m.Config.Addr != "127.0.0.1:7777" || m.Config.Clock != "virtual" || !m.Config.InMemory {
		t.Fatalf("flags must win over env, env over defaults: %+v", m.Config)
	}
	if DefaultConfig().Sync.Off {
		t.Fatal("writes must be synced by default")
	}
	for _, c := range []struct {
		args []string
		want process.SyncMode
	}{
		{[]string{"--sync=false"}, process.SyncMode{Off: true}},
		{[]string{"--sync=off"}, process.SyncMode{Off: true}},
		{[]string{"--sync"}, process.SyncMode{}},
		{[]string{"--sync=true"}, process.SyncMode{}},
		{[]string{"--sync=batch"}, process.SyncMode{}},
		{[]string{"--sync=100ms"}, process.SyncMode{Every: 100 * time.Millisecond}},
		{[]string{"--sync", "--sync=1s"}, process.SyncMode{Every: time.Second}},
	} {
		cfg := Config{Sync: process.SyncMode{Every: time.Hour}}
		if err := newFlagSet(&cfg).Parse(c.args); err != nil || cfg.Sync != c.want {
			t.Errorf("%v: Sync = %+v, %v; want %+v", c.args, cfg.Sync, err, c.want)
		}
		if back := (&process.SyncMode{}); back.Set(c.want.String()) != nil || *back != c.want {
			t.Errorf("%+v does not read back from %q: %+v", c.want, c.want.String(), *back)
		}
	}
	for _, bad := range []string{"--sync=sometimes", "--sync=0s", "--sync=500us", "--sync=2m", "--sync=-1s"} {
		cfg := DefaultConfig()
		if err := newFlagSet(&cfg).Parse([]string{bad}); err == nil || !strings.Contains(err.Error(), "100ms") {
			t.Errorf("%s: err %v, want one naming the accepted forms", bad, err)
		}
	}
	if err := cmdline.ApplyEnv(newFlagSet(&Config{}), func(k string) (string, bool) { return "x", k == "PIXSANDBOX_IN_MEMORY" }, cmdline.EnvName); err == nil {
		t.Fatal("a bad PIXSANDBOX_IN_MEMORY must be reported")
	}

	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"non-loopback without admin token", func(c *Config) { c.Addr = "0.0.0.0:8080" }, "--admin-token"},
		{"bad clock", func(c *Config) { c.Clock = "fast" }, "--clock"},
		{"bad addr", func(c *Config) { c.Addr = "8080" }, "--addr"},
		{"empty data dir", func(c *Config) { c.DataDir = "" }, "--data-dir"},
		{"bad cash-in webhook", func(c *Config) { c.CashInWebhook = "receive" }, "--cash-in-webhook"},
	} {
		c := DefaultConfig()
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want a message naming %s", tc.name, err, tc.want)
		}
	}
	ok := DefaultConfig()
	ok.Addr, ok.AdminToken = "0.0.0.0:8080", "t"
	if err := ok.Validate(); err != nil {
		t.Errorf("non-loopback with admin token: %v", err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "localhost:1": true, "[::1]:1": true, "0.0.0.0:1": false, ":1": false, "10.0.0.1:1": false} {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v", addr, got)
		}
	}
}

func TestRun_Commands(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "serve") {
		t.Fatalf("no command: %d %q", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"bogus"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "unknown command") {
		t.Fatalf("unknown command: %d %q", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"serve", "--clock", "fast"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--clock") {
		t.Fatalf("bad flag value: %d %q", code, errOut.String())
	}
	// The commands that drive a running simulator go to package cli.
	errOut.Reset()
	if code := run([]string{"clock"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "say show") {
		t.Fatalf("clock without a subcommand: %d %q", code, errOut.String())
	}
	if code := run([]string{"help"}, &out, &errOut); code != 0 {
		t.Fatalf("help: %d", code)
	}
}
