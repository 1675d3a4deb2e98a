package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// crReceiver is a partner's webhook receiver for the check-receiver tests:
// /hook records every delivery and applies it (once per webhook-id when
// dedupe), /processed answers the read-back. With wh, it first verifies
// every delivery with the official Standard Webhooks library and answers 401
// to one that does not verify.
type crReceiver struct {
	srv    *httptest.Server
	dedupe bool
	status int
	wh     *standardwebhooks.Webhook

	mu      sync.Mutex
	headers []http.Header
	applied map[string]int
}

func newCRReceiver(t *testing.T, dedupe bool, status int) *crReceiver {
	t.Helper()
	r := &crReceiver{dedupe: dedupe, status: status, applied: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.headers = append(r.headers, req.Header.Clone())
		if r.wh != nil {
			if err := r.wh.Verify(body, req.Header); err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized)
				return
			}
		}
		if r.status != 0 {
			w.WriteHeader(r.status)
			return
		}
		id := req.Header.Get("webhook-id")
		if !r.dedupe || r.applied[id] == 0 {
			r.applied[id]++
		}
	})
	mux.HandleFunc("GET /processed", func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		body := receivercheck.CallbackBody{Processed: []receivercheck.Processed{}}
		for id, n := range r.applied {
			body.Processed = append(body.Processed, receivercheck.Processed{WebhookID: id, Count: n})
		}
		_ = json.NewEncoder(w).Encode(body)
	})
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// newCRVerifier is a receiver built on the official Standard Webhooks
// library (standardwebhooks.NewWebhook(secret).Verify) that deduplicates by
// webhook-id.
func newCRVerifier(t *testing.T, secret string) *crReceiver {
	t.Helper()
	r := newCRReceiver(t, true, 0)
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.wh = wh
	r.mu.Unlock()
	return r
}

func (r *crReceiver) url() string      { return r.srv.URL + "/hook" }
func (r *crReceiver) callback() string { return r.srv.URL + "/processed" }

func (r *crReceiver) got() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// crRun runs check-receiver with env as the only environment.
func crRun(t *testing.T, env map[string]string, args ...string) cmdResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	code := runCheckReceiver(ctx, args, &out, &errOut, lookup)
	return cmdResult{code: code, out: out.String(), errOut: errOut.String()}
}

var crCaseLine = regexp.MustCompile(`(?m)^(PASS|FAIL|NOT CHECKED) +([a-z_]+) +(\d{3}|---) +`)

// TestCheckReceiverCLI_Pass: a receiver built on the official Standard
// Webhooks library that deduplicates by webhook-id, with a callback, passes
// every case of both groups: exit 0, one PASS line per case, the JSON report
// in the file, the custom header on every delivery.
func TestCheckReceiverCLI_Pass(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	r := newCRVerifier(t, secret)
	file := filepath.Join(t.TempDir(), "report.json")
	res := crRun(t, nil, "--url", r.url(), "--callback-url", r.callback(), "--header", "X-Api-Key: k1", "--secret", secret,
		"--timeout", "3s", "--slow", "10ms", "--json-report", file).must(t, 0,
		"acceptance  16 passed, 0 failed, 0 not checked\nrejection   7 passed, 0 failed, 0 not checked\n23 passed, 0 failed, 0 not checked",
		"X-Api-Key sent with every delivery")
	lines := crCaseLine.FindAllStringSubmatch(res.out, -1)
	if len(lines) != len(receivercheck.Cases) {
		t.Fatalf("%d case lines:\n%s", len(lines), res.out)
	}
	for i, l := range lines {
		status := "200"
		if receivercheck.GroupOf(l[2]) == receivercheck.GroupRejection && l[2] != receivercheck.CaseReplay {
			status = "401"
		}
		if l[1] != "PASS" || l[2] != receivercheck.Cases[i] || l[3] != status {
			t.Fatalf("line %q", l[0])
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep receivercheck.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Cases) != len(receivercheck.Cases) || rep.TimeoutMs != 3000 || rep.SlowMs != 10 || rep.SecretGenerated || rep.Secret != secret ||
		rep.Rejection != (receivercheck.GroupScore{Cases: 7, Passed: 7}) {
		t.Fatalf("JSON report: %s", b)
	}
	for i, h := range r.got() {
		if h.Get("X-Api-Key") != "k1" {
			t.Fatalf("delivery %d headers %v", i, h)
		}
	}
}

// TestCheckReceiverCLI_AcceptAllFailsRejection: a receiver that answers 200
// to everything fails every rejection case (exit 1), each with the reason;
// without --secret only missing_signature runs, and the check prints its
// generated secret.
func TestCheckReceiverCLI_AcceptAllFailsRejection(t *testing.T) {
	t.Parallel()
	r := newCRReceiver(t, false, 0)
	res := crRun(t, nil, "--url", r.url(), "--callback-url", r.callback(), "--secret", webhook.NewSecret(),
		"--cases", strings.Join(receivercheck.RejectionCases, ",")).must(t, 1, "acceptance  not run\nrejection   0 passed, 7 failed, 0 not checked")
	lines := crCaseLine.FindAllStringSubmatch(res.out, -1)
	if len(lines) != len(receivercheck.RejectionCases) {
		t.Fatalf("%d case lines:\n%s", len(lines), res.out)
	}
	for _, l := range lines {
		if l[1] != "FAIL" || l[3] != "200" {
			t.Fatalf("line %q", l[0])
		}
	}
	for _, why := range []string{"accepting a signature made with another secret", "accepting a body changed after signing",
		"accepting a delivery without webhook-signature", "accepting signatures of versions other than v1 only",
		"accepting a webhook-timestamp 10 minutes old", "accepting a webhook-timestamp 10 minutes ahead", "applied 2 times: deduplicate by webhook-id"} {
		if !strings.Contains(res.out, why) {
			t.Errorf("no case says %q:\n%s", why, res.out)
		}
	}

	res = crRun(t, nil, "--url", r.url(), "--cases", strings.Join(receivercheck.RejectionCases, ",")).must(t, 1, "rejection   0 passed, 1 failed, 6 not checked")
	if !regexp.MustCompile(`(?m)^FAIL +missing_signature +200 `).MatchString(res.out) || !strings.Contains(res.out, "(generated)") ||
		strings.Count(res.out, "needs the receiver's secret (--secret") != 6 {
		t.Fatalf("stdout:\n%s", res.out)
	}
}

// TestCheckReceiverCLI_Fails: a receiver that does not deduplicate fails the
// duplicate case through the callback, and one answering 500 fails them all:
// exit 1 both times.
func TestCheckReceiverCLI_Fails(t *testing.T) {
	t.Parallel()
	naive := newCRReceiver(t, false, 0)
	res := crRun(t, nil, "--url", naive.url(), "--callback-url", naive.callback(), "--cases", "transfer, duplicate").
		must(t, 1, "1 passed, 1 failed", "applied 2 times")
	if !regexp.MustCompile(`(?m)^FAIL +duplicate +200 `).MatchString(res.out) {
		t.Fatalf("stdout:\n%s", res.out)
	}
	broken := newCRReceiver(t, true, http.StatusInternalServerError)
	res = crRun(t, nil, "--url", broken.url(), "--cases", "transfer,cash_in").must(t, 1, "0 passed, 2 failed")
	if n := len(regexp.MustCompile(`(?m)^FAIL +\S+ +500 `).FindAllString(res.out, -1)); n != 2 {
		t.Fatalf("stdout:\n%s", res.out)
	}
	// Without a callback the duplicate case is not checked, which is no failure.
	crRun(t, nil, "--url", naive.url(), "--cases", "duplicate").must(t, 0, "NOT CHECKED  duplicate", "not checked (no callback URL)")
}

// TestCheckReceiverCLI_JSONStdout: --json-report - writes only JSON to stdout; the
// text report goes to stderr.
func TestCheckReceiverCLI_JSONStdout(t *testing.T) {
	t.Parallel()
	r := newCRReceiver(t, true, 0)
	res := crRun(t, nil, "--url", r.url(), "--cases", "med_created", "--json-report", "-").must(t, 0)
	var rep receivercheck.Report
	if err := json.Unmarshal([]byte(res.out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, res.out)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Result != receivercheck.Pass || !strings.Contains(res.errOut, "PASS         med_created") {
		t.Fatalf("report %+v\nstderr:\n%s", rep, res.errOut)
	}
}

// TestCheckReceiverCLI_Env: every flag reads PIXSANDBOX_RECEIVER_<FLAG>, and flags win.
func TestCheckReceiverCLI_Env(t *testing.T) {
	t.Parallel()
	r := newCRReceiver(t, true, 0)
	env := map[string]string{
		"PIXSANDBOX_RECEIVER_URL": r.url(), "PIXSANDBOX_RECEIVER_CALLBACK_URL": r.callback(), "PIXSANDBOX_RECEIVER_CASES": "duplicate,custom_headers",
		"PIXSANDBOX_RECEIVER_HEADER": "X-A: 1\nX-B: 2", "PIXSANDBOX_RECEIVER_TIMEOUT": "4s", "PIXSANDBOX_RECEIVER_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	}
	res := crRun(t, env).must(t, 0, "2 passed", "X-A, X-B sent with every delivery", "timeout    4s", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw: verify")
	if h := r.got()[0]; h.Get("X-A") != "1" || h.Get("X-B") != "2" {
		t.Fatalf("headers %v", h)
	}

	env["PIXSANDBOX_RECEIVER_URL"] = "ftp://not-used"
	before := len(r.got())
	res = crRun(t, env, "--url", r.url(), "--header", "X-C: 3", "--cases", "transfer").must(t, 0, "1 passed", "X-C sent with every delivery")
	if h := r.got()[before]; h.Get("X-C") != "3" || h.Get("X-A") != "" {
		t.Fatalf("flags must win over the environment: headers %v\n%s", h, res.out)
	}
	crRun(t, map[string]string{"PIXSANDBOX_RECEIVER_TIMEOUT": "soon"}, "--url", r.url()).must(t, 2, "PIXSANDBOX_RECEIVER_TIMEOUT")
}

// TestCheckReceiverCLI_Usage: bad usage exits 2 with a message naming the
// flag and its fix; -h prints the flags and exits 0.
func TestCheckReceiverCLI_Usage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no url", args: nil, want: "--url is required"},
		{name: "stray argument", args: []string{"--url", "http://127.0.0.1:1/", "extra"}, want: "unexpected arguments"},
		{name: "header without colon", args: []string{"--url", "http://127.0.0.1:1/", "--header", "X-A"}, want: "must be 'Name: value'"},
		{name: "blocked header", args: []string{"--url", "http://127.0.0.1:1/", "--header", "Host: x"}, want: `--header "Host": its name is a blocked header name`},
		{name: "bad url", args: []string{"--url", "ftp://x"}, want: "--url must be an absolute http or https URL"},
		{name: "bad callback", args: []string{"--url", "http://127.0.0.1:1/", "--callback-url", "x"}, want: "--callback-url must be"},
		{name: "bad secret", args: []string{"--url", "http://127.0.0.1:1/", "--secret", "s3cret"}, want: "--secret must be"},
		{name: "long timeout", args: []string{"--url", "http://127.0.0.1:1/", "--timeout", "1m"}, want: "--timeout must be from 1ms to 10s"},
		{name: "zero slow", args: []string{"--url", "http://127.0.0.1:1/", "--slow", "0s"}, want: "--slow must be more than 0"},
		{name: "unknown case", args: []string{"--url", "http://127.0.0.1:1/", "--cases", "transfer,nope"}, want: `--cases: each case must be one of transfer`},
		{name: "unknown flag", args: []string{"--url", "http://127.0.0.1:1/", "--nope"}, want: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := crRun(t, nil, tt.args...).must(t, 2, tt.want, `Run 'pixsandbox check-receiver -h'`)
			if res.out != "" {
				t.Fatalf("bad usage wrote to stdout: %q", res.out)
			}
		})
	}
	if h := crRun(t, nil, "-h").must(t, 0, "usage: pixsandbox check-receiver --url URL", "-callback-url", "docs/receiver-check.md"); h.errOut != "" || !strings.Contains(h.out, "PIXSANDBOX_RECEIVER_URL") {
		t.Fatalf("-h: stdout %q, stderr %q: want the usage on stdout naming PIXSANDBOX_RECEIVER_URL", h.out, h.errOut)
	}
}

// TestCheckReceiverCLI_Command runs the real entry point, as main does.
func TestCheckReceiverCLI_Command(t *testing.T) {
	t.Parallel()
	r := newCRReceiver(t, true, 0)
	var out, errOut bytes.Buffer
	if code := run([]string{"check-receiver", "--url", r.url(), "--cases", "refund"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := checkReceiver([]string{"--url", r.url(), "--cases", "cashout_error"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "errorCode ACCOUNT_CLOSED") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
