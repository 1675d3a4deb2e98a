package receivercheck_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// receiverOpts is how a test receiver behaves.
type receiverOpts struct {
	secret string        // verify webhook-signature with it (401 when it does not verify)
	dedupe bool          // apply each webhook-id once; answer 200 to a repeat without applying it
	status int           // answer this instead of 200
	delay  time.Duration // answer after this, or when the request is abandoned
	maxAge time.Duration // answer 400 to a webhook-timestamp older than this
	// earlyRefund is what to do with a REFUND whose original PIX (its
	// endToEndId) was not received yet: "refuse" answers 409 without applying
	// it; "drop" answers 200 without applying it.
	earlyRefund string
}

type receivedRequest struct {
	header http.Header
	body   []byte
}

// testReceiver is a partner's receiver: /hook takes webhooks, /processed
// answers the read-back ({"processed": [{"webhookId", "count"}]}).
type testReceiver struct {
	opts receiverOpts
	srv  *httptest.Server

	mu       sync.Mutex
	reqs     []receivedRequest
	applied  map[string]int
	received map[string]bool // end-to-end ids of RECEIVEs applied
}

func newTestReceiver(t *testing.T, o receiverOpts) *testReceiver {
	t.Helper()
	r := &testReceiver{opts: o, applied: map[string]int{}, received: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", r.hook)
	mux.HandleFunc("GET /processed", func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		body := receivercheck.CallbackBody{Processed: []receivercheck.Processed{}}
		for id, n := range r.applied {
			body.Processed = append(body.Processed, receivercheck.Processed{WebhookID: id, Count: n})
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *testReceiver) url() string      { return r.srv.URL + "/hook" }
func (r *testReceiver) callback() string { return r.srv.URL + "/processed" }

func (r *testReceiver) requests() []receivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

func (r *testReceiver) hook(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, receivedRequest{header: req.Header.Clone(), body: body})
	r.mu.Unlock()
	if r.opts.delay > 0 {
		t := time.NewTimer(r.opts.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-req.Context().Done():
			return
		}
	}
	if r.opts.secret != "" {
		wh, err := standardwebhooks.NewWebhook(r.opts.secret)
		if err == nil {
			err = wh.Verify(body, req.Header)
		}
		if err != nil {
			http.Error(w, "signature: "+err.Error(), http.StatusUnauthorized)
			return
		}
	}
	if r.opts.maxAge > 0 {
		ts, err := strconv.ParseInt(req.Header.Get("webhook-timestamp"), 10, 64)
		if err != nil || time.Since(time.Unix(ts, 0)) > r.opts.maxAge {
			http.Error(w, "stale webhook-timestamp", http.StatusBadRequest)
			return
		}
	}
	if r.opts.status != 0 {
		w.WriteHeader(r.opts.status)
		return
	}
	var env struct {
		Type string `json:"type"`
		Data struct {
			EndToEndID string `json:"endToEndId"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	defer r.mu.Unlock()
	if env.Type == "REFUND" && r.opts.earlyRefund != "" && !r.received[env.Data.EndToEndID] {
		if r.opts.earlyRefund == "refuse" {
			http.Error(w, "original PIX not received yet", http.StatusConflict)
		}
		return
	}
	if r.opts.dedupe && r.applied[id] > 0 {
		return
	}
	r.applied[id]++
	if env.Type == "RECEIVE" {
		r.received[env.Data.EndToEndID] = true
	}
}

// mustCheck runs the check and fails the test on an error.
func mustCheck(t *testing.T, cfg receivercheck.Config) receivercheck.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := receivercheck.Run(ctx, cfg, webhook.Dispatcher{})
	if err != nil {
		t.Fatalf("CheckReceiver: %v", err)
	}
	return rep
}

func caseOf(t *testing.T, rep receivercheck.Report, name string) receivercheck.CaseReport {
	t.Helper()
	for _, c := range rep.Cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s in the report:\n%s", name, rep.Text())
	return receivercheck.CaseReport{}
}

// TestCheckReceiver_TellsDedupingFromNaive: the same run against a receiver
// that deduplicates by webhook-id (and verifies signatures) and one that does
// not: every case passes for the first; the second fails the duplicate and
// replay cases only, through the callback.
func TestCheckReceiver_TellsDedupingFromNaive(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	run := func(r *testReceiver) receivercheck.Report {
		return mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Secret: secret,
			Headers: []receivercheck.Header{{Key: "X-Partner-Token", Value: "tok-1"}}, Timeout: 5 * time.Second, Slow: 20 * time.Millisecond})
	}

	good := run(newTestReceiver(t, receiverOpts{secret: secret, dedupe: true}))
	if !good.OK || good.Passed != len(receivercheck.Cases) || good.Failed != 0 || good.NotChecked != 0 ||
		good.Acceptance.Passed != len(receivercheck.AcceptanceCases) || good.Rejection.Passed != len(receivercheck.RejectionCases) {
		t.Fatalf("deduplicating receiver: want every case PASS:\n%s", good.Text())
	}
	dup := caseOf(t, good, receivercheck.CaseDuplicate)
	if dup.ReadBack == nil || dup.ReadBack.Result != receivercheck.Pass || len(dup.ReadBack.Applied) != 1 || dup.ReadBack.Applied[0].Count != 1 {
		t.Fatalf("duplicate read-back = %+v", dup.ReadBack)
	}
	if len(dup.Deliveries) != 2 || dup.Deliveries[0].WebhookID != dup.Deliveries[1].WebhookID {
		t.Fatalf("duplicate deliveries: %+v", dup.Deliveries)
	}
	if good.Secret != secret || good.SecretGenerated {
		t.Fatalf("secret %q generated=%v, want the configured one", good.Secret, good.SecretGenerated)
	}

	naive := run(newTestReceiver(t, receiverOpts{secret: secret}))
	if naive.OK || naive.Failed != 2 || naive.Acceptance.Failed != 1 || naive.Rejection.Failed != 1 {
		t.Fatalf("naive receiver: want exactly the duplicate and replay cases to fail:\n%s", naive.Text())
	}
	if c := caseOf(t, naive, receivercheck.CaseReplay); c.Result != receivercheck.Fail || !strings.Contains(c.Reason, "applied 2 times: deduplicate by webhook-id") {
		t.Fatalf("naive replay case = %+v", c)
	}
	dup = caseOf(t, naive, receivercheck.CaseDuplicate)
	if dup.Result != receivercheck.Fail || dup.ReadBack == nil || dup.ReadBack.Applied[0].Count != 2 || !strings.Contains(dup.Reason, "applied 2 times") {
		t.Fatalf("naive duplicate case = %+v", dup)
	}
	if !dup.Answered2xx || !dup.WithinTimeout {
		t.Fatalf("naive duplicate: both deliveries were answered 200 in time: %+v", dup)
	}
	if c := caseOf(t, naive, receivercheck.CaseOutOfOrder); c.Result != receivercheck.Pass {
		t.Fatalf("naive out-of-order = %+v", c)
	}
}

// TestCheckReceiver_WithoutCallback: the read-back cases are NOT CHECKED, not
// guessed, and a check with nothing failed is OK.
func TestCheckReceiver_WithoutCallback(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Slow: time.Millisecond, Cases: receivercheck.AcceptanceCases})
	for _, name := range []string{receivercheck.CaseDuplicate, receivercheck.CaseOutOfOrder} {
		c := caseOf(t, rep, name)
		if c.Result != receivercheck.NotChecked || c.ReadBack == nil || c.ReadBack.Result != receivercheck.NotChecked || len(c.ReadBack.Applied) != 0 {
			t.Fatalf("%s = %+v", name, c)
		}
		if !strings.Contains(c.Reason, "not checked (no callback URL)") {
			t.Fatalf("%s reason %q", name, c.Reason)
		}
	}
	if c := caseOf(t, rep, receivercheck.CaseCustomHeaders); c.Result != receivercheck.NotChecked || len(c.Deliveries) != 0 {
		t.Fatalf("custom headers without headers = %+v", c)
	}
	if !rep.OK || rep.Failed != 0 || rep.NotChecked != 3 || rep.Callback != nil {
		t.Fatalf("report:\n%s", rep.Text())
	}
	if !regexp.MustCompile(`(?m)^NOT CHECKED  duplicate .*not checked \(no callback URL\)$`).MatchString(rep.Text()) {
		t.Fatalf("text report:\n%s", rep.Text())
	}
}

// TestCheckReceiver_ServerErrorFails: a receiver answering 500 fails every
// case, the rejection cases included: a refusal is a 4xx.
func TestCheckReceiver_ServerErrorFails(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{status: http.StatusInternalServerError})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Slow: time.Millisecond, Secret: webhook.NewSecret(),
		Headers: []receivercheck.Header{{Key: "X-A", Value: "b"}}})
	if rep.OK || rep.Failed != len(receivercheck.Cases) {
		t.Fatalf("want every case FAIL:\n%s", rep.Text())
	}
	for _, c := range rep.Cases {
		if c.StatusCode != http.StatusInternalServerError || c.Answered2xx || !strings.Contains(c.Reason, "answered 500") {
			t.Errorf("%s = status %d 2xx=%v reason %q", c.Name, c.StatusCode, c.Answered2xx, c.Reason)
		}
	}
	if !regexp.MustCompile(`(?m)^FAIL +transfer +500 `).MatchString(rep.Text()) {
		t.Fatalf("text report:\n%s", rep.Text())
	}
}

// TestCheckReceiver_SlowReceiverFails: a receiver slower than the timeout
// fails, whether its answer comes late or never; the same receiver passes
// with a timeout it meets.
func TestCheckReceiver_SlowReceiverFails(t *testing.T) {
	t.Parallel()
	cases := []string{receivercheck.CaseTransfer, receivercheck.CaseReceive}
	hung := newTestReceiver(t, receiverOpts{delay: time.Minute})
	rep := mustCheck(t, receivercheck.Config{URL: hung.url(), Timeout: 100 * time.Millisecond, Cases: cases})
	for _, c := range rep.Cases {
		if c.Result != receivercheck.Fail || c.WithinTimeout || c.StatusCode != 0 || !strings.Contains(c.Reason, "no answer within 100ms") {
			t.Errorf("hung receiver, %s = %+v", c.Name, c)
		}
	}

	late := newTestReceiver(t, receiverOpts{delay: 150 * time.Millisecond})
	rep = mustCheck(t, receivercheck.Config{URL: late.url(), Timeout: 100 * time.Millisecond, Cases: cases})
	for _, c := range rep.Cases {
		if c.Result != receivercheck.Fail || c.WithinTimeout || c.DurationMs < 100 {
			t.Errorf("late receiver, %s = %+v", c.Name, c)
		}
		if c.StatusCode == http.StatusOK && !strings.Contains(c.Reason, "beyond the 100ms timeout") {
			t.Errorf("late receiver, %s reason %q", c.Name, c.Reason)
		}
	}

	rep = mustCheck(t, receivercheck.Config{URL: late.url(), Timeout: 5 * time.Second, Cases: cases})
	if !rep.OK || rep.Passed != len(cases) {
		t.Fatalf("the late receiver within a 5s timeout:\n%s", rep.Text())
	}
}

// TestCheckReceiver_CustomHeadersArrive: the configured headers reach the
// receiver with every delivery and the report says so.
func TestCheckReceiver_CustomHeadersArrive(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	headers := []receivercheck.Header{{Key: "X-Partner-Token", Value: "tok-42"}, {Key: "X-Trace", Value: "check"}}
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Headers: headers, Slow: time.Millisecond, Secret: webhook.NewSecret()})
	unsigned := caseOf(t, rep, receivercheck.CaseMissingSignature).Deliveries[0].WebhookID
	if c := caseOf(t, rep, receivercheck.CaseCustomHeaders); c.Result != receivercheck.Pass || !slices.Equal(c.Deliveries[0].CustomHeaders, []string{"X-Partner-Token", "X-Trace"}) {
		t.Fatalf("custom headers case = %+v", c)
	}
	if !slices.Equal(rep.HeadersSent, []string{"X-Partner-Token", "X-Trace"}) || !strings.Contains(rep.Text(), "X-Partner-Token, X-Trace sent with every delivery") {
		t.Fatalf("headersSent %v; text:\n%s", rep.HeadersSent, rep.Text())
	}
	reqs := r.requests()
	if len(reqs) < len(receivercheck.Cases) {
		t.Fatalf("receiver got %d requests", len(reqs))
	}
	for i, q := range reqs {
		if q.header.Get("X-Partner-Token") != "tok-42" || q.header.Get("X-Trace") != "check" {
			t.Fatalf("request %d headers %v", i, q.header)
		}
		signed := q.header.Get("webhook-id") != unsigned
		if q.header.Get("webhook-id") == "" || q.header.Get("webhook-timestamp") == "" || (q.header.Get("webhook-signature") != "") != signed {
			t.Fatalf("request %d lacks the Standard Webhooks headers: %v", i, q.header)
		}
	}
}

// TestCheckReceiver_GeneratedSecret: without a secret one is generated,
// reported, and every delivery's signature verifies with it.
func TestCheckReceiver_GeneratedSecret(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Cases: []string{receivercheck.CaseTransfer, receivercheck.CaseMEDCreated}})
	if !rep.SecretGenerated || !webhook.ValidSecret(rep.Secret) || !strings.Contains(rep.Text(), rep.Secret+" (generated)") {
		t.Fatalf("secret %q generated=%v", rep.Secret, rep.SecretGenerated)
	}
	wh, err := standardwebhooks.NewWebhook(rep.Secret)
	if err != nil {
		t.Fatal(err)
	}
	reqs := r.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, q := range reqs {
		if err := wh.Verify(q.body, q.header); err != nil {
			t.Fatalf("signature does not verify with the reported secret: %v", err)
		}
	}
}

// TestCheckReceiver_PayloadsHaveSpecShapes parses what the receiver got and
// checks the fields the spec's tables list ("Events > Envelope V2",
// "Resources > Cash-out webhook payload").
func TestCheckReceiver_PayloadsHaveSpecShapes(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Cases: []string{receivercheck.CaseTransfer, receivercheck.CaseReceive,
		receivercheck.CaseRefund, receivercheck.CaseCashOutConfirmed, receivercheck.CaseCashOutError, receivercheck.CaseMEDAccepted, receivercheck.CaseUnknownFields}})
	if !rep.OK {
		t.Fatalf("report:\n%s", rep.Text())
	}
	bodies := map[string]map[string]any{}
	for _, q := range r.requests() {
		dec := json.NewDecoder(bytes.NewReader(q.body))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("body %s: %v", q.body, err)
		}
		bodies[q.header.Get("webhook-id")] = m
	}
	body := func(name string) *shape {
		c := caseOf(t, rep, name)
		b, ok := bodies[c.Deliveries[0].WebhookID]
		if !ok {
			t.Fatalf("%s: the receiver got no body with webhook-id %s", name, c.Deliveries[0].WebhookID)
		}
		if got := c.Deliveries[0].Body; !json.Valid(got) {
			t.Fatalf("%s: report body %q", name, got)
		}
		return &shape{t: t, where: name, v: b}
	}

	tr := body(receivercheck.CaseTransfer)
	tr.eq("type", "TRANSFER")
	tr.number("data.id")
	tr.nullOrString("data.txId")
	tr.str("data.pixKey")
	tr.eq("data.status", "LIQUIDATED")
	tr.amountString("data.payment.amount")
	tr.eq("data.payment.currency", "BRL")
	tr.e2e("data.endToEndId", 'E')
	tr.eq("data.creditDebitType", "DEBIT")
	tr.match("data.idempotencyKey", `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tr.str("data.creditorAccount.name")
	tr.match("data.creditorAccount.document", `^\*\*\*\.\d{3}\.\d{3}-\*\*$`)
	tr.match("data.creditorAccount.ispb", `^\d{8}$`)
	tr.nullOrString("data.remittanceInformation")

	rc := body(receivercheck.CaseReceive)
	rc.eq("type", "RECEIVE")
	rc.number("data.id")
	rc.eq("data.status", "LIQUIDATED")
	rc.amountString("data.payment.amount")
	rc.e2e("data.endToEndId", 'E')
	rc.str("data.debtorAccount.name")
	rc.match("data.debtorAccount.document", `^\*\*\*\.\d{3}\.\d{3}-\*\*$`)

	rf := body(receivercheck.CaseRefund)
	rf.eq("type", "REFUND")
	rf.str("data.txId")
	rf.eq("data.status", "REFUNDED")
	rf.amountString("data.payment.amount")
	rf.e2e("data.endToEndId", 'E')
	rf.eq("data.creditDebitType", "DEBIT")
	rf.eq("data.refunds.0.status", "LIQUIDATED")
	rf.number("data.refunds.0.payment.amount")
	rf.eq("data.refunds.0.payment.currency", "BRL")
	rf.e2e("data.refunds.0.endToEndId", 'D')
	rf.str("data.refunds.0.eventDate")

	for _, name := range []string{receivercheck.CaseCashOutConfirmed, receivercheck.CaseCashOutError} {
		co := body(name)
		co.eq("event", "CashOut")
		co.eq("transactionType", "PIX")
		co.eq("movementType", "DEBIT")
		co.match("transactionId", `^\d+$`)
		co.str("externalId")
		co.e2e("endToEndId", 'E')
		co.str("pixKey")
		fee, orig, final := co.cents("feeAmount"), co.cents("originalAmount"), co.cents("finalAmount")
		if final != orig+fee {
			t.Errorf("%s: finalAmount %v != originalAmount %v + feeAmount %v", name, final, orig, fee)
		}
		co.str("processingDate")
		co.str("counterpart.name")
		co.str("counterpart.document")
		for _, f := range []string{"bankISPB", "bankName", "bankCode"} {
			co.str("counterpart.bank." + f)
		}
		co.nullOrString("counterpart.bank.accountBranch")
		co.nullOrString("counterpart.bank.accountNumber")
		if _, ok := co.get("metadata").(map[string]any); !ok {
			t.Errorf("%s: metadata is not an object", name)
		}
	}
	ok := body(receivercheck.CaseCashOutConfirmed)
	ok.eq("status", "CONFIRMED")
	ok.null("errorCode")
	ok.null("errorMessage")
	bad := body(receivercheck.CaseCashOutError)
	bad.eq("status", "ERROR")
	code := bad.str("errorCode")
	if _, known := pix.LookupFailure(pix.Code(code)); !known {
		t.Errorf("errorCode %q is not in the spec's table", code)
	}
	bad.str("errorMessage")

	med := body(receivercheck.CaseMEDAccepted)
	med.eq("event", "med_accepted")
	med.number("med.id")
	med.e2e("med.endToEnd", 'E')
	med.eq("med.status", "ANALYZED")
	med.eq("med.reason", "REFUND_REQUEST")
	med.eq("med.analysisResult", "APPROVED")
	med.match("med.requestingBank.ispb", `^\d{8}$`)
	med.eq("med.contestedBank.ispb", "13140088")
	med.number("med.originalTransaction.amount")
	med.match("med.originalTransaction.document", `^\*\*\*\.\d{3}\.\d{3}-\*\*$`)
	if v, isBool := med.get("med.isReconciled").(bool); !isBool || !v {
		t.Errorf("med.isReconciled = %v", med.get("med.isReconciled"))
	}

	uf := body(receivercheck.CaseUnknownFields)
	uf.eq("event", "CashOut")
	uf.eq("counterpart.bank.participantType", "IP")
	uf.str("sandboxUnknownField.note")
	if got := uf.get("originalAmount").(json.Number).String(); !strings.Contains(got, ".") {
		t.Errorf("unknown_fields: originalAmount %s lost its two decimals", got)
	}
}

// shape reads dotted paths ("data.refunds.0.status") of a decoded body.
type shape struct {
	t     *testing.T
	where string
	v     map[string]any
}

func (s *shape) get(path string) any {
	var cur any = s.v
	for _, p := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				s.t.Errorf("%s: no field %s", s.where, path)
				return nil
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(c) {
				s.t.Errorf("%s: no item %s", s.where, path)
				return nil
			}
			cur = c[i]
		default:
			s.t.Errorf("%s: %s is not inside an object", s.where, path)
			return nil
		}
	}
	return cur
}

func (s *shape) str(path string) string {
	v, ok := s.get(path).(string)
	if !ok || v == "" {
		s.t.Errorf("%s: %s = %#v, want a non-empty string", s.where, path, s.get(path))
	}
	return v
}

func (s *shape) eq(path, want string) {
	if got := s.get(path); got != want {
		s.t.Errorf("%s: %s = %#v, want %q", s.where, path, got, want)
	}
}

func (s *shape) match(path, re string) {
	if v := s.str(path); !regexp.MustCompile(re).MatchString(v) {
		s.t.Errorf("%s: %s = %q, want %s", s.where, path, v, re)
	}
}

func (s *shape) number(path string) json.Number {
	v, ok := s.get(path).(json.Number)
	if !ok {
		s.t.Errorf("%s: %s = %#v, want a number", s.where, path, s.get(path))
	}
	return v
}

func (s *shape) cents(path string) pix.Cents {
	c, err := pix.ParseDecimal(s.number(path).String())
	if err != nil {
		s.t.Errorf("%s: %s: %v", s.where, path, err)
	}
	return c
}

func (s *shape) amountString(path string) { s.match(path, `^\d+\.\d{2}$`) }

func (s *shape) e2e(path string, prefix byte) {
	if v := s.str(path); !pix.ValidEndToEndID(v) || v[0] != prefix {
		s.t.Errorf("%s: %s = %q, want an end-to-end id starting with %c", s.where, path, v, prefix)
	}
}

func (s *shape) null(path string) {
	if v := s.get(path); v != nil {
		s.t.Errorf("%s: %s = %#v, want null", s.where, path, v)
	}
}

func (s *shape) nullOrString(path string) {
	switch s.get(path).(type) {
	case nil, string:
	default:
		s.t.Errorf("%s: %s = %#v, want a string or null", s.where, path, s.get(path))
	}
}

// TestCheckReceiver_OutOfOrder: a receiver that refuses a REFUND before its
// RECEIVE gets it again and ends with both applied; one that answers 200 and
// drops it is caught by the read-back.
func TestCheckReceiver_OutOfOrder(t *testing.T) {
	t.Parallel()
	cases := []string{receivercheck.CaseOutOfOrder}
	refusing := newTestReceiver(t, receiverOpts{earlyRefund: "refuse"})
	rep := mustCheck(t, receivercheck.Config{URL: refusing.url(), CallbackURL: refusing.callback(), Cases: cases})
	c := caseOf(t, rep, receivercheck.CaseOutOfOrder)
	if c.Result != receivercheck.Pass || len(c.Deliveries) != 3 {
		t.Fatalf("refusing receiver: %+v\n%s", c, rep.Text())
	}
	if d := c.Deliveries; d[0].Payload != "REFUND" || d[0].StatusCode != http.StatusConflict || d[1].Payload != "RECEIVE" ||
		d[2].Attempt != "retry" || d[2].WebhookID != d[0].WebhookID || d[2].StatusCode != http.StatusOK {
		t.Fatalf("deliveries %+v", d)
	}
	if rb := c.ReadBack; rb.Result != receivercheck.Pass || len(rb.Applied) != 2 || rb.Applied[0].Count != 1 || rb.Applied[1].Count != 1 {
		t.Fatalf("read-back %+v", rb)
	}

	dropping := newTestReceiver(t, receiverOpts{earlyRefund: "drop"})
	rep = mustCheck(t, receivercheck.Config{URL: dropping.url(), CallbackURL: dropping.callback(), Cases: cases})
	c = caseOf(t, rep, receivercheck.CaseOutOfOrder)
	if c.Result != receivercheck.Fail || len(c.Deliveries) != 2 || !strings.Contains(c.Reason, "RECEIVE applied 1 time(s) and REFUND applied 0 time(s)") {
		t.Fatalf("dropping receiver: %+v", c)
	}
}

// TestCheckReceiver_SlowCaseCatchesStaleTimestamps: the slow case's delivery
// arrives with an old webhook-timestamp; a receiver that only trusts fresh
// ones fails it and passes the rest.
func TestCheckReceiver_SlowCaseCatchesStaleTimestamps(t *testing.T) {
	t.Parallel()
	// webhook-timestamp is in whole seconds, so a fresh delivery reaches the
	// receiver up to 1 s older than it is: maxAge leaves it 4 s of wall time
	// to arrive. The slow delivery is signed slow before it is sent, so it is
	// always older than maxAge on arrival.
	const maxAge, slow = 5 * time.Second, 6 * time.Second
	r := newTestReceiver(t, receiverOpts{maxAge: maxAge})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Slow: slow, Cases: []string{receivercheck.CaseTransfer, receivercheck.CaseSlow}})
	if c := caseOf(t, rep, receivercheck.CaseTransfer); c.Result != receivercheck.Pass {
		t.Fatalf("transfer: %+v", c)
	}
	c := caseOf(t, rep, receivercheck.CaseSlow)
	if c.Result != receivercheck.Fail || c.StatusCode != http.StatusBadRequest {
		t.Fatalf("slow: %+v", c)
	}
	if d := c.Deliveries[0]; d.SentAt.Sub(time.Unix(d.WebhookTimestamp, 0)) < slow {
		t.Fatalf("slow delivery sent at %s with webhook-timestamp %d", d.SentAt, d.WebhookTimestamp)
	}
}

// TestCheckReceiver_CallbackUnusable: a callback that does not answer the
// documented JSON fails the read-back cases; nothing is guessed.
func TestCheckReceiver_CallbackUnusable(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{dedupe: true})
	for _, tt := range []struct{ name, path, want string }{
		{name: "not found", path: "/nope", want: "GET answered 404"},
		{name: "wrong method", path: "/hook", want: "GET answered 405"},
	} {
		rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.srv.URL + tt.path, Cases: []string{receivercheck.CaseDuplicate}})
		c := caseOf(t, rep, receivercheck.CaseDuplicate)
		if c.Result != receivercheck.Fail || rep.Callback == nil || !strings.Contains(rep.Callback.Error, tt.want) || !strings.Contains(c.Reason, "could not be used") {
			t.Fatalf("%s: callback %+v, case %+v", tt.name, rep.Callback, c)
		}
	}
	text := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer text.Close()
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: text.URL, Cases: []string{receivercheck.CaseDuplicate}})
	if rep.OK || !strings.Contains(rep.Callback.Error, `is not {"processed"`) {
		t.Fatalf("plain-text callback: %+v", rep.Callback)
	}
}

// TestCheckReceiver_DenyPrivate: with deny-private, a loopback receiver and
// callback are refused at dial time and nothing arrives, the deliveries made
// outside the dispatcher (tampered_body) included.
func TestCheckReceiver_DenyPrivate(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), DenyPrivate: true, Secret: webhook.NewSecret(),
		Cases: []string{receivercheck.CaseTransfer, receivercheck.CaseDuplicate, receivercheck.CaseForgedSignature, receivercheck.CaseTamperedBody}})
	for _, c := range rep.Cases {
		if c.Result != receivercheck.Fail || !strings.Contains(c.Reason, "dial refused") {
			t.Errorf("%s = %+v", c.Name, c)
		}
	}
	if rep.Callback == nil || !strings.Contains(rep.Callback.Error, "dial refused") {
		t.Fatalf("callback %+v", rep.Callback)
	}
	if n := len(r.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}

// TestCheckReceiver_Interrupted: when ctx ends (here during the slow case's
// one-minute wait), the check returns at once with what it did so far and
// sends nothing more.
func TestCheckReceiver_Interrupted(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var rep receivercheck.Report
	var err error
	go func() {
		defer close(done)
		rep, err = receivercheck.Run(ctx, receivercheck.Config{URL: r.url(), Slow: time.Minute,
			Cases: []string{receivercheck.CaseTransfer, receivercheck.CaseSlow}}, webhook.Dispatcher{})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(r.requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the transfer delivery never arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("CheckReceiver did not return after cancel")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(rep.Cases) == 0 || rep.Cases[0].Name != receivercheck.CaseTransfer || len(rep.Cases) > 2 {
		t.Fatalf("report:\n%s", rep.Text())
	}
	if len(rep.Cases) == 2 && rep.Cases[1].Result != receivercheck.NotChecked {
		t.Fatalf("the interrupted slow case: %+v", rep.Cases[1])
	}
	if n := len(r.requests()); n != 1 {
		t.Fatalf("the receiver got %d requests, want only the transfer", n)
	}
}

// TestValidateReceiverCheck: every bad field is named; defaults fill the rest.
func TestValidateReceiverCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cfg    receivercheck.Config
		fields []string
	}{
		{name: "no url", cfg: receivercheck.Config{}, fields: []string{"url"}},
		{name: "ftp url", cfg: receivercheck.Config{URL: "ftp://x/y"}, fields: []string{"url"}},
		{name: "long url", cfg: receivercheck.Config{URL: "https://x/" + strings.Repeat("a", 2048)}, fields: []string{"url"}},
		{name: "bad callback", cfg: receivercheck.Config{URL: "https://x", CallbackURL: "/relative"}, fields: []string{"callbackUrl"}},
		{name: "bad secret", cfg: receivercheck.Config{URL: "https://x", Secret: "s3cret"}, fields: []string{"secret"}},
		{name: "headers", cfg: receivercheck.Config{URL: "https://x", Headers: []receivercheck.Header{{Key: "Host", Value: "a"}, {Key: "webhook-id", Value: "b"}, {Key: "X-Ok", Value: "a\nb"}}},
			fields: []string{"headers[0].key", "headers[2].value", "headers[1].key"}},
		{name: "too many headers", cfg: receivercheck.Config{URL: "https://x", Headers: make([]receivercheck.Header, 6)}, fields: []string{"headers"}},
		{name: "timeout", cfg: receivercheck.Config{URL: "https://x", Timeout: time.Minute}, fields: []string{"timeout"}},
		{name: "slow", cfg: receivercheck.Config{URL: "https://x", Slow: -time.Second}, fields: []string{"slow"}},
		{name: "cases", cfg: receivercheck.Config{URL: "https://x", Cases: []string{"transfer", "nope"}}, fields: []string{"cases[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := receivercheck.Validate(tt.cfg)
			pe, ok := errors.AsType[*pix.Error](err)
			if !ok || pe.Kind != pix.KindInvalid {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, v := range pe.Violations {
				got = append(got, v.Field)
			}
			for _, f := range tt.fields {
				if !slices.Contains(got, f) {
					t.Fatalf("violations %v lack %s", pe.Violations, f)
				}
			}
		})
	}
	cfg, err := receivercheck.Validate(receivercheck.Config{URL: "http://127.0.0.1:1/hook", Cases: []string{"slow", "slow", "transfer"}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Timeout != receivercheck.DefaultTimeout || cfg.Slow != receivercheck.DefaultSlow || !slices.Equal(cfg.Cases, []string{"slow", "transfer"}) {
		t.Fatalf("defaults: %+v", cfg)
	}
	if _, err := receivercheck.Run(context.Background(), receivercheck.Config{URL: "mailto:x"}, webhook.Dispatcher{}); !pix.Match(&pix.Error{Kind: pix.KindInvalid}, err) {
		t.Fatalf("CheckReceiver with a bad URL: %v", err)
	}
}

// TestReceiverCheckReport_TextAndJSON: the terminal report has one line per
// case, and the JSON report decodes back to the same report.
func TestReceiverCheckReport_TextAndJSON(t *testing.T) {
	t.Parallel()
	r := newTestReceiver(t, receiverOpts{dedupe: true})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Slow: time.Millisecond})
	line := regexp.MustCompile(`(?m)^(PASS|FAIL|NOT CHECKED) +([a-z_]+) +(\d{3}|---) +\d+(ms|\.\d\ds) +\S.*$`)
	m := line.FindAllStringSubmatch(rep.Text(), -1)
	if len(m) != len(receivercheck.Cases) {
		t.Fatalf("%d case lines, want %d:\n%s", len(m), len(receivercheck.Cases), rep.Text())
	}
	for i, x := range m {
		if x[2] != receivercheck.Cases[i] || x[1] != string(rep.Cases[i].Result) {
			t.Fatalf("line %d = %q", i, x[0])
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back receivercheck.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if !bytes.Equal(b, b2) {
		t.Fatalf("JSON round trip differs:\n%s\n%s", b, b2)
	}
	for _, field := range []string{`"secret":"whsec_`, `"cases":[{"name":"transfer"`, `"result":"NOT CHECKED"`, `"withinTimeout":true`, `"readBack":{"result":"PASS"`} {
		if !bytes.Contains(b, []byte(field)) {
			t.Errorf("JSON lacks %s", field)
		}
	}
}

// TestSimulator_CheckReceiver: the control plane's method runs the same check
// with the simulator's dispatcher.
func TestSimulator_CheckReceiver(t *testing.T) {
	t.Parallel()
	env := simulatortest.New(t, simulatortest.Options{})
	r := newTestReceiver(t, receiverOpts{})
	rep, err := env.Sim.CheckReceiver(context.Background(), receivercheck.Config{URL: r.url(), Cases: []string{receivercheck.CaseCashIn}})
	if err != nil || !rep.OK || len(rep.Cases) != 1 || rep.Cases[0].Result != receivercheck.Pass {
		t.Fatalf("err %v, report:\n%s", err, rep.Text())
	}
	if ua := r.requests()[0].header.Get("User-Agent"); ua != webhook.DefaultUserAgent {
		t.Fatalf("User-Agent %q", ua)
	}
}
