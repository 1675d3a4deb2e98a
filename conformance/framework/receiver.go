package framework

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// HooksPrefix is the path under which the receiver accepts deliveries:
// /hooks/<token>[/...], one token per spec.
const HooksPrefix = "/hooks/"

// Delivery is one HTTP request received by the webhook receiver.
type Delivery struct {
	// Method is the request method.
	Method string
	// Path is the request path, including the /hooks/<token> prefix.
	Path string
	// Query is the raw query string.
	Query string
	// Header holds the request headers.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// ReceivedAt is the receiver's wall-clock time of arrival (an I/O
	// timestamp, not simulation time).
	ReceivedAt time.Time
	// Status is the HTTP status the receiver answered with.
	Status int
}

// JSON decodes the body as a JSON object, numbers as json.Number; nil when it
// is not one.
func (d Delivery) JSON() map[string]any {
	v, _ := apiclient.DecodeJSON(d.Body)
	m, _ := v.(map[string]any)
	return m
}

// Field returns the value at a dotted path of the JSON body (see Lookup).
func (d Delivery) Field(path string) (any, bool) {
	v, err := apiclient.DecodeJSON(d.Body)
	if err != nil {
		return nil, false
	}
	return apiclient.Lookup(v, path)
}

// String summarises the delivery for failure messages.
func (d Delivery) String() string {
	return fmt.Sprintf("delivery %s %s (answered %d) %s", d.Method, d.Path, d.Status, apiclient.Snippet(d.Body))
}

// inbox is the state of one token: what arrived and what to answer next.
type inbox struct {
	deliveries []Delivery
	script     []int
}

// Receiver is the suite's webhook receiver: an HTTP server that records every
// request under /hooks/<token> per token and answers each with the next status
// of the token's script (200 once the script is exhausted). Requests outside
// /hooks/ get 404 and are not recorded. It is safe for concurrent use.
type Receiver struct {
	ln        net.Listener
	srv       *http.Server
	publicURL string

	mu      sync.Mutex
	inboxes map[string]*inbox
}

// StartReceiver listens on listen (host:port; port 0 picks a free one) and
// serves deliveries until Close. publicURL, when not empty, is the base URL the
// target must use to reach the receiver; URL builds on it.
func StartReceiver(listen, publicURL string) (*Receiver, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: listen %s: %w", listen, err)
	}
	r := &Receiver{
		ln:        ln,
		publicURL: strings.TrimRight(publicURL, "/"),
		inboxes:   map[string]*inbox{},
	}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Addr returns the address the receiver listens on.
func (r *Receiver) Addr() string { return r.ln.Addr().String() }

// BaseURL returns the base URL targets use to reach the receiver: the public
// URL when one was given, otherwise http://<listen address>.
func (r *Receiver) BaseURL() string {
	if r.publicURL != "" {
		return r.publicURL
	}
	return "http://" + r.Addr()
}

// URL returns the delivery URL of token: BaseURL + /hooks/<token>.
func (r *Receiver) URL(token string) string {
	return r.BaseURL() + HooksPrefix + token
}

// Close stops the receiver and drops its open connections.
func (r *Receiver) Close() error {
	err := r.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Script sets the statuses answered to the next deliveries of token, in order
// (for example 500, 500, 200 to exercise retries). Once they are used up the
// receiver answers 200. A new script replaces the remainder of the old one.
func (r *Receiver) Script(token string, statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.box(token).script = append([]int(nil), statuses...)
}

// Deliveries returns a copy of what token has received, in arrival order.
func (r *Receiver) Deliveries(token string) []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.inboxes[token]
	if !ok {
		return nil
	}
	return append([]Delivery(nil), b.deliveries...)
}

// Forget drops token's deliveries and script.
func (r *Receiver) Forget(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.inboxes, token)
}

// NewInbox returns an Inbox under a fresh random token.
func (r *Receiver) NewInbox() *Inbox {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return &Inbox{Receiver: r, Token: hex.EncodeToString(b[:])}
}

// box returns token's inbox, creating it. The caller must hold r.mu.
func (r *Receiver) box(token string) *inbox {
	b, ok := r.inboxes[token]
	if !ok {
		b = &inbox{}
		r.inboxes[token] = b
	}
	return b
}

// ServeHTTP records a delivery and answers it with the token's next scripted
// status.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rest, ok := strings.CutPrefix(req.URL.Path, HooksPrefix)
	token, _, _ := strings.Cut(rest, "/")
	if !ok || token == "" {
		http.NotFound(w, req)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, apiclient.MaxBody))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	b := r.box(token)
	status := http.StatusOK
	if len(b.script) > 0 {
		status = b.script[0]
		b.script = b.script[1:]
	}
	b.deliveries = append(b.deliveries, Delivery{
		Method:     req.Method,
		Path:       req.URL.Path,
		Query:      req.URL.RawQuery,
		Header:     req.Header.Clone(),
		Body:       body,
		ReceivedAt: time.Now(), // wall time: an I/O timestamp of the receiver
		Status:     status,
	})
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"received":true,"status":%d}`, status)
}

// Inbox is one token of a Receiver, usually one per spec, so that specs never
// see each other's deliveries.
type Inbox struct {
	// Receiver is the receiver the inbox belongs to.
	Receiver *Receiver
	// Token is the path segment after /hooks/.
	Token string
}

// URL returns the URL the target must deliver to.
func (i *Inbox) URL() string { return i.Receiver.URL(i.Token) }

// Deliveries returns what the inbox has received, in arrival order.
func (i *Inbox) Deliveries() []Delivery { return i.Receiver.Deliveries(i.Token) }

// Count returns how many deliveries the inbox has received.
func (i *Inbox) Count() int { return len(i.Deliveries()) }

// Last returns the latest delivery, or nil when none has arrived. It suits
// Eventually(inbox.Last).ShouldNot(BeNil()).
func (i *Inbox) Last() *Delivery {
	ds := i.Deliveries()
	if len(ds) == 0 {
		return nil
	}
	return &ds[len(ds)-1]
}

// Respond scripts the statuses answered to the next deliveries (see
// Receiver.Script).
func (i *Inbox) Respond(statuses ...int) { i.Receiver.Script(i.Token, statuses...) }

// Forget drops the inbox's deliveries and script.
func (i *Inbox) Forget() { i.Receiver.Forget(i.Token) }
