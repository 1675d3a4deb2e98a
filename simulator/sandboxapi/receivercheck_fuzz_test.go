package sandboxapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxapi"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// receiverCheckFields are the fields of POST /_sandbox/check-receiver.
var receiverCheckFields = []string{"url", "callbackUrl", "secret", "headers", "timeout", "slow", "cases"}

// noSendSandbox is the real control plane except CheckReceiver, which
// validates the configuration as the core does and sends nothing, so the
// fuzzer never reaches the network whatever URL it makes up.
type noSendSandbox struct {
	*simulator.Simulator
	t testing.TB
}

func (s noSendSandbox) CheckReceiver(_ context.Context, cfg receivercheck.Config) (receivercheck.Report, error) {
	if cfg.DenyPrivate {
		s.t.Errorf("the request set DenyPrivate: %+v", cfg)
	}
	cfg, err := receivercheck.Validate(cfg)
	if err != nil {
		return receivercheck.Report{}, err
	}
	return receivercheck.Report{URL: cfg.URL, CallbackURL: cfg.CallbackURL, HeadersSent: []string{}, OK: true,
		TimeoutMs: cfg.Timeout.Milliseconds(), SlowMs: cfg.Slow.Milliseconds(), Cases: []receivercheck.CaseReport{}}, nil
}

// FuzzSandboxCheckReceiverRequest fuzzes the body of POST
// /_sandbox/check-receiver: never a 5xx, errors in the minimal shape, and a
// 400 names its field.
func FuzzSandboxCheckReceiverRequest(f *testing.F) {
	env := simulatortest.New(f, simulatortest.Options{})
	srv := httpapi.NewServer(httpapi.Config{Services: env.Sim, ControlPlane: sandboxapi.New(noSendSandbox{Simulator: env.Sim, t: f}), Clock: env.Sim.Clock()})
	f.Add(`{"url":"http://127.0.0.1:1/hook"}`)
	f.Add(`{"url":"https://partner.example/hooks","callbackUrl":"https://partner.example/processed","secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","headers":[{"key":"X-Api-Key","value":"k"}],"timeout":"2s","slow":"100ms","cases":["transfer","duplicate"]}`)
	f.Add(`{"url":"ftp://x","callbackUrl":"/rel","secret":"s","headers":[{"key":"Host","value":"a"},{"key":"webhook-id","value":"b"}],"timeout":"1m","slow":"-1s","cases":["nope"]}`)
	f.Add(`{"url":"https://x","timeout":5}`)
	f.Add(`{"url":"https://x","timeout":"5"}`)
	f.Add(`{"url":"https://x","slow":"soon"}`)
	f.Add(`{"url":"https://x","headers":{"X-A":"b"}}`)
	f.Add(`{"url":"https://x","headers":[1]}`)
	f.Add(`{"url":"https://x","cases":"transfer"}`)
	f.Add(`{"url":1}`)
	f.Add(`{"url":"https://x","denyPrivate":false,"DenyPrivate":false}`)
	f.Add(`{}`)
	f.Add(`[]`)
	f.Add(``)
	f.Add(`{"url":"https://x"} {}`)
	f.Fuzz(func(t *testing.T, body string) {
		rq := apitest.Request{Method: http.MethodPost, Path: "/_sandbox/check-receiver", Body: body}
		req := httptest.NewRequest(rq.Method, rq.Path, strings.NewReader(body))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		a := apitest.Answer{Status: rec.Code, Raw: rec.Body.Bytes()}
		if err := json.Unmarshal(a.Raw, &a.Body); err != nil {
			t.Fatalf("status %d, body not a JSON object: %q", a.Status, a.Raw)
		}
		a.Check(t, rq, apitest.Minimal, receiverCheckFields...)
		if a.Status == http.StatusOK {
			if _, ok := a.Body["cases"].([]any); !ok {
				t.Fatalf("200 without a report: %s", a.Raw)
			}
		}
	})
}

// TestSandboxCheckReceiver runs the check through the control plane against a
// real receiver: 200 with the JSON report, and a 400 naming the field for a
// bad configuration.
func TestSandboxCheckReceiver(t *testing.T) {
	env := simulatortest.New(t, simulatortest.Options{})
	var mu sync.Mutex
	var got []http.Header
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
	}))
	defer rcv.Close()
	post := func(body string) (int, []byte) {
		t.Helper()
		resp, err := http.Post(env.URL+"/_sandbox/check-receiver", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}

	// The timeout is 10s, the longest accepted, so the local receiver's answers
	// stay within it on a loaded machine; a value other than the default (5s)
	// in the report shows that the field was read.
	status, b := post(`{"url":"` + rcv.URL + `","headers":[{"key":"X-Api-Key","value":"k"}],"timeout":"10s","cases":["transfer","cashout_error","custom_headers"]}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, b)
	}
	var rep receivercheck.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(rep.Cases) != 3 || rep.Passed != 3 || rep.TimeoutMs != 10_000 || !rep.SecretGenerated || rep.HeadersSent[0] != "X-Api-Key" {
		t.Fatalf("report: %s", b)
	}
	mu.Lock()
	if len(got) != 3 || got[0].Get("X-Api-Key") != "k" || got[0].Get("webhook-signature") == "" {
		t.Fatalf("receiver got %v", got)
	}
	mu.Unlock()

	for _, tt := range []struct{ body, field string }{
		{`{"url":"ftp://x"}`, "url "},
		{`{"url":"` + rcv.URL + `","timeout":5}`, "timeout must be a string"},
		{`{"url":"` + rcv.URL + `","slow":"soon"}`, "slow must be a duration"},
		{`{"url":"` + rcv.URL + `","cases":["nope"]}`, "cases[0] must be one of"},
		{`{}`, "url is required"},
	} {
		status, b := post(tt.body)
		var e map[string]any
		_ = json.Unmarshal(b, &e)
		if msg, _ := e["message"].(string); status != http.StatusBadRequest || !strings.HasPrefix(msg, tt.field) || len(e) != 3 {
			t.Errorf("%s: %d %s", tt.body, status, b)
		}
	}
}
