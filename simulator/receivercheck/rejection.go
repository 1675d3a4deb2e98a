package receivercheck

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// The rejection group (docs/receiver-check.md, "The rejection cases"): each
// case sends one V2 RECEIVE (cash_in), a credit, which is what a forger
// gains from, with one thing wrong that a Standard Webhooks receiver must
// refuse; the replay case sends a valid RECEIVE twice with one webhook-id,
// as a retry does, which must not be applied twice.

// The answer a delivery needs within the timeout (Delivery.Expected).
const (
	expect2xx      = "2xx"        // taken
	expect4xx      = "4xx"        // refused
	expect2xxOr4xx = "2xx or 4xx" // acknowledged or refused, never retried
	expectAny      = "any"        // any status, as long as one comes in time
)

// The Standard Webhooks headers, as the report and the rejection cases name them.
const (
	headerID        = "webhook-id"
	headerTimestamp = "webhook-timestamp"
	headerSignature = "webhook-signature"
)

// replayGap is how much older the replay case's first webhook-timestamp is
// than the replay's: the first retry of the Standard Webhooks schedule.
const replayGap = 5 * time.Second

// Reasons of rejection cases that cannot be judged.
const (
	secretNotGiven = `not run: needs the receiver's secret (--secret, or "secret" in the request); ` +
		"a receiver cannot hold a generated one, so its refusal would prove nothing"
	noBaseline = "not judged: the receiver took no correctly signed delivery in this check, so the refusal may be " +
		"about something else (another secret, a broken handler): give the receiver's secret and run an acceptance case with it"
)

// tamper is what a rejection case makes wrong in a delivery; the zero value
// makes nothing wrong.
type tamper struct {
	kind       string   // the rejection case; "" for a correct delivery
	unsigned   bool     // no webhook-signature header
	secret     string   // signed with this secret instead of the check's
	signedBody []byte   // the signature covers these bytes, not the body sent
	versions   []string // the header holds the right signature under each of these versions, and nothing else
}

// none reports whether the delivery is correct: signed with the check's
// secret over its body, with a fresh timestamp.
func (t tamper) none() bool { return t.kind == "" }

// raw reports whether the delivery needs sendRaw: the dispatcher always signs
// the body it sends, and only with version v1.
func (t tamper) raw() bool { return t.signedBody != nil || t.versions != nil }

// rejectionPlan is one rejection case's delivery and how to word its outcome.
type rejectionPlan struct {
	sends string // what the case sends
	what  string // what is wrong with the delivery, as a noun phrase
	fix   string // what a receiver that took it must do instead
	// needsSecret: the case means something only if the receiver holds the
	// secret the check signs with.
	needsSecret bool
}

// rejection makes the deliveries of one rejection case; now is the wall
// time the stale, future and replay timestamps are set from.
func (c *checker) rejection(ctx context.Context, name string, now time.Time) *caseRun {
	if name == CaseReplay {
		return c.replay(ctx, now)
	}
	run := &caseRun{name: name, needsBaseline: true}
	t := c.w.received()
	body, err := json.Marshal(webhook.ReceivePayload(t))
	if err != nil {
		run.notChecked = "could not build the payload: " + err.Error()
		return run
	}
	o := outgoing{webhookID: webhook.NewEventID(), eventType: webhook.EventCashIn, payload: "RECEIVE", body: body,
		attempt: "first", expected: expect4xx}
	plan, err := planRejection(name, &o, t, now)
	run.sends, run.accepted, run.passNote = plan.sends, plan.what+"; "+plan.fix, "refused "+plan.what
	switch {
	case err != nil:
		run.notChecked = "could not build the delivery: " + err.Error()
		return run
	case plan.needsSecret && !c.secretGiven:
		run.sends, run.notChecked = "nothing: the receiver cannot hold the generated secret", secretNotGiven
		return run
	}
	run.deliveries = []Delivery{c.send(ctx, o)}
	run.readBack = noEffect(o.webhookID)
	return run
}

// replay delivers one valid RECEIVE with a webhook-timestamp replayGap in
// the past, then the same webhook-id and body again with the current
// webhook-timestamp and its valid signature: what a sender's retry looks
// like, and what a receiver that deduplicates by signature or timestamp
// applies twice. The first must be taken (2xx); the replay acknowledged (2xx)
// or refused (4xx); through the callback, the event must end applied once.
func (c *checker) replay(ctx context.Context, now time.Time) *caseRun {
	run := &caseRun{name: CaseReplay}
	if !c.secretGiven {
		run.sends, run.notChecked = "nothing: the receiver cannot hold the generated secret", secretNotGiven
		return run
	}
	o := outgoing{webhookID: webhook.NewEventID(), eventType: webhook.EventCashIn, payload: "RECEIVE",
		body: webhook.ReceivePayload(c.w.received()), attempt: "first", signedAt: now.Add(-replayGap)}
	id := o.webhookID
	run.sends = fmt.Sprintf("V2 RECEIVE (cash_in) %s with a webhook-timestamp %s old, then again with the same webhook-id and body, "+
		"the current webhook-timestamp and its valid signature, as a retry", id, replayGap)
	first := c.send(ctx, o)
	o.attempt, o.signedAt, o.expected = "replay", time.Time{}, expect2xxOr4xx
	o.tamper.kind = CaseReplay
	again := c.send(ctx, o)
	run.deliveries = []Delivery{first, again}
	refused := again.WithinTimeout && refusal(again.StatusCode)
	run.passNote = "acknowledged the replay"
	if refused {
		run.passNote = "refused the replay"
	}
	run.readBack = func(cb *Callback) *ReadBack {
		if cb == nil && refused {
			return nil // a refusal alone decides without a callback
		}
		return appliedOnce(cb, id, "whether the replay was applied again",
			"deduplicate by webhook-id, not by signature or timestamp, which change on every retry")
	}
	return run
}

// refusal reports whether status refuses a delivery: a 4xx.
func refusal(status int) bool { return status >= 400 && status <= 499 }

// answeredAsExpected reports whether d got, within the timeout, the answer
// it expected.
func answeredAsExpected(d Delivery) bool {
	if !d.WithinTimeout {
		return false
	}
	switch d.Expected {
	case expectAny:
		return true
	case expect4xx:
		return refusal(d.StatusCode)
	case expect2xxOr4xx:
		return d.Answered2xx || refusal(d.StatusCode)
	}
	return d.Answered2xx
}

// planRejection makes o, a correct RECEIVE of t, wrong as the case name
// says, and returns the plan.
func planRejection(name string, o *outgoing, t pix.Transaction, now time.Time) (rejectionPlan, error) {
	tolerance := fmt.Sprintf("%d minutes", int(OutsideTolerance.Minutes()))
	o.tamper.kind = name
	switch name {
	case CaseForgedSignature:
		o.tamper.secret = webhook.NewSecret()
		return rejectionPlan{needsSecret: true,
			sends: "V2 RECEIVE (cash_in) signed with another secret (a fresh whsec_), every other header right",
			what:  "a signature made with another secret",
			fix:   "verify webhook-signature with the receiver's secret before using the body"}, nil
	case CaseTamperedBody:
		signed, _ := o.body.([]byte)
		changed, from, to, err := inflatedAmount(signed, t)
		if err != nil {
			return rejectionPlan{}, err
		}
		o.body, o.tamper.signedBody = changed, signed
		return rejectionPlan{needsSecret: true,
			sends: "V2 RECEIVE (cash_in) signed, then its payment.amount changed from " + from + " to " + to + " before it is sent; headers as signed",
			what:  "a body changed after signing",
			fix:   "verify the signature over the exact bytes received, before any JSON decoding"}, nil
	case CaseMissingSignature:
		o.tamper.unsigned = true
		return rejectionPlan{
			sends: "V2 RECEIVE (cash_in) with webhook-id and webhook-timestamp but no webhook-signature",
			what:  "a delivery without webhook-signature",
			fix:   "refuse every delivery without one"}, nil
	case CaseUnsupportedVersion:
		o.tamper.versions = []string{"v1a", "v2"}
		return rejectionPlan{needsSecret: true,
			sends: "V2 RECEIVE (cash_in) whose webhook-signature is \"v1a,… v2,…\": the right HMAC, under versions a whsec_ secret does not sign with, and no v1",
			what:  "signatures of versions other than v1 only",
			fix:   "with a whsec_ secret only v1 (HMAC-SHA256) counts: match the version exactly, then the bytes"}, nil
	case CaseStaleTimestamp:
		o.signedAt = now.Add(-OutsideTolerance)
		return rejectionPlan{needsSecret: true,
			sends: "V2 RECEIVE (cash_in) correctly signed, with a webhook-timestamp " + tolerance + " in the past (the tolerance is 5 minutes)",
			what:  "a webhook-timestamp " + tolerance + " old",
			fix:   "refuse one more than 5 minutes behind the receiver's clock, or a captured delivery can be replayed at will"}, nil
	case CaseFutureTimestamp:
		o.signedAt = now.Add(OutsideTolerance)
		return rejectionPlan{needsSecret: true,
			sends: "V2 RECEIVE (cash_in) correctly signed, with a webhook-timestamp " + tolerance + " in the future (the tolerance is 5 minutes)",
			what:  "a webhook-timestamp " + tolerance + " ahead",
			fix:   "refuse one more than 5 minutes ahead of the receiver's clock too"}, nil
	}
	return rejectionPlan{}, fmt.Errorf("unknown rejection case %q", name)
}

// inflatedAmount returns body, a RECEIVE of t, with its payment.amount
// multiplied by 100, and the amounts before and after. Only those bytes
// change, so the body stays the same JSON with the same field order.
func inflatedAmount(body []byte, t pix.Transaction) (changed []byte, from, to string, err error) {
	var env struct {
		Data struct {
			Payment struct {
				Amount string `json:"amount"`
			} `json:"payment"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, "", "", err
	}
	from, to = env.Data.Payment.Amount, (t.Amount * 100).Decimal2()
	old := []byte(`"amount":` + strconv.Quote(from))
	if from == "" || strings.Count(string(body), string(old)) != 1 {
		return nil, "", "", fmt.Errorf("the RECEIVE has no single payment.amount to change")
	}
	return []byte(strings.Replace(string(body), string(old), `"amount":`+strconv.Quote(to), 1)), from, to, nil
}

// noEffect is the read-back of a rejection case whose delivery has webhook-id
// id: with a callback, the receiver must not list it as applied. Without
// one, the refusal alone decides (nil).
func noEffect(id string) func(cb *Callback) *ReadBack {
	return func(cb *Callback) *ReadBack {
		if cb == nil {
			return nil
		}
		if rb := readBackUnusable(cb, "whether it had an effect"); rb != nil {
			return rb
		}
		n := appliedCount(cb, id)
		rb := &ReadBack{Applied: []Processed{{WebhookID: id, Count: n}}}
		if n == 0 {
			rb.Result, rb.Detail = Pass, "the callback does not list it: no effect"
		} else {
			rb.Result, rb.Detail = Fail, fmt.Sprintf("the callback reports it applied %d time(s): a delivery that fails verification must have no effect", n)
		}
		return rb
	}
}

// hmacSignature is the base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"
// under a whsec_ secret: the Standard Webhooks v1 signature, without its
// "v1," prefix.
func hmacSignature(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("receivercheck: the secret is not whsec_ and base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, ts.Unix())
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// headerValue returns the first value of the header name in hs, or "".
func headerValue(hs []webhook.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Key, name) {
			return h.Value
		}
	}
	return ""
}
