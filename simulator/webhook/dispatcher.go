package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Defaults of a Dispatcher's zero fields.
const (
	DefaultTimeout   = 10 * time.Second // wall time
	DefaultUserAgent = "pixsandbox-webhooks/1"
)

// Response reading limits: the excerpt kept in Attempt.ResponseExcerpt, and
// how much more is drained so the connection can be reused.
const (
	maxExcerpt = 1 << 10
	maxDrain   = 64 << 10
)

// Dispatcher performs single delivery attempts. Its zero value is ready to
// use; it is safe for concurrent use as long as its fields are not changed.
type Dispatcher struct {
	// Client sends the requests. nil means a client with Timeout; either way
	// redirects are never followed. With DenyPrivate, its Transport is not
	// used (see DenyPrivate).
	Client *http.Client
	// Timeout bounds one attempt, from sending to reading the response, in
	// wall time. 0 means DefaultTimeout.
	Timeout time.Duration
	// UserAgent is sent as User-Agent. "" means DefaultUserAgent.
	UserAgent string
	// DenyPrivate guards against server-side request forgery through
	// user-supplied URLs (the --webhook-deny-private setting). Every
	// connection the dispatcher makes then goes through a net.Dialer whose
	// Control refuses any address PrivateAddress reports: loopback, RFC 1918,
	// link-local and cloud metadata, carrier-grade NAT, unique local,
	// multicast, unspecified and reserved addresses, in IPv4, IPv6 and
	// IPv4-mapped form. Control sees the IP and port after DNS resolution, so
	// a hostname resolving to such an address is refused too, including one
	// that resolved elsewhere when its URL was validated (DNS rebinding). A
	// refused attempt has StatusCode 0 and Error "dial refused: <ip> is a
	// private, loopback, link-local or metadata address
	// (--webhook-deny-private)".
	//
	// With DenyPrivate, requests go through a guarded transport of this
	// package, shared by every such dispatcher, that uses no proxy: a proxy
	// from the environment (HTTP_PROXY, HTTPS_PROXY) would be the only address
	// dialed, and the receiver's would never be checked. A supplied Client's
	// Transport is therefore ignored, with its dialer, proxy and TLS settings;
	// the Client's Timeout and Jar still apply, and redirects are still not
	// followed.
	DenyPrivate bool
	// Wall is the wall clock that dates each attempt's webhook-timestamp.
	// nil means time.Now. See Send.
	Wall func() time.Time
}

// attemptEventID is the webhook-id of attempt number of the event eventID:
// the event's id on every attempt (Standard Webhooks: a retry keeps its id, so
// a receiver can drop duplicates). A build with the faults tag replaces it
// (faults.go).
var attemptEventID = func(eventID string, number int) string { return eventID }

// SimulationTimeHeader carries the simulation time of an attempt (ISO 8601,
// UTC, milliseconds): webhook-timestamp holds the wall-clock time instead,
// since a receiver checks it against its own clock.
const SimulationTimeHeader = "X-Pixsandbox-Simulation-Time"

// WallNow is the wall-clock time of an attempt: what webhook-timestamp
// carries and the signature covers, and what ends a secret rotation's
// overlap (Gap G-67).
func (dp *Dispatcher) WallNow() time.Time {
	if dp.Wall != nil {
		return dp.Wall()
	}
	return time.Now() // wall time: the signed timestamp a receiver checks against its own clock
}

// Send makes one attempt of d: it POSTs body to d.URL with d's custom
// headers, Content-Type application/json, User-Agent, the Standard Webhooks
// headers webhook-id (eventID, or d.EventID when eventID is empty),
// webhook-timestamp (the Unix seconds of the wall clock, dp.Wall, in every
// clock mode: Standard Webhooks receivers refuse a timestamp more than five
// minutes away from their own clock) and, when d.Secret is set,
// webhook-signature over the exact body bytes with that timestamp (one v1
// signature, or two during a rotation's overlap: d.Secret's, then
// d.PreviousSecret's, space-separated), and X-Pixsandbox-Simulation-Time
// (now, the simulation time of the attempt).
// Those headers always win over custom headers of the same name.
//
// It never follows redirects, keeps at most 1 KiB of the response body (then
// drains up to 64 KiB more and closes it), and returns the Attempt with ID
// attemptID, Number number and SentAt now. It never panics and returns no
// error: a failure shows in Attempt.StatusCode and Attempt.Error.
func (dp *Dispatcher) Send(ctx context.Context, d Delivery, eventID string, body []byte, attemptID int64, number int, now time.Time) (a Attempt) {
	if eventID == "" {
		eventID = d.EventID
	}
	eventID = attemptEventID(eventID, number)
	a = Attempt{ID: attemptID, Number: number, SentAt: now, URL: d.URL, RequestBody: string(body)}
	defer func() {
		if r := recover(); r != nil {
			a.StatusCode = 0
			a.Error = fmt.Sprintf("webhook: attempt aborted: %v", r)
		}
	}()

	h := make(http.Header)
	for _, c := range d.Headers {
		h.Add(c.Key, c.Value)
	}
	ua := dp.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", ua)
	h.Set(standardwebhooks.HeaderWebhookID, eventID)
	signedAt := dp.WallNow()
	h.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(signedAt.Unix(), 10))
	h.Set(SimulationTimeHeader, now.UTC().Format(pix.TimeLayout))
	h.Del(standardwebhooks.HeaderWebhookSignature)
	if secrets := d.signingSecrets(signedAt); len(secrets) > 0 {
		sig, err := signAll(secrets, eventID, signedAt, body)
		if err != nil {
			a.RequestHeaders = sortedHeaders(h)
			a.Error = err.Error()
			return a
		}
		h.Set(standardwebhooks.HeaderWebhookSignature, sig)
	}
	a.RequestHeaders = sortedHeaders(h)
	if eventID == "" {
		a.Error = "webhook: no event id to send as webhook-id"
		return a
	}
	return dp.post(ctx, a, h, body)
}

// Post makes one delivery the dispatcher does not build itself (the
// receiver checker's tampered ones): body POSTed to url with the headers h
// as given, through the dispatcher's client, timeout, redirect rule,
// --webhook-deny-private guard and response limits, as Send posts. It
// returns the Attempt with URL, RequestBody and RequestHeaders set and the
// outcome recorded; it returns no error.
func (dp *Dispatcher) Post(ctx context.Context, url string, h http.Header, body []byte) Attempt {
	a := Attempt{URL: url, RequestBody: string(body), RequestHeaders: sortedHeaders(h)}
	return dp.post(ctx, a, h, body)
}

// post sends body to a.URL with the headers h and records the outcome in a.
func (dp *Dispatcher) post(ctx context.Context, a Attempt, h http.Header, body []byte) Attempt {
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := dp.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The attempt's Duration is timed from before its timeout starts, so an
	// attempt cut by the timeout reports at least Timeout.
	start := time.Now()                              // wall time: the attempt's measured Duration
	ctx, cancel := context.WithTimeout(ctx, timeout) // wall time: the HTTP timeout
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = err.Error()
		return a
	}
	req.Header = h

	resp, err := dp.client(timeout).Do(req)
	if err != nil {
		a.Duration = time.Since(start) // wall time
		a.Error = err.Error()
		if refused, ok := errors.AsType[*dialRefusedError](err); ok {
			a.Error = refused.Error() // the refusal alone, without the URL and dial wrapping
		}
		return a
	}
	a.StatusCode = resp.StatusCode
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxExcerpt))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	a.Duration = time.Since(start) // wall time
	a.ResponseExcerpt = excerpt(head)
	return a
}

// client returns the client to send with: dp.Client, or a new one with
// timeout, in both cases refusing to follow redirects, and with the guarded
// transport instead of its own when dp.DenyPrivate.
func (dp *Dispatcher) client(timeout time.Duration) *http.Client {
	var c http.Client
	if dp.Client != nil {
		c = *dp.Client // a shallow copy shares the Transport and its connections
	} else {
		c.Timeout = timeout
	}
	if dp.DenyPrivate {
		c.Transport = guardedTransport()
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// signAll returns the webhook-signature value for one message signed with
// each of secrets, in order, space-separated (Standard Webhooks: a receiver
// accepts the header when any of its v1 signatures verifies).
func signAll(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		sig, err := sign(secret, id, ts, body)
		if err != nil {
			return "", err
		}
		sigs[i] = sig
	}
	return strings.Join(sigs, " "), nil
}

// sign returns the v1 signature of one message with one secret, using the
// Standard Webhooks library (HMAC-SHA256 over "{id}.{timestamp}.{body}").
func sign(secret, id string, ts time.Time, body []byte) (string, error) {
	if !ValidSecret(secret) {
		return "", errors.New("webhook: target secret is not a valid whsec_ secret; delivery not signed nor sent")
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return "", fmt.Errorf("webhook: %w", err)
	}
	return wh.Sign(id, ts, body)
}

// sortedHeaders lists h by name, each name's values in the order set.
func sortedHeaders(h http.Header) []Header {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []Header
	for _, k := range keys {
		for _, v := range h[k] {
			out = append(out, Header{Key: k, Value: v})
		}
	}
	return out
}

// excerpt returns b as valid UTF-8 of at most maxExcerpt bytes: a rune cut at
// the end is dropped, and invalid bytes elsewhere become U+FFFD.
func excerpt(b []byte) string {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i] // the last rune was cut by the size limit
			}
			break
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	for len(s) > maxExcerpt {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// Fetch GETs url as a delivery would reach it (dp's client: no redirects
// followed, the DenyPrivate guard), asking for JSON, and returns the status
// and at most limit bytes of the body (more is an error). The receiver
// checker uses it to read back what a partner's receiver processed.
func (dp *Dispatcher) Fetch(ctx context.Context, url string, timeout time.Duration, limit int64) (status int, body []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout) // wall time: the HTTP timeout
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	ua := dp.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", ua)
	resp, err := dp.client(timeout).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err == nil && int64(len(body)) > limit {
		err = fmt.Errorf("the answer exceeds %d bytes", limit)
	}
	return resp.StatusCode, body, err
}
