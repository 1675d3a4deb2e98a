package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

// WebhooksPath is where the proxy takes the upstream's webhook deliveries
// when Options.WebhooksTo is set: POST /_proxy/webhooks/some/path is
// forwarded to WebhooksTo + /some/path.
const WebhooksPath = "/_proxy/webhooks"

// webhooks is the proxy's webhook side: the receiver of the upstream's
// deliveries, forwarding each unchanged to the integrator's receiver.
type webhooks struct {
	to     *url.URL
	secret string
	rp     *httputil.ReverseProxy

	deliveries, unanswered, findings, notices atomic.Int64
}

// CheckWebhooksTo reports whether s can be the integrator's webhook
// receiver: an http:// or https:// URL with a host and no fragment (a path
// and a query are kept; a delivery's sub-path and query are added to them).
func CheckWebhooksTo(s string) error {
	_, err := parseWebhooksTo(s)
	return err
}

func parseWebhooksTo(s string) (*url.URL, error) {
	u, err := parseHTTPURL("--webhooks-to", s)
	if err == nil && u.Fragment != "" {
		return nil, fmt.Errorf("--webhooks-to %q: want no fragment", s)
	}
	return u, err
}

// initWebhooks sets up the webhook side from o; without o.WebhooksTo there
// is none (and no secret or listener may be asked for).
func (p *Proxy) initWebhooks(o Options) error {
	if o.WebhooksTo == "" {
		switch {
		case o.WebhookSecret != "":
			return errors.New("--webhook-secret needs --webhooks-to: the proxy judges signatures of deliveries it receives")
		case o.WebhooksAddr != "":
			return errors.New("--webhooks-addr needs --webhooks-to: the receiver the deliveries go on to")
		}
		return nil
	}
	to, err := parseWebhooksTo(o.WebhooksTo)
	if err != nil {
		return err
	}
	if o.WebhookSecret != "" {
		if err := contract.CheckHookSecret(o.WebhookSecret); err != nil {
			return fmt.Errorf("--webhook-secret: %w", err)
		}
	}
	t := o.WebhookTransport
	if t == nil {
		dt := http.DefaultTransport.(*http.Transport).Clone()
		dt.DisableCompression = true
		t = dt
	}
	h := &webhooks{to: to, secret: o.WebhookSecret}
	h.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(to)
			for _, name := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if v, ok := pr.In.Header[name]; ok {
					pr.Out.Header[name] = v
				}
			}
		},
		Transport:      t,
		FlushInterval:  0, // as the API's answers (Proxy.rp)
		ModifyResponse: answered,
		BufferPool:     &copyBuffers,
		ErrorHandler:   p.receiverError,
		ErrorLog:       log.New(io.Discard, "", 0), // failures become findings
	}
	p.hooks = h
	return nil
}

// webhookProxy returns the reverse proxy of the webhook side, or nil.
func (p *Proxy) webhookProxy() *httputil.ReverseProxy {
	if p.hooks == nil {
		return nil
	}
	return p.hooks.rp
}

// deliverySubPath returns the part of a path under WebhooksPath (decoded and
// as escaped), and whether the path is under it.
func deliverySubPath(u *url.URL) (path, raw string, ok bool) {
	rest, ok := strings.CutPrefix(u.Path, WebhooksPath)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", "", false
	}
	raw, escaped := strings.CutPrefix(u.EscapedPath(), WebhooksPath)
	if !escaped {
		raw = ""
	}
	return rest, raw, true
}

// WebhookHandler serves the separate webhook listener (Options.WebhooksAddr):
// every request is a delivery; its path, less a leading WebhooksPath, is
// added to WebhooksTo. It is nil without WebhooksTo.
func (p *Proxy) WebhookHandler() http.Handler {
	if p.hooks == nil {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, raw, ok := deliverySubPath(r.URL)
		if !ok {
			path, raw = r.URL.Path, r.URL.RawPath
		}
		p.serveDelivery(w, r, path, raw)
	})
}

// serveDelivery forwards a delivery to the integrator's receiver with the
// sub-path path (raw: its escaped form, when it has one) and judges it once
// the receiver's answer has gone back to the upstream.
func (p *Proxy) serveDelivery(w http.ResponseWriter, r *http.Request, path, raw string) {
	if p.hooks == nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{"statusCode": http.StatusNotFound, "error": http.StatusText(http.StatusNotFound),
			"message": "the proxy takes webhook deliveries at " + WebhooksPath + " only with --webhooks-to"})
		return
	}
	p.pending.add()
	ex := &exchange{Exchange: contract.Exchange{
		Seq: p.seq.Add(1), Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		ReqHeader: r.Header.Clone(), RequestID: r.Header.Get("webhook-id"), Start: time.Now(), // wall clock: orders the model, judges webhook-timestamp
	}, delivery: true}
	defer p.judgeLater(ex)
	p.captureRequest(r, ex)
	out := r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
	u := *r.URL
	u.Path, u.RawPath = path, ""
	if raw != "" && raw != path {
		u.RawPath = raw
	}
	out.URL = &u
	p.hooks.rp.ServeHTTP(w, out)
}

// answered records the receiver's status and headers; its body goes back to
// the upstream untouched and unjudged (the contract says nothing of it).
func answered(resp *http.Response) error {
	if ex := exchangeOf(resp.Request); ex != nil {
		ex.Status, ex.RespHeader = resp.StatusCode, resp.Header.Clone()
	}
	return nil
}

// receiverError answers the upstream 502 in the minimal error shape when the
// integrator's receiver did not answer.
func (p *Proxy) receiverError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r)
	if r.Context().Err() != nil {
		return // the upstream went away: nobody to answer
	}
	msg := "webhook receiver " + p.hooks.to.String() + " unreachable: " + err.Error()
	switch {
	case ex != nil && ex.bodyFailed:
		msg = "the delivery's body broke off before the webhook receiver " + p.hooks.to.String() + " answered: " + err.Error()
	case ex != nil:
		ex.upstreamErr = err
	}
	body, _ := json.Marshal(map[string]any{"statusCode": http.StatusBadGateway, "message": msg, "error": http.StatusText(http.StatusBadGateway)})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(body)
}

// finishDelivery counts a delivery and has it judged. A delivery whose body
// broke off is counted, not judged.
func (p *Proxy) finishDelivery(ex *exchange) {
	defer p.budget.Add(ex.reserved)
	p.stats.exchanges.Add(1)
	p.stats.contract.Add(1)
	p.hooks.deliveries.Add(1)
	if ex.upstreamErr != nil {
		p.stats.unreachable.Add(1)
		p.hooks.unanswered.Add(1)
	}
	if ex.bodyFailed {
		p.pending.done()
		return
	}
	it := judging.Item{Ex: &ex.Exchange, Delivery: true}
	if ex.upstreamErr != nil {
		it.Failed = ex.upstreamErr.Error()
	}
	p.hand(it)
}

// countHook counts a webhook finding for the webhook summary.
func (p *Proxy) countHook(f contract.Finding) {
	switch {
	case p.hooks == nil || f.Kind != contract.KindWebhook:
	case f.Notice:
		p.hooks.notices.Add(1)
	default:
		p.hooks.findings.Add(1)
	}
}

// WebhookSummary is what the webhook side saw: the deliveries forwarded to
// To (Unanswered: the receiver did not answer), the findings of kind webhook
// (notices apart) and the size of its model's windows.
type WebhookSummary struct {
	To         string         `json:"to"`
	Signed     bool           `json:"signatureChecked"`
	Deliveries int64          `json:"deliveries"`
	Unanswered int64          `json:"unanswered"`
	Findings   int64          `json:"findings"`
	Notices    int64          `json:"notices"`
	Model      map[string]int `json:"model"`
}

// Webhooks returns the webhook side's summary, or false without WebhooksTo.
func (p *Proxy) Webhooks() (WebhookSummary, bool) {
	if p.hooks == nil {
		return WebhookSummary{}, false
	}
	h := p.hooks
	return WebhookSummary{To: h.to.String(), Signed: h.secret != "", Deliveries: h.deliveries.Load(), Unanswered: h.unanswered.Load(),
		Findings: h.findings.Load(), Notices: h.notices.Load(), Model: p.sizes().Hooks}, true
}

// WriteWebhookSummary writes the webhook side's summary in one line (nothing
// without WebhooksTo).
func (p *Proxy) WriteWebhookSummary(w io.Writer) {
	s, ok := p.Webhooks()
	if !ok {
		return
	}
	signed := "signatures not checked"
	if s.Signed {
		signed = "signatures checked"
	}
	fmt.Fprintf(w, "webhooks: %d deliveries to %s (%d unanswered, %s); %d webhook findings, %d webhook notices\n",
		s.Deliveries, s.To, s.Unanswered, signed, s.Findings, s.Notices)
}
