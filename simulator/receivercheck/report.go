package receivercheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The receiver check: a partner proves its webhook receiver right by having
// the sandbox send it the spec's payloads and the hard cases (a duplicate,
// events out of order, unknown fields, a late delivery, custom headers). It
// has no counterpart in the spec; docs/receiver-check.md describes every case.
// These are its configuration and its report; simulator.CheckReceiver runs it.

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
)

// Cases lists every case in the order a check runs them.
var Cases = []string{
	CaseTransfer, CaseReceive, CaseRefund,
	CaseCashOutConfirmed, CaseCashOutError, CaseCashIn, CaseRefundOut,
	CaseMEDCreated, CaseMEDAccepted, CaseMEDRejected,
	CaseDuplicate, CaseOutOfOrder, CaseUnknownFields, CaseSlow, CaseCustomHeaders,
}

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
	// a fresh one is generated and returned in the report.
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
	OK         bool         `json:"ok"`
	Passed     int          `json:"passed"`
	Failed     int          `json:"failed"`
	NotChecked int          `json:"notChecked"`
	Callback   *Callback    `json:"callback,omitempty"` // nil without a callback URL
	Cases      []CaseReport `json:"cases"`
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
	Sends  string `json:"sends"` // what the case sends
	Result Result `json:"result"`
	// StatusCode is the receiver's status for the delivery that decided the
	// result: the first that failed, else the last (0: no HTTP answer).
	StatusCode int `json:"statusCode"`
	// DurationMs is the longest delivery of the case.
	DurationMs    float64 `json:"durationMs"`
	Answered2xx   bool    `json:"answered2xx"`   // every delivery that had to succeed got a 2xx
	WithinTimeout bool    `json:"withinTimeout"` // every delivery was answered within the timeout
	Reason        string  `json:"reason"`        // why the result, in one line
	// ReadBack judges what the receiver applied, through the callback URL:
	// the duplicate and out-of-order cases only.
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
	// ("repeat": the duplicate case; "retry": the out-of-order case).
	Attempt          string    `json:"attempt"`
	SentAt           time.Time `json:"sentAt"`           // wall time
	WebhookTimestamp int64     `json:"webhookTimestamp"` // the webhook-timestamp header, Unix seconds
	StatusCode       int       `json:"statusCode"`       // 0 when no HTTP answer arrived
	DurationMs       float64   `json:"durationMs"`
	Answered2xx      bool      `json:"answered2xx"`
	WithinTimeout    bool      `json:"withinTimeout"`
	Error            string    `json:"error,omitempty"`
	ResponseExcerpt  string    `json:"responseExcerpt,omitempty"` // the first 1 KiB of the answer
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
		fmt.Fprintf(&b, "callback   none: duplicate and out-of-order effects are not checked\n")
	case c.Error != "":
		fmt.Fprintf(&b, "callback   %s: %s\n", c.URL, c.Error)
	default:
		fmt.Fprintf(&b, "callback   %s: %d, %d webhook ids reported\n", c.URL, c.StatusCode, len(c.Processed))
	}
	b.WriteString("\n")
	for _, c := range r.Cases {
		status := "---"
		if c.StatusCode != 0 {
			status = fmt.Sprint(c.StatusCode)
		}
		fmt.Fprintf(&b, "%-11s  %-17s  %3s  %8s  %s\n", c.Result, c.Name, status, formatMs(c.DurationMs), c.Reason)
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d not checked\n", r.Passed, r.Failed, r.NotChecked)
	return b.String()
}

// formatMs renders milliseconds for the terminal: 3ms, 12ms, 1.25s.
func formatMs(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.0fms", ms)
}
