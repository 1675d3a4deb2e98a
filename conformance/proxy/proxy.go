package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/contract/state"
	"github.com/pixsandbox/pixsandbox/conformance/proxy/judging"
)

const (
	// BodyLimit is the largest body the proxy judges; a longer one streams
	// through unjudged, with a notice.
	BodyLimit = 1 << 20
	// DefaultCaptureBudget bounds the bytes of bodies held for judging at
	// once, over all exchanges in flight.
	DefaultCaptureBudget = 64 << 20
	// FindingsPath is served by the proxy itself, never forwarded.
	FindingsPath = "/_proxy/findings"
)

// A frame to the judging process carries both bodies and the headers: it
// must hold two of BodyLimit with room to spare (this does not compile if
// judging.MaxFrame falls under four).
const _ = uint(judging.MaxFrame - 4*BodyLimit)

// Options configure a Proxy.
type Options struct {
	// Upstream is the base URL every request is forwarded to.
	Upstream string
	// Transport carries the forwarded requests; nil means a clone of
	// http.DefaultTransport without transparent compression, with the
	// client certificate and authorities below.
	Transport http.RoundTripper
	// ClientCert and ClientKey are PEM files of a client certificate
	// presented to the upstream (mutual TLS); CA is a PEM bundle trusted for
	// the upstream's certificate besides the system's.
	ClientCert, ClientKey, CA string
	// Log receives one line per finding as it happens (nil: none).
	Log io.Writer
	// MaxFindings is how many findings are kept in full (DefaultMaxFindings).
	MaxFindings int
	// Bounds bound the state model (state.DefaultBounds).
	Bounds state.Bounds
	// CaptureBudget bounds the body bytes held at once (DefaultCaptureBudget).
	CaptureBudget int64
	// QuietAccounts turns on the rules that need a quiet account (the
	// balance rule, state.Model.QuietAccounts): nothing but the traffic
	// through the proxy takes money from an account or blocks it.
	QuietAccounts bool

	// WebhooksTo is the integrator's webhook receiver: the proxy takes the
	// upstream's deliveries at WebhooksPath (and on WebhooksAddr), forwards
	// each unchanged to WebhooksTo plus the delivery's sub-path, answers the
	// upstream with the receiver's answer, and judges the delivery. Empty:
	// no webhook side.
	WebhooksTo string
	// WebhooksAddr, when set, is a listen address of its own for the
	// deliveries (Listen): every path on it is a delivery.
	WebhooksAddr string
	// WebhookSecret is the Standard Webhooks secret (whsec_…) the upstream
	// signs deliveries with: the signature and timestamp rules apply.
	WebhookSecret string
	// WebhookTransport carries deliveries to WebhooksTo; nil means a clone of
	// http.DefaultTransport without transparent compression.
	WebhookTransport http.RoundTripper

	// JudgeProcess, when set, returns the command of a judging process
	// (judging.Serve on its standard input and output) that judges the
	// exchanges in place of the proxy's own goroutine; the proxy starts it
	// and Close ends it. Nil: the proxy judges in its own process.
	JudgeProcess func() *exec.Cmd
}

// Proxy forwards requests to the upstream unchanged and judges every
// exchange. It is an http.Handler.
type Proxy struct {
	upstream *url.URL
	rp       *httputil.ReverseProxy
	// judges judge in the proxy's process; proc, when set, is the judging
	// process that judges instead while it runs.
	judges *judging.Judges
	proc   *judging.Process
	store  *store
	bounds state.Bounds
	hooks  *webhooks // nil without Options.WebhooksTo
	quiet  bool      // Options.QuietAccounts

	logMu sync.Mutex
	log   io.Writer

	seq     atomic.Uint64
	budget  atomic.Int64
	pending inflight
	overlap overlap
	judging judgeQueue
	// unjudged holds the sequence numbers of the API exchanges started and
	// not yet judged; held, the deliveries that wait for some of them (only
	// the judging goroutine touches it).
	unjudged seqSet
	held     []*exchange
	stats    stats
	started  time.Time
}

// stats counts the exchanges.
type stats struct {
	exchanges, contract, other, unreachable atomic.Int64
}

// New returns a proxy to o.Upstream.
func New(o Options) (*Proxy, error) {
	u, err := parseUpstream(o.Upstream)
	if err != nil {
		return nil, err
	}
	t := o.Transport
	if t == nil {
		if t, err = transport(o); err != nil {
			return nil, err
		}
	}
	if o.CaptureBudget <= 0 {
		o.CaptureBudget = DefaultCaptureBudget
	}
	if o.Bounds.Keys <= 0 {
		o.Bounds.Keys = state.DefaultBounds.Keys
	}
	if o.Bounds.Accounts <= 0 {
		o.Bounds.Accounts = state.DefaultBounds.Accounts
	}
	p := &Proxy{upstream: u, store: newStore(o.MaxFindings), bounds: o.Bounds,
		log: o.Log, started: time.Now()} // wall clock: the report's start
	p.quiet = o.QuietAccounts
	p.judging.room.L = &p.judging.mu
	p.budget.Store(o.CaptureBudget)
	p.rp = &httputil.ReverseProxy{
		Rewrite:   p.rewrite,
		Transport: t,
		// An answer of known length is written once, when its body has been
		// copied (ServeHTTP flushes it then); one of unknown length or an
		// event stream is written as each piece comes (ReverseProxy does
		// that whatever FlushInterval says). -1 would also flush the header
		// on its own, from a timer goroutine, before the body: a second write
		// to the client for every answer (a tenth of the proxy's CPU at 1,000
		// exchanges a second, docs/performance-log.md).
		FlushInterval:  0,
		ModifyResponse: p.capture,
		BufferPool:     &copyBuffers,
		ErrorHandler:   p.upstreamError,
		ErrorLog:       log.New(io.Discard, "", 0), // failures become findings
	}
	if err := p.initWebhooks(o); err != nil {
		return nil, err
	}
	cfg := judging.Config{Bounds: o.Bounds, QuietAccounts: o.QuietAccounts, Upstream: u.String()}
	if p.hooks != nil {
		cfg.Receiver, cfg.Secret = p.hooks.to.String(), p.hooks.secret
	}
	p.judges = judging.New(cfg)
	if o.JudgeProcess != nil {
		if p.proc, err = judging.Start(o.JudgeProcess(), cfg, processSink{p}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Close ends the judging process, if there is one, once every exchange has
// been judged (Server.Shutdown calls it). The findings and the summary stay.
func (p *Proxy) Close() error {
	p.Quiesce()
	if p.proc == nil {
		return nil
	}
	return p.proc.Close()
}

// CheckUpstream reports whether s can be an upstream: an http:// or
// https:// base URL with a host and no query or fragment.
func CheckUpstream(s string) error {
	_, err := parseUpstream(s)
	return err
}

func parseUpstream(s string) (*url.URL, error) {
	u, err := parseHTTPURL("--upstream", s)
	if err == nil && (u.RawQuery != "" || u.Fragment != "") {
		return nil, fmt.Errorf("--upstream %q: a base URL takes no query or fragment", s)
	}
	return u, err
}

// parseHTTPURL parses the value s of flag as an http:// or https:// URL with
// a host.
func parseHTTPURL(flag, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flag, s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s %q: want an http:// or https:// URL with a host", flag, s)
	}
	return u, nil
}

// transport is a clone of http.DefaultTransport that leaves Accept-Encoding
// to the client (so bodies pass as the upstream encoded them), with o's
// client certificate and authorities.
func transport(o Options) (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 256
	if (o.ClientCert == "") != (o.ClientKey == "") {
		return nil, errors.New("--client-cert and --client-key go together: give both or neither")
	}
	if o.ClientCert == "" && o.CA == "" {
		return t, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.ClientCert != "" {
		pair, err := tls.LoadX509KeyPair(o.ClientCert, o.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("--client-cert %s / --client-key %s: %w", o.ClientCert, o.ClientKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if o.CA != "" {
		pem, err := os.ReadFile(o.CA)
		if err != nil {
			return nil, fmt.Errorf("--ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca %s: no PEM certificate in it", o.CA)
		}
		cfg.RootCAs = pool
	}
	t.TLSClientConfig = cfg
	return t, nil
}

// Upstream returns the upstream's base URL.
func (p *Proxy) Upstream() string { return p.upstream.String() }

// rewrite sends the request to the upstream as it came: only the scheme,
// host and Host header change; the X-Forwarded-* headers httputil removes
// are put back as the client sent them (none are added).
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.upstream)
	for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok {
			pr.Out.Header[h] = v
		}
	}
}

type exchangeKey struct{}

// exchange is an exchange in flight with what the proxy holds for it.
type exchange struct {
	contract.Exchange
	reserved    int64
	started     uint64 // the overlap tracker's count when it started
	resp        *captureBody
	upstreamErr error
	clientGone  bool
	switched    bool // 101 Switching Protocols: passed through, not judged
	bodyFailed  bool // the client's body broke off: a failure then is not the upstream's
	// delivery marks a webhook delivery; after is the last sequence number
	// given out when it ended: it is judged once every API exchange up to
	// after has been (judge).
	delivery bool
	after    uint64
}

// ServeHTTP forwards the request and judges the exchange once the answer has
// been copied and flushed to the client.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if path, raw, ok := deliverySubPath(r.URL); ok {
		p.serveDelivery(w, r, path, raw)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/_proxy/") {
		p.serveOwn(w, r)
		return
	}
	p.pending.add()
	ex := &exchange{Exchange: contract.Exchange{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery,
		ReqHeader: r.Header.Clone(), Start: time.Now(), // wall clock: orders the state model's observations
	}}
	ex.Seq = p.unjudged.add(&p.seq)
	ex.started, ex.Alone = p.overlap.start()
	// Judged once the handler returns, also when the copy of the answer
	// panicked (http.ErrAbortHandler).
	defer p.judgeLater(ex)
	p.captureRequest(r, ex)
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	if !ex.switched {
		// The answer is the client's before the handler returns: without
		// the flush, a small body waits in the server's buffer until then.
		_ = http.NewResponseController(w).Flush()
	}
}

// maxJudging bounds the exchanges waiting to be judged.
const maxJudging = 1024

// judgeQueue holds the exchanges answered and not yet judged, in the order
// their handlers finished; one goroutine judges them while there are any.
type judgeQueue struct {
	mu      sync.Mutex
	room    sync.Cond // signalled when an exchange leaves a full queue
	q       []*exchange
	running bool
}

// judgeLater queues the exchange for judging and returns: the handler
// returns at once, and the connection's next request is read without
// waiting for the rules. The exchanges are judged one at a time in the order
// they were queued (the state model reads them in order: a client's next
// request is queued after its last). With maxJudging exchanges waiting, the
// handler waits for room, and clients slow to the judging's pace instead of
// the proxy's memory growing.
func (p *Proxy) judgeLater(ex *exchange) {
	ex.End = time.Now() // wall clock: orders the state model's observations
	if ex.delivery {
		ex.after = p.seq.Load()
	} else {
		ex.Alone = p.overlap.end(ex.started, ex.Alone)
	}
	j := &p.judging
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(j.q) >= maxJudging {
		j.room.Wait()
	}
	j.q = append(j.q, ex)
	if !j.running {
		j.running = true
		go p.judgeQueued()
	}
}

// judgeQueued judges the queued exchanges until none is left.
func (p *Proxy) judgeQueued() {
	j := &p.judging
	for {
		j.mu.Lock()
		if len(j.q) == 0 {
			if p.proc != nil {
				p.proc.Idle() // what is buffered goes to the judging process soon
			}
			j.running = false
			j.mu.Unlock()
			return
		}
		ex := j.q[0]
		j.q[0] = nil
		j.q = j.q[1:]
		j.room.Signal()
		j.mu.Unlock()
		p.judge(ex)
	}
}

// judge finishes the exchange; Quiesce waits for it. A delivery waits, held,
// until the API exchanges in flight when it ended have been judged: a
// webhook often reaches the proxy before the answer that shows its
// transaction (the upstream sends it while it answers), and judged first it
// would name a transaction the model has not seen yet. An API exchange
// judged releases the deliveries that waited for it only, in order. Past
// maxJudging deliveries held (an API exchange that hangs), a delivery is
// judged at once.
func (p *Proxy) judge(ex *exchange) {
	if ex.delivery {
		if len(p.held) < maxJudging && p.unjudged.anyUpTo(ex.after) {
			p.held = append(p.held, ex)
			return
		}
		p.finishDelivery(ex)
		return
	}
	p.finish(ex)
	p.unjudged.remove(ex.Seq)
	kept := p.held[:0]
	for _, d := range p.held {
		if p.unjudged.anyUpTo(d.after) {
			kept = append(kept, d)
			continue
		}
		p.finishDelivery(d)
	}
	clear(p.held[len(kept):])
	p.held = kept
}

func exchangeOf(r *http.Request) *exchange {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return ex
}

// reserve takes n bytes from the capture budget, or reports that it cannot.
func (p *Proxy) reserve(ex *exchange, n int64) bool {
	for {
		cur := p.budget.Load()
		if cur < n {
			return false
		}
		if p.budget.CompareAndSwap(cur, cur-n) {
			ex.reserved += n
			return true
		}
	}
}

// captureRequest reads the request body (up to BodyLimit, within the
// budget) so it can be judged, and gives the transport the same bytes: the
// body read, then whatever was not.
func (p *Proxy) captureRequest(r *http.Request, ex *exchange) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	if r.ContentLength > BodyLimit {
		ex.ReqUnjudged = "the body is over 1 MiB"
		return
	}
	if r.ContentLength >= 0 {
		p.captureKnownLength(r, ex)
		return
	}
	var buf []byte
	chunk := make([]byte, 32<<10)
	var readErr error
	for {
		if len(buf) > BodyLimit {
			ex.ReqUnjudged = "the body is over 1 MiB"
			break
		}
		if !p.reserve(ex, int64(len(chunk))) {
			ex.ReqUnjudged = "the proxy's capture budget is spent"
			break
		}
		n, err := r.Body.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	rest := io.Reader(r.Body)
	switch {
	case readErr != nil:
		rest, ex.ReqUnjudged, ex.bodyFailed = errReader{readErr}, "the client's body could not be read: "+readErr.Error(), true
	case ex.ReqUnjudged == "":
		rest = eofReader{}
		ex.ReqBody = buf
	}
	r.Body = readCloser{io.MultiReader(bytesReader(buf), rest), r.Body}
}

// captureKnownLength reads a body of announced length at once.
func (p *Proxy) captureKnownLength(r *http.Request, ex *exchange) {
	if !p.reserve(ex, r.ContentLength) {
		ex.ReqUnjudged = "the proxy's capture budget is spent"
		return
	}
	buf := make([]byte, r.ContentLength)
	n, err := io.ReadFull(r.Body, buf)
	if err != nil {
		ex.ReqUnjudged, ex.bodyFailed = "the client's body could not be read: "+err.Error(), true
		r.Body = readCloser{io.MultiReader(bytesReader(buf[:n]), errReader{err}), r.Body}
		return
	}
	ex.ReqBody = buf
	r.Body = readCloser{bytesReader(buf), r.Body}
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// upstreamError answers 502 in the minimal error shape when the upstream
// did not answer; a client that went away gets nothing. When the client's
// own body broke off, the 502 says so and no finding blames the upstream.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	ex := exchangeOf(r)
	if r.Context().Err() != nil {
		if ex != nil {
			ex.clientGone = true
		}
		return
	}
	msg := "upstream " + p.upstream.String() + " unreachable: " + err.Error()
	switch {
	case ex != nil && ex.bodyFailed:
		ex.clientGone = true
		msg = "the request's body broke off before the upstream " + p.upstream.String() + " answered: " + err.Error()
	case ex != nil:
		ex.upstreamErr = err
	}
	body, _ := json.Marshal(map[string]any{
		"statusCode": http.StatusBadGateway,
		"message":    msg,
		"error":      http.StatusText(http.StatusBadGateway),
	})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(body)
}

// finish counts the exchange and has it judged.
func (p *Proxy) finish(ex *exchange) {
	defer p.budget.Add(ex.reserved)
	p.stats.exchanges.Add(1)
	if ex.clientGone || ex.switched {
		p.pending.done()
		return
	}
	if ex.resp != nil {
		ex.resp.finish(&ex.Exchange)
	}
	if rt, _ := ex.Route(); rt != nil {
		p.stats.contract.Add(1)
	} else {
		p.stats.other.Add(1)
	}
	it := judging.Item{Ex: &ex.Exchange}
	if ex.upstreamErr != nil {
		p.stats.unreachable.Add(1)
		it.Failed = ex.upstreamErr.Error()
	}
	p.hand(it)
}

// hand has the item judged: by the judging process while it runs, else by
// the proxy's own judges. Its findings are recorded, and it counts as
// judged (pending), once they are known.
func (p *Proxy) hand(it judging.Item) {
	if p.proc != nil && p.proc.Send(it) {
		return
	}
	for _, f := range p.judges.Judge(it) {
		p.record(f)
	}
	p.pending.done()
}

func (p *Proxy) record(f contract.Finding) {
	p.store.add(f)
	p.countHook(f)
	p.logLine(Line(f))
}

// processSink takes the judging process's answers for the proxy.
type processSink struct{ p *Proxy }

func (s processSink) Record(f contract.Finding) { s.p.record(f) }
func (s processSink) Judged()                   { s.p.pending.done() }
func (s processSink) Log(line string)           { s.p.logLine(line) }

// logLine writes a line to the proxy's log, if it has one.
func (p *Proxy) logLine(s string) {
	if p.log == nil {
		return
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintln(p.log, s)
}

// Line renders a finding on one line, as the proxy prints it.
func Line(f contract.Finding) string {
	kind := string(f.Kind)
	if f.Notice {
		kind = "notice"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pixsandbox proxy: [%s] %s #%d %s %s", kind, f.Rule, f.Exchange, f.Method, f.Path)
	if f.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", f.RequestID)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	var ev []string
	if f.Field != "" {
		ev = append(ev, "field "+f.Field)
	}
	if f.Expected != "" {
		ev = append(ev, "expected "+f.Expected)
	}
	if f.Seen != "" {
		ev = append(ev, "seen "+f.Seen)
	}
	ev = append(ev, f.Section)
	fmt.Fprintf(&b, " [%s]", strings.Join(ev, "; "))
	return b.String()
}

// Quiesce returns once every exchange in flight when it was called, and any
// started since, has been judged.
func (p *Proxy) Quiesce() { p.pending.wait() }

// Findings returns the findings kept (the latest MaxFindings), oldest first.
func (p *Proxy) Findings() []contract.Finding { return p.store.findings() }

// Counts returns the counts of all findings seen.
func (p *Proxy) Counts() Counts { return p.store.counts() }

// overlap tells the exchanges no other overlapped: one in flight alone from
// its start to its end, with none started meanwhile (contract.Exchange.Alone).
// Webhook deliveries and the proxy's own paths do not count: they move no
// balance.
type overlap struct {
	mu     sync.Mutex
	active int
	starts uint64
}

// start counts an exchange in; it reports the count of starts and whether
// it is the only one in flight.
func (o *overlap) start() (uint64, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.active++
	o.starts++
	return o.starts, o.active == 1
}

// end counts an exchange out; it was alone when it started alone and no
// other started since.
func (o *overlap) end(started uint64, aloneAtStart bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.active--
	return aloneAtStart && o.starts == started
}

// seqSet is a set of sequence numbers.
type seqSet struct {
	mu  sync.Mutex
	set map[uint64]struct{}
}

// add takes the next number of seq into the set and returns it; the two
// happen under one lock, so a delivery that reads seq after it (judgeLater)
// finds the number in the set until it is removed.
func (s *seqSet) add(seq *atomic.Uint64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := seq.Add(1)
	if s.set == nil {
		s.set = map[uint64]struct{}{}
	}
	s.set[n] = struct{}{}
	return n
}

func (s *seqSet) remove(n uint64) {
	s.mu.Lock()
	delete(s.set, n)
	s.mu.Unlock()
}

// anyUpTo reports whether the set holds a number up to n. The set holds the
// API exchanges in flight or waiting for judgement: a few, up to maxJudging
// and the connections served.
func (s *seqSet) anyUpTo(n uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.set {
		if k <= n {
			return true
		}
	}
	return false
}

// inflight counts the exchanges being served.
type inflight struct {
	mu   sync.Mutex
	n    int
	zero *sync.Cond
}

func (c *inflight) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *inflight) done() {
	c.mu.Lock()
	c.n--
	if c.n == 0 && c.zero != nil {
		c.zero.Broadcast()
	}
	c.mu.Unlock()
}

func (c *inflight) wait() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.zero == nil {
		c.zero = sync.NewCond(&c.mu)
	}
	for c.n > 0 {
		c.zero.Wait()
	}
}
