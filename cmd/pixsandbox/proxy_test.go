package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// bannerWriter hands the first line written (the proxy's banner) to a
// channel and keeps everything.
type bannerWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	banner chan string
	sent   bool
}

func (b *bannerWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if line, _, ok := strings.Cut(b.buf.String(), "\n"); ok && !b.sent {
		b.sent = true
		b.banner <- line
	}
	return len(p), nil
}

func (b *bannerWriter) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// dupUpstream accepts every cash-out with a new transaction id: a duplicate
// externalId accepted, a state finding.
func dupUpstream(t *testing.T) *httptest.Server {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"transactionId":"6f1c1f3e-1b7a-4c1e-9d2a-%012d","externalId":"dup-1","status":"PENDING","generateTime":"2026-03-02T12:00:00Z"}`, n.Add(1))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// runProxyFor runs `pixsandbox proxy` with args, sends two cash-outs with one
// externalId through it, stops it as SIGINT would, and returns its exit code
// and outputs.
func runProxyFor(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &bannerWriter{banner: make(chan string, 1)}
	var errb bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := make(chan int, 1)
	go func() { code <- runProxy(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), out, &errb, lookup) }()
	var banner string
	select {
	case banner = <-out.banner:
	case c := <-code:
		t.Fatalf("the proxy exited %d before listening: %s", c, errb.String())
	}
	postDupCashOuts(t, strings.Fields(strings.TrimPrefix(banner, "pixsandbox proxy: "))[0])
	cancel()
	return <-code, out.String(), errb.String()
}

// postDupCashOuts sends two cash-outs with one externalId to the proxy at
// url, without a token: a state finding and request findings.
func postDupCashOuts(t *testing.T, url string) {
	t.Helper()
	body := `{"value":10.50,"externalId":"dup-1","details":{"key":"53992810232","keyType":"DOCUMENT","name":"Dane","document":"53992810232"}}`
	for range 2 {
		resp, err := http.Post(url+"/api/pix/cash-out", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// TestProxyCmd_FailOn: a run that saw a state finding (and request
// findings: no bearer token) exits 1 under --fail-on state (the default) or
// request, and 0 under response or none; PIXSANDBOX_PROXY_FAIL_ON sets the
// default; the reports are written on exit and the summary printed.
func TestProxyCmd_FailOn(t *testing.T) {
	up := dupUpstream(t)
	dir := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"default", nil, nil, 1},
		{"state", nil, []string{"--fail-on", "state"}, 1},
		{"request", nil, []string{"--fail-on", "request"}, 1},
		{"response", nil, []string{"--fail-on", "response"}, 0},
		{"none", nil, []string{"--fail-on", "none"}, 0},
		{"from the environment", map[string]string{"PIXSANDBOX_PROXY_FAIL_ON": "none"}, nil, 0},
		{"the flag over the environment", map[string]string{"PIXSANDBOX_PROXY_FAIL_ON": "none"}, []string{"--fail-on", "state"}, 1},
		{"judged inline", nil, []string{"--judging", "inline"}, 1},
		{"judged inline from the environment", map[string]string{"PIXSANDBOX_PROXY_JUDGING": "inline"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jsonPath, junitPath := filepath.Join(dir, tt.name+".json"), filepath.Join(dir, tt.name+".xml")
			args := append([]string{"--upstream", up.URL, "--json", jsonPath, "--junit", junitPath}, tt.args...)
			code, stdout, stderr := runProxyFor(t, tt.env, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stderr, "[state] state.external-id-duplicate #2") || !strings.Contains(stderr, "[request] req.authorization-missing") {
				t.Errorf("stderr lacks the finding lines:\n%s", stderr)
			}
			if !strings.Contains(stdout, "2 exchanges") || !strings.Contains(stdout, "1 state") {
				t.Errorf("stdout lacks the summary:\n%s", stdout)
			}
			var rep struct {
				Counts  struct{ State int } `json:"counts"`
				Judging string              `json:"judging"`
			}
			judging := "process"
			if strings.HasPrefix(tt.name, "judged inline") {
				judging = "inline"
			}
			b, err := os.ReadFile(jsonPath)
			if err != nil || json.Unmarshal(b, &rep) != nil || rep.Counts.State != 1 || rep.Judging != judging {
				t.Errorf("JSON report (want judging %q): %v %s", judging, err, b)
			}
			if x, err := os.ReadFile(junitPath); err != nil || !bytes.Contains(x, []byte(`<failure message="1 findings`)) {
				t.Errorf("JUnit report: %v %s", err, x)
			}
		})
	}
}

// TestProxyCmd_Usage: bad usage is exit 2 with one line and the hint.
func TestProxyCmd_Usage(t *testing.T) {
	for _, args := range [][]string{
		{}, {"--upstream", "ftp://x"}, {"--upstream", "http://x", "--fail-on", "always"},
		{"--upstream", "http://x", "--client-cert", "c.pem"}, {"--upstream", "http://x", "extra"}, {"--nope"},
		{"--upstream", "http://x", "--judging", "elsewhere"},
	} {
		var out, errb bytes.Buffer
		code := runProxy(context.Background(), args, &out, &errb, func(string) (string, bool) { return "", false })
		lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
		if code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "pixsandbox proxy: ") || !strings.Contains(lines[1], "pixsandbox proxy -h") {
			t.Errorf("%v: exit %d, stderr %q: want 2, one line and the hint", args, code, errb.String())
		}
	}
}

// TestProxyCmd_Webhooks: with --webhooks-to the proxy prints the URL to
// register, forwards a delivery to the receiver, reports its webhook
// findings as they happen and in the summary, and webhook findings fail the
// run as response findings do.
func TestProxyCmd_Webhooks(t *testing.T) {
	var received atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/hooks/cash_out" {
			received.Add(1)
		}
		w.WriteHeader(204)
	}))
	defer receiver.Close()
	up := dupUpstream(t)
	const delivery = `{"type":"TRANSFER","data":{"id":7,"txId":null,"pixKey":"k","status":"LIQUIDATED","payment":{"amount":"12.3","currency":"BRL"},` +
		`"endToEndId":"E1","creditDebitType":"DEBIT","idempotencyKey":"i","creditorAccount":{"name":"n","document":"d","ispb":"1"},"remittanceInformation":null}}`
	for _, tt := range []struct {
		failOn string
		code   int
	}{{"state", 1}, {"response", 1}, {"request", 1}, {"none", 0}} {
		t.Run(tt.failOn, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out := &bannerWriter{banner: make(chan string, 1)}
			var errb bytes.Buffer
			env := map[string]string{"PIXSANDBOX_PROXY_WEBHOOKS_TO": receiver.URL}
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			code := make(chan int, 1)
			go func() {
				code <- runProxy(ctx, []string{"--addr", "127.0.0.1:0", "--upstream", up.URL, "--fail-on", tt.failOn}, out, &errb, lookup)
			}()
			var banner string
			select {
			case banner = <-out.banner:
			case c := <-code:
				t.Fatalf("the proxy exited %d before listening: %s", c, errb.String())
			}
			url := strings.Fields(strings.TrimPrefix(banner, "pixsandbox proxy: "))[0]
			before := received.Load()
			resp, err := http.Post(url+"/_proxy/webhooks/hooks/cash_out", "application/json", strings.NewReader(delivery))
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 204 || received.Load() != before+1 {
				t.Errorf("the upstream got %d; the receiver %d deliveries", resp.StatusCode, received.Load()-before)
			}
			cancel()
			if c := <-code; c != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c, tt.code, out.String(), errb.String())
			}
			stdout := out.String()
			if !strings.Contains(stdout, "register "+url+"/_proxy/webhooks with the upstream") || !strings.Contains(stdout, "webhooks: 1 deliveries to "+receiver.URL) ||
				!strings.Contains(stdout, "1 webhook findings") {
				t.Errorf("stdout:\n%s", stdout)
			}
			if !strings.Contains(errb.String(), "[webhook] hook.money-format #1 POST /_proxy/webhooks/hooks/cash_out") {
				t.Errorf("stderr:\n%s", errb.String())
			}
		})
	}
}

// TestProxyCmd_WebhookUsage: the webhook flags' bad usage is exit 2.
func TestProxyCmd_WebhookUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--upstream", "http://x", "--webhooks-addr", "127.0.0.1:0"},
		{"--upstream", "http://x", "--webhook-secret", "whsec_c2VjcmV0"},
		{"--upstream", "http://x", "--webhooks-to", "ftp://x"},
		{"--upstream", "http://x", "--webhooks-to", "http://x", "--webhook-secret", "c2VjcmV0"},
		{"--upstream", "http://x", "--webhooks-to", "http://x", "--webhook-secret", "whsec_!!"},
	} {
		var out, errb bytes.Buffer
		code := runProxy(context.Background(), args, &out, &errb, func(string) (string, bool) { return "", false })
		if code != 2 || !strings.HasPrefix(errb.String(), "pixsandbox proxy: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestProxyCmd_QuietAccounts: --quiet-accounts, or its variable, turns the
// balance rule on, and the summary says how many reads it judged.
func TestProxyCmd_QuietAccounts(t *testing.T) {
	up := dupUpstream(t)
	for _, tt := range []struct {
		name  string
		env   map[string]string
		args  []string
		quiet bool
	}{
		{"off by default", nil, nil, false},
		{"the flag", nil, []string{"--quiet-accounts"}, true},
		{"the variable", map[string]string{"PIXSANDBOX_PROXY_QUIET_ACCOUNTS": "true"}, nil, true},
		{"the flag over the variable", map[string]string{"PIXSANDBOX_PROXY_QUIET_ACCOUNTS": "true"}, []string{"--quiet-accounts=false"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, _ := runProxyFor(t, tt.env, append([]string{"--upstream", up.URL}, tt.args...)...)
			if got := strings.Contains(stdout, "quiet accounts: 0 balance reads judged"); got != tt.quiet {
				t.Errorf("the summary says quiet accounts: %v, want %v:\n%s", got, tt.quiet, stdout)
			}
		})
	}
}

// TestProxyCmd_Pprof: PIXSANDBOX_PPROF serves Go's profiles beside the
// proxy, as beside serve, for profiling it under load.
func TestProxyCmd_Pprof(t *testing.T) {
	addr := freeLoopbackAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &bannerWriter{banner: make(chan string, 1)}
	var errb bytes.Buffer
	env := map[string]string{"PIXSANDBOX_PPROF": addr}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	up := dupUpstream(t)
	code := make(chan int, 1)
	go func() {
		code <- runProxy(ctx, []string{"--addr", "127.0.0.1:0", "--upstream", up.URL, "--fail-on", "none"}, out, &errb, lookup)
	}()
	defer func() { cancel(); <-code }()
	select {
	case <-out.banner:
	case c := <-code:
		t.Fatalf("the proxy exited %d before listening: %s", c, errb.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/debug/pprof/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no profiles at %s within 5 s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProxyJudge_Usage: the judging process takes no arguments.
func TestProxyJudge_Usage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{judgeCommand, "extra"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "takes no arguments") || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want 2 and one line", code, out.String(), errb.String())
	}
}
