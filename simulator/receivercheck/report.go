package receivercheck

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The receiver check's configuration and its report. The check has no
// counterpart in the spec; docs/receiver-check.md describes every case.

// Receiver check bounds and defaults.
const (
	// DefaultTimeout is how long a receiver has to answer a delivery.
	DefaultTimeout = 5 * time.Second
	// MaxTimeout is the longest timeout accepted: the simulator's own
	// webhook deliveries give up after 10 s.
	MaxTimeout = 10 * time.Second
	// DefaultSlow is the delay of the slow case: longer than the
	// default timeout, so a receiver that trusts only very fresh timestamps is
	// caught.
	DefaultSlow = 6 * time.Second
	// MaxSlow bounds the slow case's delay, well inside the 5 minutes
	// of timestamp tolerance Standard Webhooks receivers apply.
	MaxSlow = time.Minute
	// MaxURLLength bounds the receiver and callback URLs, in bytes.
	MaxURLLength = 2048
)

// Receiver check cases, by the name the configuration and the report use.
const (
	CaseTransfer         = "transfer"          // V2 TRANSFER (cash_out)
	CaseReceive          = "receive"           // V2 RECEIVE (cash_in)
	CaseRefund           = "refund"            // V2 REFUND of a received PIX, creditDebitType DEBIT (refund_in)
	CaseCashOutConfirmed = "cashout_confirmed" // CashOut CONFIRMED (cash_out)
	CaseCashOutError     = "cashout_error"     // CashOut ERROR with an errorCode of the spec's table (cash_out)
	CaseCashIn           = "cash_in"           // CashIn of a paid charge (cash_in)
	CaseRefundOut        = "refund_out"        // V2 REFUND received, creditDebitType CREDIT (refund_out)
	CaseMEDCreated       = "med_created"       // MED opened
	CaseMEDAccepted      = "med_accepted"      // MED analysed APPROVED
	CaseMEDRejected      = "med_rejected"      // MED analysed REJECTED
	CaseDuplicate        = "duplicate"         // one event delivered twice, same webhook-id
	CaseOutOfOrder       = "out_of_order"      // a REFUND before the RECEIVE of the PIX it refunds
	CaseUnknownFields    = "unknown_fields"    // a CashOut with fields the spec does not list
	CaseSlow             = "slow"              // a delivery sent Slow after it was signed
	CaseCustomHeaders    = "custom_headers"    // the configured headers, and nothing else to prove
	CaseRotation         = "rotation"          // a RECEIVE signed with another secret and the receiver's, as during a secret rotation

	CaseForgedSignature    = "forged_signature"    // a RECEIVE signed with another secret
	CaseTamperedBody       = "tampered_body"       // a RECEIVE whose amount changed after it was signed
	CaseMissingSignature   = "missing_signature"   // a RECEIVE without webhook-signature
	CaseUnsupportedVersion = "unsupported_version" // a RECEIVE whose webhook-signature holds only v1a and v2 signatures
	CaseStaleTimestamp     = "stale_timestamp"     // a RECEIVE signed OutsideTolerance in the past
	CaseFutureTimestamp    = "future_timestamp"    // a RECEIVE signed OutsideTolerance in the future
	CaseReplay             = "replay"              // a RECEIVE again, same webhook-id, a fresh timestamp and signature
)

// Case groups. The acceptance group sends deliveries a correct receiver
// takes (2xx) and applies once; the rejection group sends deliveries a
// correct receiver refuses (4xx) without effect, and a replay it must not
// apply twice.
const (
	GroupAcceptance = "acceptance"
	GroupRejection  = "rejection"
)

// AcceptanceCases lists the acceptance group in the order a check runs it.
var AcceptanceCases = []string{
	CaseTransfer, CaseReceive, CaseRefund,
	CaseCashOutConfirmed, CaseCashOutError, CaseCashIn, CaseRefundOut,
	CaseMEDCreated, CaseMEDAccepted, CaseMEDRejected,
	CaseDuplicate, CaseOutOfOrder, CaseUnknownFields, CaseSlow, CaseCustomHeaders, CaseRotation,
}

// RejectionCases lists the rejection group in the order a check runs it,
// after the acceptance group.
var RejectionCases = []string{
	CaseForgedSignature, CaseTamperedBody, CaseMissingSignature, CaseUnsupportedVersion,
	CaseStaleTimestamp, CaseFutureTimestamp, CaseReplay,
}

// Cases lists every case in the order a check runs them: AcceptanceCases,
// then RejectionCases.
var Cases = append(slices.Clone(AcceptanceCases), RejectionCases...)

// GroupOf returns the group of a case: GroupRejection for the cases of
// RejectionCases, GroupAcceptance for any other name.
func GroupOf(name string) string {
	if slices.Contains(RejectionCases, name) {
		return GroupRejection
	}
	return GroupAcceptance
}

// OutsideTolerance is how far from the wall clock the stale_timestamp and
// future_timestamp cases date their webhook-timestamp: twice the 5-minute
// tolerance of the Standard Webhooks libraries, so that a few minutes of
// clock skew between the check and the receiver cannot decide the case.
const OutsideTolerance = 10 * time.Minute

// Header is a custom header sent with every delivery of a check.
type Header struct {
	Key   string
	Value string
}

// Config configures a receiver check. Zero fields take their
// defaults.
type Config struct {
	// URL is the partner's webhook receiver (http or https). Required.
	URL string
	// CallbackURL, when set, is read with GET after the run: the receiver
	// tells what it applied, in the CallbackBody format.
	CallbackURL string
	// Secret signs every delivery (Standard Webhooks "whsec_…"); empty means
	// a fresh one is generated and returned in the report. The rejection
	// cases that need the receiver to hold the signing secret (every one but
	// missing_signature) run only when it is given.
	Secret string
	// Headers are sent with every delivery (at most 5, as a webhook target).
	Headers []Header
	// Timeout is how long the receiver has to answer each delivery; 0 means
	// DefaultTimeout, at most MaxTimeout.
	Timeout time.Duration
	// Slow is how long the slow case waits between signing its delivery and
	// sending it; 0 means DefaultSlow, at most MaxSlow.
	Slow time.Duration
	// Cases selects the cases to run, by name; empty means every case.
	Cases []string
	// DenyPrivate refuses receivers and callbacks at private, loopback,
	// link-local and metadata addresses, on the dialed IP (the simulator's
	// --webhook-deny-private). The control plane sets it from the server's
	// setting, never from the request.
	DenyPrivate bool
}

// Result is the outcome of a case or of a read-back.
type Result string

// Receiver check outcomes. NOT CHECKED is never a failure: the check had
// nothing to judge by (no callback URL, no custom headers configured).
const (
	Pass       Result = "PASS"
	Fail       Result = "FAIL"
	NotChecked Result = "NOT CHECKED"
)

// CallbackBody is what a receiver's callback URL answers to GET:
// every webhook-id it applied, with how many times it applied it. An id that
// is absent was applied 0 times. Count is what took effect, not what arrived:
// a receiver that deduplicates lists a repeated delivery once, with count 1.
//
//	{"processed": [{"webhookId": "evt_…", "count": 1}]}
type CallbackBody struct {
	Processed []Processed `json:"processed"`
}

// Processed is how many times a receiver applied one webhook-id.
type Processed struct {
	WebhookID string `json:"webhookId"`
	Count     int    `json:"count"`
}

// Report is the result of a receiver check, as the CLI prints it
// in JSON and POST /_sandbox/check-receiver answers it.
type Report struct {
	URL         string `json:"url"`
	CallbackURL string `json:"callbackUrl,omitempty"`
	// Secret is the signing secret of every delivery; verify webhook-signature
	// with it. SecretGenerated says the check made it up.
	Secret          string    `json:"secret"`
	SecretGenerated bool      `json:"secretGenerated"`
	HeadersSent     []string  `json:"headersSent"` // names of the custom headers sent with every delivery
	TimeoutMs       int64     `json:"timeoutMs"`
	SlowMs          int64     `json:"slowMs"`
	StartedAt       time.Time `json:"startedAt"`  // wall time
	FinishedAt      time.Time `json:"finishedAt"` // wall time
	// OK is true when no case failed (NOT CHECKED is not a failure).
	OK         bool `json:"ok"`
	Passed     int  `json:"passed"`
	Failed     int  `json:"failed"`
	NotChecked int  `json:"notChecked"`
	// Acceptance and Rejection count the cases of each group; Passed,
	// Failed and NotChecked are their sums.
	Acceptance GroupScore   `json:"acceptance"`
	Rejection  GroupScore   `json:"rejection"`
	Callback   *Callback    `json:"callback,omitempty"` // nil without a callback URL
	Cases      []CaseReport `json:"cases"`
}

// GroupScore counts the outcomes of the cases of one group that ran.
type GroupScore struct {
	Cases      int `json:"cases"`
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	NotChecked int `json:"notChecked"`
}

// add counts one outcome.
func (g *GroupScore) add(r Result) {
	g.Cases++
	switch r {
	case Pass:
		g.Passed++
	case Fail:
		g.Failed++
	default:
		g.NotChecked++
	}
}

// String renders the score for the terminal: "15 passed, 0 failed, 0 not
// checked", or "not run" when the group had no case.
func (g GroupScore) String() string {
	if g.Cases == 0 {
		return "not run"
	}
	return fmt.Sprintf("%d passed, %d failed, %d not checked", g.Passed, g.Failed, g.NotChecked)
}

// Callback is the read-back of the callback URL.
type Callback struct {
	URL        string      `json:"url"`
	StatusCode int         `json:"statusCode"` // 0 when no HTTP answer arrived
	DurationMs float64     `json:"durationMs"`
	Error      string      `json:"error,omitempty"` // why the read-back could not be used
	Processed  []Processed `json:"processed"`       // as the receiver reported it
}

// CaseReport is the outcome of one case.
type CaseReport struct {
	Name   string `json:"name"`
	Group  string `json:"group"` // GroupAcceptance or GroupRejection
	Sends  string `json:"sends"` // what the case sends
	Result Result `json:"result"`
	// StatusCode is the receiver's status for the delivery that decided the
	// result: the first that failed, else the last (0: no HTTP answer).
	StatusCode int `json:"statusCode"`
	// DurationMs is the longest delivery of the case.
	DurationMs float64 `json:"durationMs"`
	// Answered2xx is, for an acceptance case, whether every delivery that had
	// to succeed got a 2xx; for a rejection case, whether the delivery the case
	// is about (its last) got a 2xx: the receiver took it.
	Answered2xx   bool   `json:"answered2xx"`
	WithinTimeout bool   `json:"withinTimeout"` // every delivery was answered within the timeout
	Reason        string `json:"reason"`        // why the result, in one line
	// ReadBack judges what the receiver applied, through the callback URL:
	// the duplicate, out-of-order and replay cases, and with a callback URL
	// every rejection case (its delivery must have had no effect).
	ReadBack   *ReadBack  `json:"readBack,omitempty"`
	Deliveries []Delivery `json:"deliveries"`
}

// ReadBack is a case's judgement through the callback URL.
type ReadBack struct {
	Result  Result      `json:"result"`
	Applied []Processed `json:"applied,omitempty"` // the counts of this case's webhook ids (0 when absent)
	Detail  string      `json:"detail"`
}

// Delivery is one HTTP request a case sent.
type Delivery struct {
	WebhookID string `json:"webhookId"`
	EventType string `json:"eventType"` // the registration event type it belongs to (cash_out, …)
	Payload   string `json:"payload"`   // TRANSFER, RECEIVE, REFUND, CashOut, CashIn, MED
	// Attempt tells a first delivery from a repeat of the same webhook-id
	// ("repeat": the duplicate case; "retry": the out-of-order case;
	// "replay": the replay case).
	Attempt string `json:"attempt"`
	// Expected is the answer the delivery needs within the timeout: "2xx",
	// "4xx" (a refusal), "2xx or 4xx" (the replay) or "any" (the early REFUND
	// of the out-of-order case).
	Expected         string    `json:"expected"`
	SentAt           time.Time `json:"sentAt"`           // wall time
	WebhookTimestamp int64     `json:"webhookTimestamp"` // the webhook-timestamp header, Unix seconds
	// WebhookSignature is the webhook-signature header sent; absent when none was.
	WebhookSignature string  `json:"webhookSignature,omitempty"`
	StatusCode       int     `json:"statusCode"` // 0 when no HTTP answer arrived
	DurationMs       float64 `json:"durationMs"`
	Answered2xx      bool    `json:"answered2xx"`
	WithinTimeout    bool    `json:"withinTimeout"`
	Error            string  `json:"error,omitempty"`
	ResponseExcerpt  string  `json:"responseExcerpt,omitempty"` // the first 1 KiB of the answer
	// CustomHeaders names the configured headers that went out with it.
	CustomHeaders []string        `json:"customHeaders,omitempty"`
	Body          json.RawMessage `json:"body"` // the exact body sent
}

// Text renders r as a terminal report: a header, one line per case (result,
// name, status, duration, why) and a summary line.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "receiver   %s\n", r.URL)
	secret := r.Secret
	if r.SecretGenerated {
		secret += " (generated)"
	}
	fmt.Fprintf(&b, "secret     %s: verify webhook-signature with it (Standard Webhooks)\n", secret)
	if len(r.HeadersSent) > 0 {
		fmt.Fprintf(&b, "headers    %s sent with every delivery\n", strings.Join(r.HeadersSent, ", "))
	} else {
		fmt.Fprintf(&b, "headers    none configured\n")
	}
	fmt.Fprintf(&b, "timeout    %s per delivery; slow case delay %s\n", time.Duration(r.TimeoutMs)*time.Millisecond, time.Duration(r.SlowMs)*time.Millisecond)
	switch c := r.Callback; {
	case c == nil:
		fmt.Fprintf(&b, "callback   none: duplicate, out-of-order and replay effects are not checked\n")
	case c.Error != "":
		fmt.Fprintf(&b, "callback   %s: %s\n", c.URL, c.Error)
	default:
		fmt.Fprintf(&b, "callback   %s: %d, %d webhook ids reported\n", c.URL, c.StatusCode, len(c.Processed))
	}
	group := ""
	for _, c := range r.Cases {
		if c.Group != group {
			group = c.Group
			fmt.Fprintf(&b, "\n%s\n", groupTitles[group])
		}
		status := "---"
		if c.StatusCode != 0 {
			status = fmt.Sprint(c.StatusCode)
		}
		fmt.Fprintf(&b, "%-11s  %-19s  %3s  %8s  %s\n", c.Result, c.Name, status, formatMs(c.DurationMs), c.Reason)
	}
	fmt.Fprintf(&b, "\n%-10s  %s\n", GroupAcceptance, r.Acceptance)
	fmt.Fprintf(&b, "%-10s  %s\n", GroupRejection, r.Rejection)
	fmt.Fprintf(&b, "%d passed, %d failed, %d not checked\n", r.Passed, r.Failed, r.NotChecked)
	return b.String()
}

// groupTitles head each group's lines in the terminal report.
var groupTitles = map[string]string{
	GroupAcceptance: "acceptance: deliveries a correct receiver takes (2xx) and applies once",
	GroupRejection:  "rejection: deliveries a correct receiver refuses (4xx) without effect, and a replay it applies once",
}

// formatMs renders milliseconds for the terminal: 3ms, 12ms, 1.25s.
func formatMs(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.0fms", ms)
}
