package sandboxapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/apitest"
	"github.com/pixsandbox/pixsandbox/simulator/sandboxtest"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// The network faults of docs/faults.md, over real HTTP: a real client, a
// real simulator, the faults applied on the wire.

// faultEnv is a simulator with a journal, fixture account 1's token and a
// client of its own (no connection shared with another test).
type faultEnv struct {
	*simulatortest.Env
	token  string
	client *http.Client
}

func newFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	env := simulatortest.New(t, simulatortest.Options{JournalSize: 100})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &faultEnv{Env: env, token: apitest.TokenFor(t, env, 0), client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

// send makes one request of the PIX API as account 1 (fault, when not "",
// in X-Sandbox-Fault); err is the transport's.
func (e *faultEnv) send(method, path, body, fault string, c *http.Client) (status int, raw []byte, err error) {
	req, _ := http.NewRequest(method, e.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Content-Type", "application/json")
	if fault != "" {
		req.Header.Set("X-Sandbox-Fault", fault)
	}
	if c == nil {
		c = e.client
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// addRule adds a fault rule and returns its id.
func (e *faultEnv) addRule(t *testing.T, body string) int64 {
	t.Helper()
	r := apitest.Do(t, http.MethodPost, e.URL+"/_sandbox/faults", strings.NewReader(body), nil)
	if r.Status != http.StatusCreated {
		t.Fatalf("add rule %s: %d %s", body, r.Status, r.Raw)
	}
	id, _ := r.Body["id"].(json.Number).Int64()
	return id
}

func cashOutBody(externalID string) string {
	return `{"value":10.00,"externalId":"` + externalID + `","details":{"key":"12345678909","keyType":"DOCUMENT","name":"Ana","document":"12345678909"}}`
}

// transactionsOf lists account 1's transactions with externalId.
func (e *faultEnv) transactionsOf(t *testing.T, externalID string) []map[string]any {
	t.Helper()
	st, raw, err := e.send(http.MethodGet, "/api/transactions?externalId="+externalID, "", "", nil)
	if err != nil || st != http.StatusOK {
		t.Fatalf("listing: %d %s %v", st, raw, err)
	}
	var list struct{ Data []map[string]any }
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&list); err != nil {
		t.Fatal(err)
	}
	return list.Data
}

// faulted returns the journal's entries a fault was applied to, newest first.
func (e *faultEnv) faulted(t *testing.T) []map[string]any {
	t.Helper()
	r := apitest.Do(t, http.MethodGet, e.URL+"/_sandbox/requests?fault=true", nil, nil)
	var out []map[string]any
	for _, x := range r.Body["data"].([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// TestFaults_ResetAfterCashOutCommitsOnce: a cash-out whose connection is
// dropped after the commit leaves exactly one transaction, and the client's
// retry with the same externalId gets the contract's duplicate answer, 400
// PIX_DUPLICATE_EXTERNAL_ID naming the transaction made.
func TestFaults_ResetAfterCashOutCommitsOnce(t *testing.T) {
	e := newFaultEnv(t)
	rule := e.addRule(t, `{"method":"POST","route":"/api/pix/cash-out","accountId":1,"fault":"reset-after","times":1}`)
	if _, _, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("reset-after-1"), "", nil); err == nil {
		t.Fatal("the cash-out was answered; want the connection dropped")
	}
	txs := e.transactionsOf(t, "reset-after-1")
	if len(txs) != 1 {
		t.Fatalf("%d transactions with the externalId, want exactly 1: %v", len(txs), txs)
	}
	st, raw, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("reset-after-1"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var dup struct {
		Code, ErrorCode string
		Details         struct{ ExistingTransactionID json.Number }
	}
	_ = json.Unmarshal(raw, &dup)
	if st != http.StatusBadRequest || dup.ErrorCode != "PIX_DUPLICATE_EXTERNAL_ID" || dup.Details.ExistingTransactionID.String() != fmt.Sprint(txs[0]["transactionId"]) {
		t.Fatalf("the retry: %d %s; want 400 PIX_DUPLICATE_EXTERNAL_ID naming transaction %v", st, raw, txs[0]["transactionId"])
	}
	if n := len(e.transactionsOf(t, "reset-after-1")); n != 1 {
		t.Fatalf("%d transactions after the retry", n)
	}
	j := e.faulted(t)
	if len(j) != 1 || j[0]["status"] != json.Number("201") || !strings.Contains(j[0]["responseBody"].(string), `"externalId":"reset-after-1"`) {
		t.Fatalf("journal: %v", j)
	}
	if f := j[0]["fault"].(map[string]any); f["applied"] != "reset-after" || f["source"] != "rule" || f["ruleId"] != json.Number(strconv.FormatInt(rule, 10)) {
		t.Errorf("journal fault %v", f)
	}
	rules := apitest.Do(t, http.MethodGet, e.URL+"/_sandbox/faults", nil, nil).Body["data"].([]any)
	if r := rules[0].(map[string]any); r["applied"] != json.Number("1") || r["remaining"] != json.Number("0") {
		t.Errorf("the rule after its one time: %v", r)
	}
}

// TestFaults_ResetBeforeCommitsNothing: a cash-out dropped before the route
// runs leaves nothing, and the retry is accepted as the first.
func TestFaults_ResetBeforeCommitsNothing(t *testing.T) {
	e := newFaultEnv(t)
	if _, _, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("reset-before-1"), "reset-before", nil); err == nil {
		t.Fatal("the cash-out was answered; want the connection dropped")
	}
	if txs := e.transactionsOf(t, "reset-before-1"); len(txs) != 0 {
		t.Fatalf("reset-before committed %v", txs)
	}
	if st, raw, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("reset-before-1"), "", nil); err != nil || st != http.StatusCreated {
		t.Fatalf("the retry: %d %s %v", st, raw, err)
	}
	j := e.faulted(t)
	if len(j) != 1 || j[0]["status"] != json.Number("0") || j[0]["fault"].(map[string]any)["source"] != "header" {
		t.Fatalf("journal: %v", j)
	}
}

// TestFaults_DelayAndTimeout: delay answers (committed) no sooner than asked;
// timeout holds until the client's own timeout and commits nothing. Wall
// times are checked as lower bounds only.
func TestFaults_DelayAndTimeout(t *testing.T) {
	e := newFaultEnv(t)
	const delay = 300 * time.Millisecond
	start := time.Now()
	st, raw, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("delay-1"), "delay=300ms", nil)
	if err != nil || st != http.StatusCreated || !strings.Contains(string(raw), `"delay-1"`) {
		t.Fatalf("delayed cash-out: %d %s %v", st, raw, err)
	}
	if took := time.Since(start); took < delay {
		t.Errorf("answered after %s, before the delay %s", took, delay)
	}

	const clientTimeout = 200 * time.Millisecond
	impatient := &http.Client{Transport: &http.Transport{}, Timeout: clientTimeout}
	start = time.Now()
	_, _, err = e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("timeout-1"), "timeout", impatient)
	var ne interface{ Timeout() bool }
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the client's error is %v, want its own timeout", err)
	}
	if took := time.Since(start); took < clientTimeout {
		t.Errorf("the client gave up after %s", took)
	}
	if txs := e.transactionsOf(t, "timeout-1"); len(txs) != 0 {
		t.Fatalf("timeout committed %v", txs)
	}
	// The held request ends when its client goes away: the journal, which
	// records a request when it ends, lists it.
	deadline := time.Now().Add(10 * time.Second)
	for len(e.faulted(t)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the timed out request never ended on the server")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFaults_ProbabilityRepeats: a rule with a probability and a seed fails
// the same requests of a run when the run is made again.
func TestFaults_ProbabilityRepeats(t *testing.T) {
	e := newFaultEnv(t)
	run := func() string {
		apitest.Do(t, http.MethodDelete, e.URL+"/_sandbox/faults", nil, nil)
		e.addRule(t, `{"method":"GET","route":"/api/balance","fault":"status=503","probability":0.5,"seed":7}`)
		var b strings.Builder
		for range 24 {
			st, _, err := e.send(http.MethodGet, "/api/balance", "", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(map[bool]string{true: "x", false: "."}[st == http.StatusServiceUnavailable])
		}
		return b.String()
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("two runs with seed 7 failed other requests:\n%s\n%s", first, second)
	}
	if !strings.Contains(first, "x") || !strings.Contains(first, ".") {
		t.Errorf("probability 0.5 over 24 requests: %s", first)
	}
}

// TestFaults_TrickleDeliversWholeBody: a trickled answer is the same answer.
func TestFaults_TrickleDeliversWholeBody(t *testing.T) {
	e := newFaultEnv(t)
	st, plain, err := e.send(http.MethodGet, "/api/balance", "", "", nil)
	if err != nil || st != http.StatusOK {
		t.Fatal(st, err)
	}
	st, slow, err := e.send(http.MethodGet, "/api/balance", "", "trickle=2000", nil)
	if err != nil || st != http.StatusOK || !bytes.Equal(slow, plain) {
		t.Fatalf("trickled: %d %q %v; want %q", st, slow, err, plain)
	}
}

// TestFaults_GatewayStatus: status answers the gateway's page, not the
// route's answer, and runs nothing.
func TestFaults_GatewayStatus(t *testing.T) {
	e := newFaultEnv(t)
	st, raw, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("gateway-1"), "status=502", nil)
	if err != nil || st != http.StatusBadGateway || !strings.Contains(string(raw), "<h1>502 Bad Gateway</h1>") {
		t.Fatalf("status=502: %d %s %v", st, raw, err)
	}
	if txs := e.transactionsOf(t, "gateway-1"); len(txs) != 0 {
		t.Fatalf("a gateway's 502 committed %v", txs)
	}
}

// TestFaults_ControlPlaneNeverFaulted: rules for every route and method, and
// the header, leave the control plane, /healthz and /metrics alone.
func TestFaults_ControlPlaneNeverFaulted(t *testing.T) {
	e := newFaultEnv(t)
	e.addRule(t, `{"method":"*","route":"*","fault":"reset-before"}`)
	for _, path := range []string{"/_sandbox/clock", "/_sandbox/faults", "/_sandbox/requests", "/healthz", "/metrics"} {
		for _, header := range []string{"", "reset-before"} {
			req, _ := http.NewRequest(http.MethodGet, e.URL+path, nil)
			if header != "" {
				req.Header.Set("X-Sandbox-Fault", header)
			}
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatalf("GET %s (X-Sandbox-Fault %q): %v", path, header, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s (X-Sandbox-Fault %q): %d", path, header, resp.StatusCode)
			}
		}
	}
	if _, _, err := e.send(http.MethodGet, "/api/balance", "", "", nil); err == nil {
		t.Error("the rule for every route left GET /api/balance alone")
	}
}

// TestFaults_BadInput: a bad rule is refused with 400 naming its field, a
// bad header with 400 in the route's shape naming the header, an unknown
// rule with 404.
func TestFaults_BadInput(t *testing.T) {
	e := newFaultEnv(t)
	for _, tt := range []struct{ body, field string }{
		{`{"method":"POST","route":"/api/pix/cash-out"}`, "fault"},
		{`{"method":"POST","route":"/api/pix/cash-out","fault":"drop"}`, "fault"},
		{`{"method":"POST","fault":"timeout"}`, "route"},
		{`{"route":"/api/pix/cash-out","fault":"timeout"}`, "method"},
		{`{"method":"GET","route":"/_sandbox/clock","fault":"timeout"}`, "route"},
		{`{"method":"GET","route":"/api/pix/cash-out","fault":"timeout"}`, "method"},
		{`{"method":"GET","route":"POST /api/pix/cash-out","fault":"timeout"}`, "method"},
		{`{"method":"*","route":"*","fault":"timeout","accountId":0}`, "accountId"},
		{`{"method":"*","route":"*","fault":"timeout","accountId":"1"}`, "accountId"},
		{`{"method":"*","route":"*","fault":"timeout","times":0}`, "times"},
		{`{"method":"*","route":"*","fault":"timeout","probability":0}`, "probability"},
		{`{"method":"*","route":"*","fault":"timeout","probability":"half"}`, "probability"},
		{`{"method":"*","route":"*","fault":"timeout","seed":-1}`, "seed"},
	} {
		r := apitest.Do(t, http.MethodPost, e.URL+"/_sandbox/faults", strings.NewReader(tt.body), nil)
		if msg, _ := r.Body["message"].(string); r.Status != http.StatusBadRequest || !strings.HasPrefix(msg, tt.field) {
			t.Errorf("%s: %d %s; want 400 naming %s", tt.body, r.Status, r.Raw, tt.field)
		}
	}
	if r := apitest.Do(t, http.MethodPost, e.URL+"/_sandbox/faults", strings.NewReader(`{"method":"*","route":"*","fault":"timeout","accountId":999}`), nil); r.Status != http.StatusNotFound {
		t.Errorf("a rule for an unknown account: %d %s", r.Status, r.Raw)
	}
	for _, path := range []string{"/_sandbox/faults/1", "/_sandbox/faults/x"} {
		if r := apitest.Do(t, http.MethodDelete, e.URL+path, nil, nil); r.Status != map[bool]int{true: 404, false: 400}[strings.HasSuffix(path, "1")] {
			t.Errorf("DELETE %s: %d %s", path, r.Status, r.Raw)
		}
	}
	st, raw, err := e.send(http.MethodPost, "/api/pix/cash-out", cashOutBody("bad-header"), "delay=forever", nil)
	var body struct {
		Message []string
		Code    string
	}
	if err != nil || st != http.StatusBadRequest || json.Unmarshal(raw, &body) != nil || len(body.Message) != 1 ||
		!strings.HasPrefix(body.Message[0], "X-Sandbox-Fault") {
		t.Fatalf("a bad X-Sandbox-Fault on the cash-out: %d %s %v; want 400 in the extended shape naming the header", st, raw, err)
	}
	if r := apitest.Do(t, http.MethodGet, e.URL+"/_sandbox/requests?fault=maybe", nil, nil); r.Status != http.StatusBadRequest {
		t.Errorf("GET /_sandbox/requests?fault=maybe: %d", r.Status)
	}
}

// TestFaults_PerWorkspace: a workspace's rules apply to its requests only,
// are listed under its path only, and go when it is deleted.
func TestFaults_PerWorkspace(t *testing.T) {
	sb := sandboxtest.New(t)
	ws := sb.Workspace(t)
	r := apitest.Do(t, http.MethodPost, ws.ControlURL()+"/faults", strings.NewReader(`{"route":"GET /api/balance","fault":"status=503"}`), nil)
	if r.Status != http.StatusCreated || r.Body["method"] != "GET" || r.Body["route"] != "/api/balance" {
		t.Fatalf("add in the workspace: %d %s", r.Status, r.Raw)
	}
	balance := func(s *sandboxtest.Sandbox) int {
		resp, err := s.Client(s.Accounts()[0]).Get(s.URL() + "/api/balance")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := balance(ws); got != http.StatusServiceUnavailable {
		t.Errorf("the workspace's balance: %d, want its rule's 503", got)
	}
	if got := balance(sb); got != http.StatusOK {
		t.Errorf("the default workspace's balance: %d, want 200", got)
	}
	if list := apitest.Do(t, http.MethodGet, sb.ControlURL()+"/faults", nil, nil); len(list.Body["data"].([]any)) != 0 {
		t.Errorf("the default lists the workspace's rule: %s", list.Raw)
	}
}

// TestFaults_HoldKeepsNoLock: a request a timeout fault holds does not keep
// POST /_sandbox/reset (which waits for the requests in flight) waiting, and
// the held request ends when its client gives up.
func TestFaults_HoldKeepsNoLock(t *testing.T) {
	e := newFaultEnv(t)
	e.addRule(t, `{"route":"GET /api/balance","fault":"timeout"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+"/api/balance", nil)
		req.Header.Set("Authorization", "Bearer "+e.token)
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		held <- err
	}()
	// The rule counts the request when it starts to hold it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		rules := apitest.Do(t, http.MethodGet, e.URL+"/_sandbox/faults", nil, nil).Body["data"].([]any)
		if rules[0].(map[string]any)["applied"] == json.Number("1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the request was never held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	reset := make(chan apitest.Result, 1)
	go func() { reset <- apitest.DoRaw(t, http.MethodPost, e.URL+"/_sandbox/reset", nil, nil) }()
	select {
	case r := <-reset:
		if r.Status != http.StatusOK {
			t.Fatalf("reset: %d %s", r.Status, r.Raw)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reset waited for the held request")
	}
	cancel()
	if err := <-held; err == nil {
		t.Error("the held request was answered")
	}
}
