package receivercheck_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// partnerOpts is how a partnerReceiver behaves.
type partnerOpts struct {
	// secret, when set, verifies every delivery with the official Standard
	// Webhooks Go library (standardwebhooks.NewWebhook(secret).Verify) at its
	// default 5-minute tolerance; "" takes every delivery unverified.
	secret string
	// dedupe applies each webhook-id once and acknowledges a repeat with
	// repeatStatus (200 when 0) without applying it.
	dedupe       bool
	repeatStatus int
	// refuseStatus answers a delivery that does not verify (401 when 0).
	refuseStatus int
	// applyFirst applies a delivery before verifying it: a receiver that
	// refuses too late.
	applyFirst bool
	// firstSignatureOnly verifies only the first entry of webhook-signature:
	// a receiver that breaks during a secret rotation.
	firstSignatureOnly bool
}

// partnerReceiver is a partner's receiver: POST /hook takes webhooks and
// GET /processed answers the read-back with what it applied.
type partnerReceiver struct {
	opts partnerOpts
	wh   *standardwebhooks.Webhook
	srv  *httptest.Server

	mu      sync.Mutex
	got     []receivedRequest
	applied map[string]int
}

func newPartnerReceiver(t *testing.T, o partnerOpts) *partnerReceiver {
	t.Helper()
	r := &partnerReceiver{opts: o, applied: map[string]int{}}
	if o.secret != "" {
		wh, err := standardwebhooks.NewWebhook(o.secret)
		if err != nil {
			t.Fatal(err)
		}
		r.wh = wh
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", r.hook)
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

func (r *partnerReceiver) hook(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, receivedRequest{header: req.Header.Clone(), body: body})
	if r.opts.applyFirst {
		r.applied[id]++
	}
	if r.wh != nil {
		h := req.Header
		if r.opts.firstSignatureOnly {
			h = h.Clone()
			h.Set("webhook-signature", strings.Split(h.Get("webhook-signature"), " ")[0])
		}
		if err := r.wh.Verify(body, h); err != nil {
			status := r.opts.refuseStatus
			if status == 0 {
				status = http.StatusUnauthorized
			}
			http.Error(w, err.Error(), status)
			return
		}
	}
	if r.opts.applyFirst {
		return
	}
	if r.opts.dedupe && r.applied[id] > 0 {
		if r.opts.repeatStatus != 0 {
			http.Error(w, "already applied", r.opts.repeatStatus)
		}
		return
	}
	r.applied[id]++
}

func (r *partnerReceiver) url() string      { return r.srv.URL + "/hook" }
func (r *partnerReceiver) callback() string { return r.srv.URL + "/processed" }

// requestOf returns the request the receiver got with webhook-id id, the
// last one when several.
func (r *partnerReceiver) requestOf(t *testing.T, id string) receivedRequest {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.got) - 1; i >= 0; i-- {
		if r.got[i].header.Get("webhook-id") == id {
			return r.got[i]
		}
	}
	t.Fatalf("no request with webhook-id %s", id)
	return receivedRequest{}
}

// TestCheckReceiver_AcceptAllFailsEveryRejectionCase: a receiver that
// answers 200 to every POST (and applies each) fails every rejection case,
// each with the reason; without a callback the replay is NOT CHECKED and the
// other six still fail.
func TestCheckReceiver_AcceptAllFailsEveryRejectionCase(t *testing.T) {
	t.Parallel()
	r := newPartnerReceiver(t, partnerOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Secret: webhook.NewSecret(), Slow: time.Millisecond})
	if rep.OK || rep.Rejection != (receivercheck.GroupScore{Cases: 7, Failed: 7}) {
		t.Fatalf("rejection score %+v, want 7 of 7 failed:\n%s", rep.Rejection, rep.Text())
	}
	if rep.Acceptance.Failed != 1 || caseOf(t, rep, receivercheck.CaseDuplicate).Result != receivercheck.Fail {
		t.Fatalf("acceptance: only the duplicate must fail (no deduplication):\n%s", rep.Text())
	}
	why := map[string]string{
		receivercheck.CaseForgedSignature:    "answered 200, accepting a signature made with another secret; verify webhook-signature",
		receivercheck.CaseTamperedBody:       "answered 200, accepting a body changed after signing",
		receivercheck.CaseMissingSignature:   "answered 200, accepting a delivery without webhook-signature",
		receivercheck.CaseUnsupportedVersion: "answered 200, accepting signatures of versions other than v1 only",
		receivercheck.CaseStaleTimestamp:     "answered 200, accepting a webhook-timestamp 10 minutes old",
		receivercheck.CaseFutureTimestamp:    "answered 200, accepting a webhook-timestamp 10 minutes ahead",
		receivercheck.CaseReplay:             "the callback reports it applied 2 times: deduplicate by webhook-id",
	}
	for _, name := range receivercheck.RejectionCases {
		c := caseOf(t, rep, name)
		if c.Result != receivercheck.Fail || c.Group != receivercheck.GroupRejection || !strings.Contains(c.Reason, why[name]) || !c.Answered2xx {
			t.Errorf("%s = %s %q, want FAIL with %q", name, c.Result, c.Reason, why[name])
		}
		if c.ReadBack == nil || c.ReadBack.Result != receivercheck.Fail {
			t.Errorf("%s read-back = %+v, want FAIL", name, c.ReadBack)
		}
		if name != receivercheck.CaseReplay && !strings.Contains(c.Reason, "applied 1 time(s): a delivery that fails verification must have no effect") {
			t.Errorf("%s reason %q lacks the effect", name, c.Reason)
		}
	}
	if !regexp.MustCompile(`(?m)^FAIL +forged_signature +200 `).MatchString(rep.Text()) ||
		!strings.Contains(rep.Text(), "\nrejection   0 passed, 7 failed, 0 not checked\n") {
		t.Fatalf("text report:\n%s", rep.Text())
	}

	rep = mustCheck(t, receivercheck.Config{URL: r.url(), Secret: webhook.NewSecret(), Cases: receivercheck.RejectionCases})
	if rep.Rejection != (receivercheck.GroupScore{Cases: 7, Failed: 6, NotChecked: 1}) {
		t.Fatalf("without a callback: %+v\n%s", rep.Rejection, rep.Text())
	}
	if c := caseOf(t, rep, receivercheck.CaseReplay); c.Result != receivercheck.NotChecked || !strings.Contains(c.Reason, "not checked (no callback URL)") {
		t.Fatalf("replay without a callback = %+v", c)
	}
}

// TestCheckReceiver_OfficialLibraryPassesEveryCase: a receiver built on the
// official Standard Webhooks Go library, deduplicating by webhook-id, passes
// every case of both groups; each rejection delivery is refused with the
// library's error and has no effect, and was wrong only in what its case
// says.
func TestCheckReceiver_OfficialLibraryPassesEveryCase(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	r := newPartnerReceiver(t, partnerOpts{secret: secret, dedupe: true})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Secret: secret, Slow: time.Millisecond,
		Headers: []receivercheck.Header{{Key: "X-Api-Key", Value: "k"}}})
	if !rep.OK || rep.Passed != len(receivercheck.Cases) ||
		rep.Acceptance != (receivercheck.GroupScore{Cases: 16, Passed: 16}) || rep.Rejection != (receivercheck.GroupScore{Cases: 7, Passed: 7}) {
		t.Fatalf("want every case PASS:\n%s", rep.Text())
	}
	libraryError := map[string]string{
		receivercheck.CaseForgedSignature:    "no matching signature found",
		receivercheck.CaseTamperedBody:       "no matching signature found",
		receivercheck.CaseMissingSignature:   "missing required headers",
		receivercheck.CaseUnsupportedVersion: "no matching signature found",
		receivercheck.CaseStaleTimestamp:     "message timestamp too old",
		receivercheck.CaseFutureTimestamp:    "message timestamp too new",
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range libraryError {
		c := caseOf(t, rep, name)
		d := c.Deliveries[0]
		if len(c.Deliveries) != 1 || d.StatusCode != http.StatusUnauthorized || d.Expected != "4xx" || !strings.Contains(d.ResponseExcerpt, want) || c.Answered2xx {
			t.Errorf("%s: %d delivery(ies), status %d, answer %q: want one refused with %q", name, len(c.Deliveries), d.StatusCode, d.ResponseExcerpt, want)
		}
		if c.ReadBack == nil || c.ReadBack.Result != receivercheck.Pass || c.ReadBack.Applied[0].Count != 0 || !strings.Contains(c.Reason, "; refused ") {
			t.Errorf("%s: reason %q, read-back %+v", name, c.Reason, c.ReadBack)
		}
		q := r.requestOf(t, d.WebhookID)
		if q.header.Get("X-Api-Key") != "k" || q.header.Get("User-Agent") != webhook.DefaultUserAgent || q.header.Get("webhook-signature") != d.WebhookSignature {
			t.Errorf("%s: headers %v, report signature %q", name, q.header, d.WebhookSignature)
		}
		checkOnlyWrongIn(t, wh, name, q, d)
	}

	checkRotationSignatures(t, r, caseOf(t, rep, receivercheck.CaseRotation), wh)

	c := caseOf(t, rep, receivercheck.CaseReplay)
	first, again := c.Deliveries[0], c.Deliveries[1]
	if len(c.Deliveries) != 2 || first.WebhookID != again.WebhookID || again.Attempt != "replay" || again.StatusCode != http.StatusOK ||
		first.WebhookTimestamp >= again.WebhookTimestamp || first.WebhookSignature == again.WebhookSignature || string(first.Body) != string(again.Body) {
		t.Fatalf("replay deliveries: %+v", c.Deliveries)
	}
	if c.ReadBack == nil || c.ReadBack.Applied[0].Count != 1 || !strings.Contains(c.Reason, "acknowledged the replay") {
		t.Fatalf("replay = %+v", c)
	}
	if !strings.Contains(rep.Text(), "\nacceptance  16 passed, 0 failed, 0 not checked\nrejection   7 passed, 0 failed, 0 not checked\n23 passed") {
		t.Fatalf("text report:\n%s", rep.Text())
	}
}

// checkRotationSignatures checks the delivery of the rotation case as the
// receiver got it: two v1 signatures, the first of another secret (it does
// not verify alone with the receiver's), the second of the receiver's (it
// does).
func checkRotationSignatures(t *testing.T, r *partnerReceiver, c receivercheck.CaseReport, wh *standardwebhooks.Webhook) {
	t.Helper()
	if c.Result != receivercheck.Pass || len(c.Deliveries) != 1 || !strings.Contains(c.Reason, "accepted two v1 signatures, its own second") {
		t.Fatalf("rotation = %+v", c)
	}
	q := r.requestOf(t, c.Deliveries[0].WebhookID)
	sigs := strings.Split(q.header.Get("webhook-signature"), " ")
	if len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") || !strings.HasPrefix(sigs[1], "v1,") || sigs[0] == sigs[1] {
		t.Fatalf("rotation webhook-signature %q: want two different v1 signatures", q.header.Get("webhook-signature"))
	}
	for i, want := range []bool{false, true} {
		h := q.header.Clone()
		h.Set("webhook-signature", sigs[i])
		if err := wh.Verify(q.body, h); (err == nil) != want {
			t.Errorf("signature %d alone verifies with the receiver's secret: %v, want %v", i+1, err == nil, want)
		}
	}
}

// TestCheckReceiver_RotationFailsFirstSignatureOnly: a receiver that verifies
// only the first signature of webhook-signature passes every other
// acceptance case and fails the rotation case, with the reason and the fix.
func TestCheckReceiver_RotationFailsFirstSignatureOnly(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	r := newPartnerReceiver(t, partnerOpts{secret: secret, dedupe: true, firstSignatureOnly: true})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Secret: secret, Slow: time.Millisecond,
		Cases: []string{receivercheck.CaseReceive, receivercheck.CaseRotation}})
	if rep.Acceptance != (receivercheck.GroupScore{Cases: 2, Passed: 1, Failed: 1}) {
		t.Fatalf("acceptance %+v\n%s", rep.Acceptance, rep.Text())
	}
	c := caseOf(t, rep, receivercheck.CaseRotation)
	if c.Result != receivercheck.Fail || c.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(c.Reason, "RECEIVE (cash_in): answered 401") || !strings.Contains(c.Reason, "accept the delivery when any one verifies") {
		t.Fatalf("rotation = %s %d %q", c.Result, c.StatusCode, c.Reason)
	}
}

// checkOnlyWrongIn checks that the delivery d of rejection case name, as the
// receiver got it (q), is wrong only in what the case says: undo that one
// change and it verifies with the check's secret.
func checkOnlyWrongIn(t *testing.T, wh *standardwebhooks.Webhook, name string, q receivedRequest, d receivercheck.Delivery) {
	t.Helper()
	h, body := q.header.Clone(), q.body
	switch name {
	case receivercheck.CaseForgedSignature:
		if err := wh.VerifyIgnoringTimestamp(body, h); err == nil {
			t.Errorf("%s: the forged signature verifies with the check's secret", name)
		}
		return
	case receivercheck.CaseTamperedBody:
		if !strings.Contains(string(body), `"amount":"8990.00"`) {
			t.Errorf("%s: body %s", name, body)
		}
		body = []byte(strings.Replace(string(body), `"amount":"8990.00"`, `"amount":"89.90"`, 1))
	case receivercheck.CaseMissingSignature:
		if _, ok := h["Webhook-Signature"]; ok {
			t.Errorf("%s: a webhook-signature header arrived", name)
		}
		return
	case receivercheck.CaseUnsupportedVersion:
		sig := h.Get("webhook-signature")
		if !strings.HasPrefix(sig, "v1a,") || !strings.Contains(sig, " v2,") || strings.Contains(sig, "v1,") {
			t.Errorf("%s: webhook-signature %q", name, sig)
		}
		h.Set("webhook-signature", strings.Replace(sig, " v2,", " v1,", 1))
	case receivercheck.CaseStaleTimestamp, receivercheck.CaseFutureTimestamp:
		off := time.Unix(d.WebhookTimestamp, 0).Sub(d.SentAt)
		if name == receivercheck.CaseStaleTimestamp {
			off = -off
		}
		if off < receivercheck.OutsideTolerance-2*time.Second || off > receivercheck.OutsideTolerance+2*time.Second {
			t.Errorf("%s: webhook-timestamp %d is %s from the sending time %s", name, d.WebhookTimestamp, off, d.SentAt)
		}
	}
	if err := wh.VerifyIgnoringTimestamp(body, h); err != nil {
		t.Errorf("%s: with its one change undone, the delivery does not verify: %v", name, err)
	}
}

// TestCheckReceiver_RejectionNeedsTheSecret: with a generated secret, only
// missing_signature is sent; the others are NOT CHECKED and say why.
func TestCheckReceiver_RejectionNeedsTheSecret(t *testing.T) {
	t.Parallel()
	r := newPartnerReceiver(t, partnerOpts{})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), Cases: receivercheck.RejectionCases})
	for _, c := range rep.Cases {
		switch {
		case c.Name == receivercheck.CaseMissingSignature:
			if c.Result != receivercheck.Fail || len(c.Deliveries) != 1 {
				t.Errorf("%s = %+v", c.Name, c)
			}
		case c.Result != receivercheck.NotChecked || len(c.Deliveries) != 0 || !strings.Contains(c.Reason, "needs the receiver's secret (--secret"):
			t.Errorf("%s = %+v", c.Name, c)
		}
	}
	if r.mu.Lock(); len(r.got) != 1 {
		t.Errorf("the receiver got %d requests, want 1", len(r.got))
	}
	r.mu.Unlock()
}

// TestCheckReceiver_RefusalNeedsABaseline: a receiver that refuses
// everything (here: it holds another secret) proves nothing by refusing the
// rejection deliveries: they are NOT CHECKED, not PASS, and the replay fails
// on its first delivery.
func TestCheckReceiver_RefusalNeedsABaseline(t *testing.T) {
	t.Parallel()
	r := newPartnerReceiver(t, partnerOpts{secret: webhook.NewSecret(), dedupe: true})
	rep := mustCheck(t, receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Secret: webhook.NewSecret(), Cases: receivercheck.RejectionCases})
	for _, c := range rep.Cases {
		if c.Name == receivercheck.CaseReplay {
			if c.Result != receivercheck.Fail || !strings.Contains(c.Reason, "RECEIVE (cash_in): answered 401; only a 2xx counts as delivered") {
				t.Errorf("replay = %+v", c)
			}
			continue
		}
		if c.Result != receivercheck.NotChecked || c.StatusCode != http.StatusUnauthorized || !strings.Contains(c.Reason, "not judged: the receiver took no correctly signed delivery") {
			t.Errorf("%s = %s %q", c.Name, c.Result, c.Reason)
		}
	}
}

// TestCheckReceiver_RefusalMustBeA4xxWithoutEffect: a refusal with a 5xx
// fails (a sender retries it), as does a 401 given after the delivery was
// applied; a replay refused with 409 passes.
func TestCheckReceiver_RefusalMustBeA4xxWithoutEffect(t *testing.T) {
	t.Parallel()
	secret := webhook.NewSecret()
	cases := []string{receivercheck.CaseTransfer, receivercheck.CaseForgedSignature, receivercheck.CaseStaleTimestamp, receivercheck.CaseReplay}

	erring := newPartnerReceiver(t, partnerOpts{secret: secret, dedupe: true, refuseStatus: http.StatusServiceUnavailable, repeatStatus: http.StatusConflict})
	rep := mustCheck(t, receivercheck.Config{URL: erring.url(), CallbackURL: erring.callback(), Secret: secret, Cases: cases})
	for _, name := range []string{receivercheck.CaseForgedSignature, receivercheck.CaseStaleTimestamp} {
		if c := caseOf(t, rep, name); c.Result != receivercheck.Fail || !strings.Contains(c.Reason, "answered 503; a refusal is a 4xx") {
			t.Errorf("%s = %s %q", name, c.Result, c.Reason)
		}
	}
	if c := caseOf(t, rep, receivercheck.CaseReplay); c.Result != receivercheck.Pass || c.StatusCode != http.StatusConflict ||
		!strings.Contains(c.Reason, "refused the replay; the callback reports it applied once") {
		t.Errorf("replay refused with 409 = %s %q", c.Result, c.Reason)
	}

	late := newPartnerReceiver(t, partnerOpts{secret: secret, applyFirst: true})
	rep = mustCheck(t, receivercheck.Config{URL: late.url(), CallbackURL: late.callback(), Secret: secret, Cases: cases})
	for _, name := range []string{receivercheck.CaseForgedSignature, receivercheck.CaseStaleTimestamp} {
		if c := caseOf(t, rep, name); c.Result != receivercheck.Fail || c.StatusCode != http.StatusUnauthorized ||
			!strings.Contains(c.Reason, "the callback reports it applied 1 time(s)") {
			t.Errorf("refused after applying, %s = %s %q", name, c.Result, c.Reason)
		}
	}
}

// TestSimulator_CheckReceiverRejection: the control plane's method runs the
// rejection cases with the simulator's dispatcher settings, the deliveries
// the dispatcher cannot make included.
func TestSimulator_CheckReceiverRejection(t *testing.T) {
	t.Parallel()
	env := simulatortest.New(t, simulatortest.Options{})
	secret := webhook.NewSecret()
	r := newPartnerReceiver(t, partnerOpts{secret: secret, dedupe: true})
	rep, err := env.Sim.CheckReceiver(context.Background(), receivercheck.Config{URL: r.url(), CallbackURL: r.callback(), Secret: secret,
		Cases: []string{receivercheck.CaseCashIn, receivercheck.CaseTamperedBody, receivercheck.CaseUnsupportedVersion}})
	if err != nil || !rep.OK || rep.Rejection.Passed != 2 {
		t.Fatalf("err %v, report:\n%s", err, rep.Text())
	}
	for _, name := range []string{receivercheck.CaseTamperedBody, receivercheck.CaseUnsupportedVersion} {
		q := r.requestOf(t, caseOf(t, rep, name).Deliveries[0].WebhookID)
		if ua := q.header.Get("User-Agent"); ua != webhook.DefaultUserAgent {
			t.Errorf("%s: User-Agent %q", name, ua)
		}
	}
}
