package receivercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Run sends the receiver at cfg.URL every selected case and reports each
// one; with cfg.CallbackURL it then reads back what the receiver applied. It
// sends with dp (the simulator's dispatcher settings: its HTTP client, its
// user agent and --webhook-deny-private, which applies to the receiver and the
// callback URL; the zero Dispatcher outside a simulator). It needs no running
// simulator.
//
// It returns a *pix.Error of KindInvalid naming each bad field of cfg (url,
// callbackUrl, secret, headers, headers[i].key, headers[i].value, timeout,
// slow, cases[i]) before sending anything. A receiver that fails is not an
// error: it shows in the report. When ctx ends, the report holds the cases run
// so far and the error is ctx's.
func Run(ctx context.Context, cfg Config, dp webhook.Dispatcher) (Report, error) {
	return check(ctx, cfg, dp)
}

// Validate returns cfg with its defaults applied (Timeout, Slow,
// Cases; repeated cases once), or a *pix.Error of KindInvalid with one
// violation per bad field. The receiver URL, the custom headers and the
// secret follow the rules of a webhook target (webhook.ValidateTarget, http
// accepted so loopback receivers work); both URLs are at most
// MaxURLLength bytes. It sends nothing and generates no secret.
func Validate(cfg Config) (Config, error) {
	vs, err := validateTarget(cfg)
	if err != nil {
		return cfg, err
	}
	cvs, err := validateCallback(cfg.CallbackURL)
	if err != nil {
		return cfg, err
	}
	vs = append(vs, cvs...)
	cfg, tvs := withDurations(cfg)
	vs = append(vs, tvs...)
	cfg, cvs = withCases(cfg)
	vs = append(vs, cvs...)
	if len(vs) > 0 {
		return cfg, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return cfg, nil
}

// validateTarget checks the receiver as a webhook target: its URL (length
// first, then webhook.ValidateTarget's rules), secret and custom headers, none
// of which may be a header the dispatcher sets itself.
func validateTarget(cfg Config) ([]pix.Violation, error) {
	var vs []pix.Violation
	hs := make([]webhook.Header, len(cfg.Headers))
	for i, h := range cfg.Headers {
		hs[i] = webhook.Header{Key: h.Key, Value: h.Value}
	}
	tooLong := len(cfg.URL) > MaxURLLength
	if tooLong {
		vs = append(vs, pix.Violation{Field: "url", Message: fmt.Sprintf("must be at most %d bytes, got %d", MaxURLLength, len(cfg.URL))})
	}
	err := webhook.ValidateTarget(webhook.Target{URL: cfg.URL, EventType: webhook.EventCashOut, Headers: hs, Secret: cfg.Secret}, false)
	if pe, ok := errors.AsType[*pix.Error](err); ok {
		for _, v := range pe.Violations {
			if v.Field == "url" && tooLong {
				continue // already said
			}
			vs = append(vs, v)
		}
	} else if err != nil {
		return nil, err
	}
	for i, h := range cfg.Headers {
		if isStandardWebhookHeader(h.Key) {
			vs = append(vs, pix.Violation{Field: fmt.Sprintf("headers[%d].key", i),
				Message: "must not be webhook-id, webhook-timestamp or webhook-signature: the check sets them on every delivery"})
		}
	}
	return vs, nil
}

// validateCallback checks the optional URL the report is posted to.
func validateCallback(u string) ([]pix.Violation, error) {
	switch {
	case u == "":
		return nil, nil
	case len(u) > MaxURLLength:
		return []pix.Violation{{Field: "callbackUrl", Message: fmt.Sprintf("must be at most %d bytes, got %d", MaxURLLength, len(u))}}, nil
	}
	err := webhook.ValidateURL(u, false)
	if err == nil {
		return nil, nil
	}
	if pe, ok := errors.AsType[*pix.Error](err); ok && len(pe.Violations) > 0 {
		return []pix.Violation{{Field: "callbackUrl", Message: pe.Violations[0].Message}}, nil
	}
	return nil, err
}

// withDurations applies the defaults of Timeout and Slow and checks their ranges.
func withDurations(cfg Config) (Config, []pix.Violation) {
	var vs []pix.Violation
	switch {
	case cfg.Timeout == 0:
		cfg.Timeout = DefaultTimeout
	case cfg.Timeout < time.Millisecond || cfg.Timeout > MaxTimeout:
		vs = append(vs, pix.Violation{Field: "timeout", Message: fmt.Sprintf("must be from 1ms to %s, got %s", MaxTimeout, cfg.Timeout)})
	}
	switch {
	case cfg.Slow == 0:
		cfg.Slow = DefaultSlow
	case cfg.Slow < 0 || cfg.Slow > MaxSlow:
		vs = append(vs, pix.Violation{Field: "slow", Message: fmt.Sprintf("must be from 0s to %s (0 means the default %s), got %s", MaxSlow, DefaultSlow, cfg.Slow)})
	}
	return cfg, vs
}

// withCases keeps the known cases once each, in their first order; none means all.
func withCases(cfg Config) (Config, []pix.Violation) {
	var vs []pix.Violation
	var cases []string
	for i, c := range cfg.Cases {
		switch {
		case !slices.Contains(Cases, c):
			vs = append(vs, pix.Violation{Field: fmt.Sprintf("cases[%d]", i), Message: "must be one of " + strings.Join(Cases, ", ") + ", not " + strconv.Quote(pix.Clip(c, 80))})
		case !slices.Contains(cases, c):
			cases = append(cases, c)
		}
	}
	if len(cfg.Cases) == 0 {
		cases = slices.Clone(Cases)
	}
	cfg.Cases = cases
	return cfg, vs
}

// isStandardWebhookHeader reports whether name is one of the headers the
// dispatcher always sets and that would silently replace a custom one.
func isStandardWebhookHeader(name string) bool {
	for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		if strings.EqualFold(name, h) {
			return true
		}
	}
	return false
}

// answerGrace is how long past the timeout an answer is still awaited, so the
// report can say "answered 200 after 7.1s" instead of only "no answer": the
// timeout itself, at most 2 s.
func answerGrace(timeout time.Duration) time.Duration { return min(timeout, 2*time.Second) }

func check(ctx context.Context, cfg Config, dp webhook.Dispatcher) (Report, error) {
	cfg, err := Validate(cfg)
	if err != nil {
		return Report{}, err
	}
	rep := Report{
		URL: cfg.URL, CallbackURL: cfg.CallbackURL, Secret: cfg.Secret, HeadersSent: []string{},
		TimeoutMs: cfg.Timeout.Milliseconds(), SlowMs: cfg.Slow.Milliseconds(),
		StartedAt: time.Now().UTC(), // wall time: the report's own timing
		Cases:     []CaseReport{},
	}
	if cfg.Secret == "" {
		cfg.Secret = webhook.NewSecret()
		rep.Secret, rep.SecretGenerated = cfg.Secret, true
	}
	for _, h := range cfg.Headers {
		rep.HeadersSent = append(rep.HeadersSent, h.Key)
	}
	dp.Timeout = cfg.Timeout + answerGrace(cfg.Timeout)
	dp.DenyPrivate = dp.DenyPrivate || cfg.DenyPrivate
	c := &checker{cfg: cfg, dp: &dp, w: newCheckWorld(), secretGiven: !rep.SecretGenerated}

	var runs []*caseRun
	for _, name := range Cases {
		if !slices.Contains(cfg.Cases, name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		runs = append(runs, c.run(ctx, name))
	}
	if cfg.CallbackURL != "" && ctx.Err() == nil {
		rep.Callback = readCallback(ctx, &dp, cfg.CallbackURL, cfg.Timeout)
	}
	for _, r := range runs {
		cr := r.judge(cfg.Timeout, rep.Callback, c.acceptedSigned)
		if cr.Group == GroupRejection {
			rep.Rejection.add(cr.Result)
		} else {
			rep.Acceptance.add(cr.Result)
		}
		rep.Cases = append(rep.Cases, cr)
	}
	rep.Passed = rep.Acceptance.Passed + rep.Rejection.Passed
	rep.Failed = rep.Acceptance.Failed + rep.Rejection.Failed
	rep.NotChecked = rep.Acceptance.NotChecked + rep.Rejection.NotChecked
	rep.OK = rep.Failed == 0
	rep.FinishedAt = time.Now().UTC() // wall time
	return rep, ctx.Err()
}

// checker sends the deliveries of one check.
type checker struct {
	cfg     Config
	dp      *webhook.Dispatcher
	w       *checkWorld
	attempt int64
	// secretGiven is true when the configuration named the secret, so the
	// receiver can hold it.
	secretGiven bool
	// acceptedSigned is true once the receiver answered 2xx in time to a
	// delivery with a valid signature and a fresh timestamp: the baseline
	// that makes a refusal of a rejection case mean something.
	acceptedSigned bool
}

// outgoing is one delivery to make.
type outgoing struct {
	webhookID string // "" = a new event id
	eventType string
	payload   string // the payload's kind, as webhook.Event.Kind
	body      any    // marshalled as the simulator's emit does; or []byte as is
	attempt   string
	signedAt  time.Time // the webhook-timestamp; zero = when sent
	// rotatedTo, when set, signs the delivery too, before the check's
	// secret: webhook-signature is "v1,<rotatedTo's> v1,<the check's>", as
	// during the overlap of a secret rotation the receiver has not taken up.
	rotatedTo string
	expected  string // the answer it needs (expect2xx, …); "" = expect2xx
	tamper    tamper // what a rejection case makes wrong in it
}

// send makes one delivery and reports it: with the dispatcher, or, for a
// tampering the dispatcher cannot produce, with sendRaw.
func (c *checker) send(ctx context.Context, o outgoing) Delivery {
	body, ok := o.body.([]byte)
	if !ok {
		var err error
		if body, err = json.Marshal(o.body); err != nil {
			return Delivery{EventType: o.eventType, Payload: o.payload, Error: "payload: " + err.Error()}
		}
	}
	if o.webhookID == "" {
		o.webhookID = webhook.NewEventID()
	}
	if o.expected == "" {
		o.expected = expect2xx
	}
	sentAt := time.Now() // wall time: the receiver checks webhook-timestamp against its clock
	if o.signedAt.IsZero() {
		o.signedAt = sentAt
	}
	c.attempt++
	var a webhook.Attempt
	if o.tamper.raw() {
		a = c.sendRaw(ctx, o, body)
	} else {
		a = c.sendDispatched(ctx, o, body)
	}
	out := Delivery{
		WebhookID: o.webhookID, EventType: o.eventType, Payload: o.payload, Attempt: o.attempt, Expected: o.expected,
		SentAt: sentAt.UTC(), WebhookTimestamp: o.signedAt.Unix(), WebhookSignature: headerValue(a.RequestHeaders, headerSignature),
		StatusCode: a.StatusCode, DurationMs: ms(a.Duration), Answered2xx: webhook.Success(a.StatusCode),
		WithinTimeout: a.StatusCode != 0 && a.Duration <= c.cfg.Timeout,
		Error:         a.Error, ResponseExcerpt: a.ResponseExcerpt, Body: json.RawMessage(body),
	}
	if !json.Valid(body) {
		out.Body = nil
	}
	for _, h := range c.cfg.Headers {
		if slices.ContainsFunc(a.RequestHeaders, func(s webhook.Header) bool { return strings.EqualFold(s.Key, h.Key) && s.Value == h.Value }) {
			out.CustomHeaders = append(out.CustomHeaders, h.Key)
		}
	}
	if o.tamper.none() && out.Answered2xx && out.WithinTimeout {
		c.acceptedSigned = true
	}
	return out
}

// sendDispatched makes one delivery with the dispatcher, signed with the
// check's secret unless o's tampering says otherwise.
func (c *checker) sendDispatched(ctx context.Context, o outgoing, body []byte) webhook.Attempt {
	ev := webhook.Event{ID: o.webhookID, EventType: o.eventType, Kind: o.payload, Body: body, CreatedAt: o.signedAt}
	d := webhook.OneOff(ev, c.cfg.URL, o.signedAt)
	for _, h := range c.cfg.Headers {
		d.Headers = append(d.Headers, webhook.Header{Key: h.Key, Value: h.Value})
	}
	d.Secret = c.cfg.Secret
	switch {
	case o.tamper.unsigned:
		d.Secret = ""
	case o.tamper.secret != "":
		d.Secret = o.tamper.secret
	case o.rotatedTo != "":
		// The dispatcher's own rotation: the new secret signs first, the
		// previous one (the receiver's) after it while the overlap runs.
		d.Secret, d.PreviousSecret, d.PreviousSecretUntil = o.rotatedTo, c.cfg.Secret, o.signedAt.Add(time.Hour)
	}
	dp := *c.dp
	dp.Wall = func() time.Time { return o.signedAt } // the webhook-timestamp: when signed, wall time
	return dp.Send(ctx, d, ev.ID, body, c.attempt, 1, o.signedAt)
}

// sendRaw makes one delivery the dispatcher cannot make (a signature over
// other bytes than the body sent, a signature header of other versions):
// the headers of rawHeaders, posted by the dispatcher (webhook.Dispatcher.Post:
// its client, timeout, redirect rule, --webhook-deny-private guard and
// response limits).
func (c *checker) sendRaw(ctx context.Context, o outgoing, body []byte) webhook.Attempt {
	h, err := c.rawHeaders(o, body)
	if err != nil {
		return webhook.Attempt{URL: c.cfg.URL, RequestBody: string(body), Error: err.Error()}
	}
	return c.dp.Post(ctx, c.cfg.URL, h, body)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// caseRun is a case whose deliveries were made, waiting for its judgement.
type caseRun struct {
	name, sends string
	deliveries  []Delivery
	// notChecked, when set, is why the case could not be run at all.
	notChecked string
	// problem is a failure beyond the HTTP answers.
	problem string
	// passNote is added to the reason of a pass: what the receiver proved.
	passNote string
	// accepted says, for the reason of a FAIL, what taking a delivery that
	// had to be refused means (rejection cases).
	accepted string
	// needsBaseline makes a refusal count only when the receiver accepted a
	// correctly signed delivery in the same check (rejection cases).
	needsBaseline bool
	// hint is added to the reason of a FAIL: how to mend the receiver.
	hint string
	// readBack judges the case through the callback; nil for none. It may
	// return nil: the callback has nothing to add.
	readBack func(cb *Callback) *ReadBack
}

// judge decides a case: every delivery answered within the timeout as it
// expected (a 2xx, a refusal, either, or any status); then, for a refusal,
// the baseline; then the read-back, when the case has one.
func (r *caseRun) judge(timeout time.Duration, cb *Callback, baseline bool) CaseReport {
	cr := CaseReport{Name: r.name, Group: GroupOf(r.name), Sends: r.sends, Deliveries: r.deliveries}
	if cr.Deliveries == nil {
		cr.Deliveries = []Delivery{}
	}
	if r.notChecked != "" {
		cr.Result, cr.Reason = NotChecked, r.notChecked
		return cr
	}
	failed := r.tally(&cr)
	switch {
	case failed >= 0:
		cr.Result, cr.Reason = Fail, r.failure(r.deliveries[failed], timeout)
		if r.hint != "" {
			cr.Reason += "; " + r.hint
		}
	case r.problem != "":
		cr.Result, cr.Reason = Fail, r.problem
	case r.needsBaseline && !baseline:
		cr.Result, cr.Reason = NotChecked, deliverySummary(r.deliveries, timeout)+"; "+noBaseline
	default:
		cr.Result, cr.Reason = Pass, deliverySummary(r.deliveries, timeout)
		if r.passNote != "" {
			cr.Reason += "; " + r.passNote
		}
	}
	if r.readBack == nil {
		return cr
	}
	if rb := r.readBack(cb); rb != nil {
		cr.ReadBack = rb
		// A read-back decides a pass; a failing one also overrides a refusal
		// left unjudged for want of a baseline.
		if cr.Result == Pass || (cr.Result == NotChecked && rb.Result == Fail) {
			cr.Result = rb.Result
		}
		cr.Reason += "; " + rb.Detail
	}
	return cr
}

// tally fills the duration, timeout, 2xx and status fields of cr from the
// deliveries and returns the index of the first delivery that did not get
// the answer it expected, or -1.
func (r *caseRun) tally(cr *CaseReport) int {
	cr.Answered2xx, cr.WithinTimeout = true, true
	failed := -1
	for i, d := range r.deliveries {
		cr.DurationMs = max(cr.DurationMs, d.DurationMs)
		if !d.WithinTimeout {
			cr.WithinTimeout = false
		}
		if d.Expected == expect2xx && !d.Answered2xx {
			cr.Answered2xx = false
		}
		if failed < 0 && !answeredAsExpected(d) {
			failed = i
		}
	}
	if n := len(r.deliveries); cr.Group == GroupRejection && n > 0 {
		cr.Answered2xx = r.deliveries[n-1].Answered2xx // the delivery the case is about
	}
	decisive := len(r.deliveries) - 1
	if failed >= 0 {
		decisive = failed
	}
	if decisive >= 0 {
		cr.StatusCode = r.deliveries[decisive].StatusCode
	}
	return failed
}

// failure says why d, a delivery of r, failed.
func (r *caseRun) failure(d Delivery, timeout time.Duration) string {
	if !d.WithinTimeout || (d.Expected != expect4xx && d.Expected != expect2xxOr4xx) {
		return deliveryFailure(d, timeout)
	}
	switch {
	case d.Expected == expect4xx && d.Answered2xx:
		return fmt.Sprintf("%s: answered %d, accepting %s", deliveryName(d), d.StatusCode, r.accepted)
	case d.Expected == expect2xxOr4xx:
		return fmt.Sprintf("%s: answered %d; a replay must be acknowledged (2xx) or refused (4xx): a sender retries anything else", deliveryName(d), d.StatusCode)
	}
	return fmt.Sprintf("%s: answered %d; a refusal is a 4xx: a sender retries a 5xx, and a 3xx is not followed", deliveryName(d), d.StatusCode)
}

// deliveryName names d in a reason: its payload, event type and attempt.
func deliveryName(d Delivery) string {
	what := d.Payload + " (" + d.EventType + ")"
	if d.Attempt != "" && d.Attempt != "first" {
		what += " " + d.Attempt
	}
	return what
}

// deliveryFailure says why d failed: no answer or a late one, or, for a
// delivery that had to succeed, a status other than 2xx.
func deliveryFailure(d Delivery, timeout time.Duration) string {
	what := deliveryName(d)
	switch {
	case d.StatusCode == 0 && d.DurationMs >= ms(timeout):
		return fmt.Sprintf("%s: no answer within %s (abandoned after %s, as a delivery of the simulator would be)", what, timeout, formatMs(d.DurationMs))
	case d.StatusCode == 0:
		return what + ": no HTTP answer: " + pix.Clip(d.Error, 160)
	case !d.WithinTimeout:
		return fmt.Sprintf("%s: answered %d after %s, beyond the %s timeout (the simulator would have abandoned it and retried)", what, d.StatusCode, formatMs(d.DurationMs), timeout)
	default:
		return fmt.Sprintf("%s: answered %d; only a 2xx counts as delivered (a 3xx is not followed)", what, d.StatusCode)
	}
}

// deliverySummary says what a passing case's deliveries got.
func deliverySummary(ds []Delivery, timeout time.Duration) string {
	if len(ds) == 1 {
		return fmt.Sprintf("%s (%s) answered %d in %s, within %s", ds[0].Payload, ds[0].EventType, ds[0].StatusCode, formatMs(ds[0].DurationMs), timeout)
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s %s: %d", d.Payload, d.Attempt, d.StatusCode)
	}
	return strings.Join(parts, ", ") + ", each within " + timeout.String()
}

// run makes the deliveries of one case.
func (c *checker) run(ctx context.Context, name string) *caseRun {
	w := c.w
	one := func(sends string, o outgoing) *caseRun {
		o.attempt = "first"
		return &caseRun{name: name, sends: sends, deliveries: []Delivery{c.send(ctx, o)}}
	}
	switch name {
	case CaseTransfer:
		return one("V2 TRANSFER (cash_out): a PIX to a DICT key settled, status LIQUIDATED",
			outgoing{eventType: webhook.EventCashOut, payload: "TRANSFER", body: webhook.TransferPayload(w.transfer())})
	case CaseReceive:
		return one("V2 RECEIVE (cash_in): a cob paid, status LIQUIDATED",
			outgoing{eventType: webhook.EventCashIn, payload: "RECEIVE", body: webhook.ReceivePayload(w.received())})
	case CaseRefund:
		o := w.received()
		r := w.refundOf(o, CaseRefund)
		return one("V2 REFUND (refund_in): a received PIX refunded, status REFUNDED, creditDebitType DEBIT",
			outgoing{eventType: webhook.EventRefundIn, payload: "REFUND", body: webhook.RefundPayload(o, r, nil, r.TransactionID)})
	case CaseCashOutConfirmed:
		return one("CashOut CONFIRMED (cash_out): errorCode and errorMessage null",
			outgoing{eventType: webhook.EventCashOut, payload: "CashOut", body: webhook.CashOutPayload(w.cashOut(""))})
	case CaseCashOutError:
		t := w.cashOut(pix.CodeAccountClosed)
		run := one("CashOut ERROR (cash_out): errorCode "+string(t.ErrorCode)+" of the spec's table, errorMessage set",
			outgoing{eventType: webhook.EventCashOut, payload: "CashOut", body: webhook.CashOutPayload(t)})
		run.passNote = "status ERROR, errorCode " + string(t.ErrorCode)
		return run
	case CaseCashIn:
		t, ch := w.cashIn()
		return one("CashIn CONFIRMED (cash_in): a cash-in charge paid",
			outgoing{eventType: webhook.EventCashIn, payload: "CashIn", body: webhook.CashInPayload(t, ch)})
	case CaseRefundOut:
		o := w.transfer()
		r := w.refundBy(o)
		return one("V2 REFUND (refund_out): a refund received for a PIX sent, creditDebitType CREDIT",
			outgoing{eventType: webhook.EventRefundOut, payload: "REFUND", body: webhook.RefundPayload(o, r, nil, w.id())})
	case CaseMEDCreated:
		return one("MED (med_created): a MED opened against a received PIX, status OPEN",
			outgoing{eventType: webhook.EventMedCreated, payload: "MED", body: webhook.MEDPayload("med_created", w.med(""))})
	case CaseMEDAccepted:
		return one("MED (med_accepted): a MED analysed, status ANALYZED, analysisResult APPROVED",
			outgoing{eventType: webhook.EventMedAccepted, payload: "MED", body: webhook.MEDPayload("med_accepted", w.med(pix.MEDResultApproved))})
	case CaseMEDRejected:
		return one("MED (med_rejected): a MED analysed, status ANALYZED, analysisResult REJECTED",
			outgoing{eventType: webhook.EventMedRejected, payload: "MED", body: webhook.MEDPayload("med_rejected", w.med(pix.MEDResultRejected))})
	case CaseDuplicate:
		return c.duplicate(ctx)
	case CaseOutOfOrder:
		return c.outOfOrder(ctx)
	case CaseUnknownFields:
		body, err := withUnknownFields(webhook.CashOutPayload(w.cashOut("")))
		if err != nil {
			return &caseRun{name: name, notChecked: "could not build the payload: " + err.Error()}
		}
		run := one("CashOut CONFIRMED (cash_out) with fields the spec does not list, at the top, in counterpart and in counterpart.bank",
			outgoing{eventType: webhook.EventCashOut, payload: "CashOut", body: body})
		run.passNote = "unknown fields accepted"
		return run
	case CaseSlow:
		return c.slow(ctx)
	case CaseCustomHeaders:
		return c.customHeaders(ctx)
	case CaseRotation:
		return c.rotation(ctx)
	}
	if GroupOf(name) == GroupRejection {
		// wall time: the webhook-timestamps of the stale, future and replay
		// cases are set from it, and the receiver checks them against its clock
		return c.rejection(ctx, name, time.Now())
	}
	return &caseRun{name: name, notChecked: "unknown case"}
}

// duplicate delivers one RECEIVE twice with the same webhook-id, as a retry
// after a lost answer would. Both must be answered 2xx; through the callback,
// the event must have been applied exactly once.
func (c *checker) duplicate(ctx context.Context) *caseRun {
	o := outgoing{webhookID: webhook.NewEventID(), eventType: webhook.EventCashIn, payload: "RECEIVE", body: webhook.ReceivePayload(c.w.received()), attempt: "first"}
	first := c.send(ctx, o)
	o.attempt = "repeat"
	again := c.send(ctx, o)
	id := o.webhookID
	return &caseRun{
		name: CaseDuplicate, sends: "V2 RECEIVE (cash_in) twice with the same webhook-id " + id,
		deliveries: []Delivery{first, again},
		readBack: func(cb *Callback) *ReadBack {
			return appliedOnce(cb, id, "whether the duplicate was applied once", "deduplicate by webhook-id")
		},
	}
}

// appliedOnce judges a read-back of an event sent more than once with
// webhook-id id: it passes when the callback lists id applied exactly once;
// question says what the read-back was to tell, advice how to mend a second
// application.
func appliedOnce(cb *Callback, id, question, advice string) *ReadBack {
	if rb := readBackUnusable(cb, question); rb != nil {
		return rb
	}
	n := appliedCount(cb, id)
	rb := &ReadBack{Applied: []Processed{{WebhookID: id, Count: n}}}
	switch n {
	case 1:
		rb.Result, rb.Detail = Pass, "the callback reports it applied once"
	case 0:
		rb.Result, rb.Detail = Fail, "the callback does not list "+id+": the event was never applied"
	default:
		rb.Result, rb.Detail = Fail, fmt.Sprintf("the callback reports it applied %d times: %s", n, advice)
	}
	return rb
}

// outOfOrder delivers the REFUND of a received PIX before the RECEIVE of that
// PIX. The receiver may refuse the early REFUND (any status, within the
// timeout): it is then delivered again after the RECEIVE, as the simulator's
// retry would. Through the callback, both must end applied exactly once.
func (c *checker) outOfOrder(ctx context.Context) *caseRun {
	o := c.w.received()
	r := c.w.refundOf(o, CaseOutOfOrder)
	refund := outgoing{webhookID: webhook.NewEventID(), eventType: webhook.EventRefundIn, payload: "REFUND",
		body: webhook.RefundPayload(o, r, nil, r.TransactionID), attempt: "first", expected: expectAny}
	receive := outgoing{webhookID: webhook.NewEventID(), eventType: webhook.EventCashIn, payload: "RECEIVE", body: webhook.ReceivePayload(o), attempt: "first"}
	run := &caseRun{name: CaseOutOfOrder,
		sends: "V2 REFUND (refund_in) " + refund.webhookID + " before the RECEIVE (cash_in) " + receive.webhookID + " of the PIX it refunds; the REFUND again if refused"}
	early := c.send(ctx, refund)
	run.deliveries = append(run.deliveries, early, c.send(ctx, receive))
	if !early.Answered2xx {
		// Refusing an event that cannot be applied yet is fine: it comes again.
		refund.attempt, refund.expected = "retry", expect2xx
		run.deliveries = append(run.deliveries, c.send(ctx, refund))
	}
	run.readBack = func(cb *Callback) *ReadBack {
		if rb := readBackUnusable(cb, "what the receiver ended with"); rb != nil {
			return rb
		}
		nRecv, nRef := appliedCount(cb, receive.webhookID), appliedCount(cb, refund.webhookID)
		rb := &ReadBack{Applied: []Processed{{WebhookID: receive.webhookID, Count: nRecv}, {WebhookID: refund.webhookID, Count: nRef}}}
		rb.Detail = fmt.Sprintf("the receiver ended with RECEIVE applied %d time(s) and REFUND applied %d time(s)", nRecv, nRef)
		if nRecv == 1 && nRef == 1 {
			rb.Result = Pass
		} else {
			rb.Result, rb.Detail = Fail, rb.Detail+"; both must end applied exactly once (the PIX received, then refunded)"
		}
		return rb
	}
	return run
}

// slow signs a CashOut CONFIRMED, waits cfg.Slow and only then sends it: it
// arrives with a webhook-timestamp cfg.Slow old, as a delivery that waited in
// a queue. The receiver must accept it (and its signature) and answer in time.
func (c *checker) slow(ctx context.Context) *caseRun {
	run := &caseRun{name: CaseSlow,
		sends: fmt.Sprintf("CashOut CONFIRMED (cash_out) sent %s after it was signed: its webhook-timestamp is %s old on arrival", c.cfg.Slow, c.cfg.Slow)}
	o := outgoing{eventType: webhook.EventCashOut, payload: "CashOut", body: webhook.CashOutPayload(c.w.cashOut("")), attempt: "first",
		signedAt: time.Now()} // wall time: the delivery's webhook-timestamp
	wait := time.NewTimer(c.cfg.Slow) // wall time: the delay is the point of the case
	defer wait.Stop()
	select {
	case <-ctx.Done():
		run.notChecked = "interrupted while waiting to send"
		return run
	case <-wait.C:
	}
	run.deliveries = []Delivery{c.send(ctx, o)}
	run.passNote = fmt.Sprintf("accepted a webhook-timestamp %s old", c.cfg.Slow)
	return run
}

// rotation sends one RECEIVE signed as the simulator signs during the
// overlap of a secret rotation (Gap G-67) that the receiver has not taken up
// yet: webhook-signature holds two v1 signatures, the first with a fresh
// secret the receiver cannot know, the second with the receiver's. A
// Standard Webhooks receiver accepts it, since one v1 signature verifies; one
// that checks only the first signature, or takes the header for a single
// signature, refuses it.
func (c *checker) rotation(ctx context.Context) *caseRun {
	run := &caseRun{name: CaseRotation,
		sends:    `V2 RECEIVE (cash_in) signed as during a secret rotation: webhook-signature "v1,<a new secret's> v1,<the receiver's>"`,
		passNote: "accepted two v1 signatures, its own second",
		hint:     "during a secret rotation webhook-signature holds several space-separated v1 signatures: accept the delivery when any one verifies"}
	run.deliveries = []Delivery{c.send(ctx, outgoing{eventType: webhook.EventCashIn, payload: "RECEIVE",
		body: webhook.ReceivePayload(c.w.received()), attempt: "first", rotatedTo: webhook.NewSecret()})}
	return run
}

// customHeaders sends one TRANSFER and checks that every configured header
// went out with it (they go with every delivery of the check).
func (c *checker) customHeaders(ctx context.Context) *caseRun {
	run := &caseRun{name: CaseCustomHeaders}
	if len(c.cfg.Headers) == 0 {
		run.sends = "nothing: no custom headers are configured"
		run.notChecked = "no custom headers configured (--header, or headers in the request)"
		return run
	}
	names := make([]string, len(c.cfg.Headers))
	for i, h := range c.cfg.Headers {
		names[i] = h.Key
	}
	run.sends = "V2 TRANSFER (cash_out) with the configured headers " + strings.Join(names, ", ")
	d := c.send(ctx, outgoing{eventType: webhook.EventCashOut, payload: "TRANSFER", body: webhook.TransferPayload(c.w.transfer()), attempt: "first"})
	run.deliveries = []Delivery{d}
	var missing []string
	for _, n := range names {
		if !slices.Contains(d.CustomHeaders, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		run.problem = "not sent: " + strings.Join(missing, ", ")
	}
	run.passNote = "sent " + strings.Join(names, ", ")
	return run
}

// readBackUnusable returns the read-back of a case when the callback cannot
// judge it: NOT CHECKED without a callback URL, FAIL when it could not be
// read. It returns nil when the callback is usable.
func readBackUnusable(cb *Callback, what string) *ReadBack {
	switch {
	case cb == nil:
		return &ReadBack{Result: NotChecked, Detail: what + ": not checked (no callback URL)"}
	case cb.Error != "":
		return &ReadBack{Result: Fail, Detail: what + ": unknown, the callback could not be used: " + cb.Error}
	}
	return nil
}

// appliedCount is how many times the callback says id was applied.
func appliedCount(cb *Callback, id string) int {
	n := 0
	for _, p := range cb.Processed {
		if p.WebhookID == id {
			n += p.Count
		}
	}
	return n
}

// withUnknownFields returns the JSON of payload with fields the spec does not
// list added at the top level, in counterpart and in counterpart.bank. Numbers
// keep their exact text.
func withUnknownFields(payload any) ([]byte, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	m["sandboxUnknownField"] = map[string]any{"note": "a field the spec does not list: ignore it", "list": []any{1, "two", nil}}
	m["schemaRevision"] = 3
	if cp, ok := m["counterpart"].(map[string]any); ok {
		cp["accountType"] = "CACC"
		if bank, ok := cp["bank"].(map[string]any); ok {
			bank["participantType"] = "IP"
		}
	}
	return json.Marshal(m)
}

// maxCallbackBody bounds what is read from the callback URL.
const maxCallbackBody = 1 << 20

// readCallback GETs the callback URL (through the dispatcher, so the
// deny-private guard applies) and parses its CallbackBody. Any problem
// is reported in Error; the cases that need it then FAIL.
func readCallback(ctx context.Context, dp *webhook.Dispatcher, url string, timeout time.Duration) *Callback {
	cb := &Callback{URL: url, Processed: []Processed{}}
	start := time.Now() // wall time: the read-back's duration
	status, data, err := dp.Fetch(ctx, url, timeout, maxCallbackBody)
	cb.DurationMs = ms(time.Since(start))
	cb.StatusCode = status
	const want = `{"processed": [{"webhookId": "evt_…", "count": N}, …]}`
	switch {
	case status == 0 && err != nil:
		cb.Error = "GET: " + err.Error()
		return cb
	case !webhook.Success(status):
		cb.Error = fmt.Sprintf("GET answered %d; it must answer 2xx with %s", status, want)
		return cb
	case err != nil:
		cb.Error = "reading the answer: " + err.Error()
		return cb
	}
	var body struct {
		Processed *[]Processed `json:"processed"`
	}
	if err := json.Unmarshal(data, &body); err != nil || body.Processed == nil {
		why := "no processed list"
		if err != nil {
			why = err.Error()
		}
		cb.Error = "the answer is not " + want + ": " + why
		return cb
	}
	for i, p := range *body.Processed {
		if p.WebhookID == "" || p.Count < 0 {
			cb.Error = fmt.Sprintf("processed[%d] must have a webhookId and a count of 0 or more", i)
			return cb
		}
	}
	cb.Processed = *body.Processed
	return cb
}

// checkWorld makes the synthetic but valid records a check sends: numeric
// ids, end-to-end ids of the Central Bank form, CPFs and CNPJs with their
// check digits, banks of the fixture list.
type checkWorld struct {
	next int64
	now  time.Time
}

func newCheckWorld() *checkWorld {
	return &checkWorld{next: 900_000_000 + rand.Int64N(90_000_000), now: time.Now().UTC().Truncate(time.Millisecond)} // wall time
}

// checkBank is a participant of the synthetic records.
type checkBank struct{ ispb, name, code string }

var (
	checkSandbox = checkBank{"13140088", "pixsandbox Instituição de Pagamento", "999"}
	checkBanks   = []checkBank{
		{"00000000", "Banco do Brasil S.A.", "001"},
		{"60701190", "Itaú Unibanco S.A.", "341"},
		{"18236120", "Nu Pagamentos S.A. - Instituição de Pagamento", "260"},
		{"60746948", "Banco Bradesco S.A.", "237"},
		{"00360305", "Caixa Econômica Federal", "104"},
	}
	checkNames = []string{"Maria da Silva", "João Pereira", "Ana Beatriz Souza", "Carlos Eduardo Lima", "Fernanda Oliveira", "Rafael Santos"}
)

func (w *checkWorld) id() int64 { w.next++; return w.next }

func (w *checkWorld) alnum(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = pix.Alphanumerics[rand.IntN(len(pix.Alphanumerics))]
	}
	return string(b)
}

func (w *checkWorld) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + rand.IntN(10))
	}
	return string(b)
}

// cpf returns a CPF with valid check digits.
func (w *checkWorld) cpf() string {
	for {
		if s, err := pix.CPFCheckDigits(w.digits(9)); err == nil {
			return s
		}
	}
}

// cnpj returns the CNPJ of a head office (branch 0001) with valid check digits.
func (w *checkWorld) cnpj() string {
	for {
		if s, err := pix.CNPJCheckDigits(w.digits(8) + "0001"); err == nil {
			return s
		}
	}
}

func (w *checkWorld) e2e(prefix byte, b checkBank) string {
	return pix.NewEndToEndID(prefix, b.ispb, w.now, w.alnum(11))
}

// party is a person at a bank other than the sandbox.
func (w *checkWorld) party() pix.Counterpart {
	b := checkBanks[rand.IntN(len(checkBanks))]
	return pix.Counterpart{Name: checkNames[rand.IntN(len(checkNames))], Document: w.cpf(), ISPB: b.ispb, BankName: b.name, BankCode: b.code,
		Branch: w.digits(4), AccountNumber: w.digits(7) + "-" + w.digits(1), AccountType: "CACC"}
}

func bankOf(c pix.Counterpart) checkBank { return checkBank{c.ISPB, c.BankName, c.BankCode} }

// transfer is a settled PIX to a DICT key (an email key).
func (w *checkWorld) transfer() pix.Transaction {
	cp := w.party()
	return pix.Transaction{ID: w.id(), UUID: uuid.NewString(), Kind: pix.TxTransfer, Status: pix.TxStatusConfirmed,
		Amount: 150_00, IdempotencyKey: uuid.NewString(), EndToEndID: w.e2e('E', checkSandbox),
		PixKey: "pagamentos." + strings.ToLower(w.alnum(6)) + "@example.com", KeyType: string(pix.KeyTypeEmail), Description: "Pedido 4471",
		Counterpart: cp, Document: cp.Document, CreatedAt: w.now.Add(-2 * time.Second), ProcessedAt: w.now}
}

// received is a PIX received paying a cob.
func (w *checkWorld) received() pix.Transaction {
	cp := w.party()
	return pix.Transaction{ID: w.id(), UUID: uuid.NewString(), Kind: pix.TxPixIn, Status: pix.TxStatusConfirmed,
		Amount: 89_90, EndToEndID: w.e2e('E', bankOf(cp)), TxID: w.alnum(30), Counterpart: cp,
		CreatedAt: w.now.Add(-time.Minute), ProcessedAt: w.now.Add(-time.Minute)}
}

// refundOf is a settled full refund the account made of the PIX o it received.
func (w *checkWorld) refundOf(o pix.Transaction, label string) pix.Refund {
	return pix.Refund{ID: "check" + strings.ReplaceAll(label, "_", "") + w.alnum(8), OriginalTransactionID: o.ID, OriginalEndToEndID: o.EndToEndID,
		TransactionID: w.id(), RtrID: w.e2e('D', checkSandbox), Amount: o.Amount, Nature: pix.NatureOriginal,
		Description: "Devolução do pedido", Status: pix.RefundStatusDevolvido, RequestedAt: w.now.Add(-time.Second), SettledAt: w.now}
}

// refundBy is a settled partial refund the counterpart made of the PIX o the
// account sent.
func (w *checkWorld) refundBy(o pix.Transaction) pix.Refund {
	return pix.Refund{ID: w.alnum(20), OriginalEndToEndID: o.EndToEndID, RtrID: w.e2e('D', bankOf(o.Counterpart)),
		Amount: o.Amount / 2, Nature: pix.NatureOriginal, Description: "Estorno parcial", Status: pix.RefundStatusDevolvido,
		RequestedAt: w.now.Add(-time.Second), SettledAt: w.now}
}

// cashOut is a cash-out to a phone key, CONFIRMED, or ERROR with code.
func (w *checkWorld) cashOut(code pix.Code) pix.Transaction {
	cp := w.party()
	t := pix.Transaction{ID: w.id(), UUID: uuid.NewString(), Kind: pix.TxCashOut, Status: pix.TxStatusConfirmed,
		Amount: 250_00, Fee: 1_50, ExternalID: "check-" + w.alnum(12), EndToEndID: w.e2e('E', checkSandbox),
		PixKey: "119" + w.digits(8), KeyType: string(pix.CashOutKeyPhone), Description: "Saque", Counterpart: cp, Document: cp.Document,
		CreatedAt: w.now.Add(-2 * time.Second), ProcessedAt: w.now}
	if code != "" {
		f, _ := pix.LookupFailure(code)
		t.Status, t.ErrorCode, t.ErrorMessage = pix.TxStatusError, f.Code, f.Message
	}
	return t
}

// cashIn is a paid cash-in charge, payer a company, with additionalInfo.
func (w *checkWorld) cashIn() (pix.Transaction, pix.Charge) {
	cp := w.party()
	cp.Name, cp.Document = "Comercial Exemplo Ltda", w.cnpj()
	t := pix.Transaction{ID: w.id(), UUID: uuid.NewString(), Kind: pix.TxCashIn, Status: pix.TxStatusConfirmed,
		Amount: 120_00, Fee: 99, ExternalID: "check-" + w.alnum(12), EndToEndID: w.e2e('E', bankOf(cp)), TxID: w.alnum(32),
		Description: "Assinatura mensal", Counterpart: cp, CreatedAt: w.now.Add(-10 * time.Minute), ProcessedAt: w.now}
	ch := pix.Charge{TransactionID: t.ID, CorrelationID: uuid.NewString(), TxID: t.TxID, PayerName: cp.Name, PayerDocument: cp.Document,
		ExpiresAt: w.now.Add(24 * time.Hour), AdditionalInfo: map[string]string{"pedido": "4471"}}
	return t, ch
}

// med is a MED against a PIX the account received: OPEN when result is
// empty, else ANALYZED with that result.
func (w *checkWorld) med(result string) pix.MED {
	o := w.received()
	m := pix.MED{ID: w.id(), EndToEnd: o.EndToEndID, Status: pix.MEDStatusOpen, Reason: pix.MEDReasonRefundRequest,
		Cause: "UNAUTHORIZED_TRANSACTION", Description: "Cliente não reconhece a transação",
		RequestingBank: pix.BankRef{ISPB: o.Counterpart.ISPB, Name: o.Counterpart.BankName},
		ContestedBank:  pix.BankRef{ISPB: checkSandbox.ispb, Name: checkSandbox.name},
		Original: &pix.MEDOriginal{Amount: o.Amount, Type: string(pix.TxTypePayment), TransactionType: "PIX", Name: o.Counterpart.Name,
			Document: o.Counterpart.Document, DateTime: o.ProcessedAt},
		IsReconciled: true, OriginalTransactionID: o.ID, ContestedAmount: o.Amount,
		CreatedAt: w.now.Add(-time.Hour), UpdatedAt: w.now}
	if result != "" {
		details := "Fraude comprovada pelo banco do pagador"
		if result == pix.MEDResultRejected {
			details = "Sem indícios de fraude"
		}
		m.Status, m.AnalysisResult, m.AnalysisDetails = pix.MEDStatusAnalyzed, result, details
	}
	return m
}
