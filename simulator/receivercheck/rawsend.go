package receivercheck

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// What sendRaw needs of webhook.Dispatcher.Send for the deliveries the
// dispatcher cannot make (it always signs the body it sends, with v1 only):
// the same headers, client, redirect rule, response limits and
// --webhook-deny-private guard.

// Response reading limits, as the dispatcher's: the excerpt kept, and how
// much more is drained so the connection can be reused.
const (
	maxExcerpt = 1 << 10
	maxDrain   = 64 << 10
)

// rawHeaders returns the headers of a delivery of o made by sendRaw: the
// custom headers, Content-Type, User-Agent, the Standard Webhooks headers and
// X-Pixsandbox-Simulation-Time, as the dispatcher sets them, with
// webhook-signature made as o's tampering says.
func (c *checker) rawHeaders(o outgoing, body []byte) (http.Header, error) {
	h := make(http.Header)
	for _, x := range c.cfg.Headers {
		h.Add(x.Key, x.Value)
	}
	ua := c.dp.UserAgent
	if ua == "" {
		ua = webhook.DefaultUserAgent
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", ua)
	h.Set(headerID, o.webhookID)
	h.Set(headerTimestamp, strconv.FormatInt(o.signedAt.Unix(), 10))
	h.Set(webhook.SimulationTimeHeader, o.signedAt.UTC().Format(pix.TimeLayout))
	signed := body
	if o.tamper.signedBody != nil {
		signed = o.tamper.signedBody
	}
	sig, err := hmacSignature(c.cfg.Secret, o.webhookID, o.signedAt, signed)
	if err != nil {
		return h, err
	}
	versions := o.tamper.versions
	if versions == nil {
		versions = []string{"v1"}
	}
	parts := make([]string, len(versions))
	for i, v := range versions {
		parts[i] = v + "," + sig
	}
	h.Set(headerSignature, strings.Join(parts, " "))
	return h, nil
}

// rawClient is the client of sendRaw, as the dispatcher's: its Client (or
// one with its Timeout), no redirects followed, and the guarded transport
// when it denies private addresses.
func (c *checker) rawClient() *http.Client {
	var hc http.Client
	if c.dp.Client != nil {
		hc = *c.dp.Client
	} else {
		hc.Timeout = c.dp.Timeout
	}
	if c.dp.DenyPrivate {
		hc.Transport = guardedTransport()
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// dialRefusedError is the error of a dial the guard refused; its text is the
// dispatcher's for the same refusal.
type dialRefusedError struct{ addr, reason string }

func (e *dialRefusedError) Error() string {
	return "dial refused: " + e.addr + " " + e.reason + " (--webhook-deny-private)"
}

// denyPrivateControl refuses, after DNS resolution, every address
// webhook.PrivateAddress reports, as the dispatcher's guard does.
func denyPrivateControl(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &dialRefusedError{addr: address, reason: "is not an IP address and port"}
	}
	if webhook.PrivateAddress(ap.Addr()) {
		return &dialRefusedError{addr: ap.Addr().String(), reason: "is a private, loopback, link-local or metadata address"}
	}
	return nil
}

// guardedTransport is the transport of sendRaw under DenyPrivate: the
// settings of http.DefaultTransport, the guarded dialer, and no proxy (a
// proxy would be the only address dialed, and the receiver's never checked).
var guardedTransport = sync.OnceValue(func() *http.Transport {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, ControlContext: denyPrivateControl}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 1 * time.Second,
	}
})

// sortedHeaders lists h by name, each name's values in the order set.
func sortedHeaders(h http.Header) []webhook.Header {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []webhook.Header
	for _, k := range keys {
		for _, v := range h[k] {
			out = append(out, webhook.Header{Key: k, Value: v})
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
				b = b[:i]
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
