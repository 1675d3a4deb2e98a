package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
)

// received is a request as the upstream got it.
type received struct {
	Method, RequestURI string
	Header             http.Header
	Body               []byte
}

// recorder is an upstream that records each request and answers with the
// answer its X-Test-Answer header names.
type recorder struct {
	mu   sync.Mutex
	got  []received
	gzip []byte
}

var answers = map[string]struct {
	status int
	header http.Header
	body   []byte
}{
	"json":     {201, http.Header{"Content-Type": {"application/json"}, "Set-Cookie": {"a=1", "b=2"}, "X-Custom": {"x", "y"}}, []byte(`{"ok":true}`)},
	"empty":    {204, http.Header{"X-Empty": {"1"}}, nil},
	"binary":   {200, http.Header{"Content-Type": {"application/octet-stream"}}, []byte{0, 1, 2, 255, 254, '\r', '\n'}},
	"redirect": {302, http.Header{"Location": {"https://example.com/elsewhere"}}, []byte("moved")},
	"error":    {500, http.Header{"Content-Type": {"text/plain"}}, []byte("upstream broke")},
	"html":     {200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, []byte("<html><body>console</body></html>")},
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec.mu.Lock()
	rec.got = append(rec.got, received{Method: r.Method, RequestURI: r.RequestURI, Header: r.Header.Clone(), Body: body})
	rec.mu.Unlock()
	name := r.Header.Get("X-Test-Answer")
	// A fixed Date on every answer: net/http's own would differ between
	// the direct and the proxied request across a second's boundary.
	w.Header().Set("Date", "Mon, 02 Mar 2026 12:00:00 GMT")
	if name == "gzip" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(200)
		_, _ = w.Write(rec.gzip)
		return
	}
	if name == "chunked" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for _, part := range []string{`{"a":`, `1,"b":`, `[1,2,3]}`} {
			_, _ = io.WriteString(w, part)
			w.(http.Flusher).Flush()
		}
		return
	}
	a := answers[name]
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = io.WriteString(zw, s)
	_ = zw.Close()
	return b.Bytes()
}

// TestProxy_ForwardsUnchanged: the upstream gets each request as the client
// sent it (method, path with its escapes, query, headers including
// X-SSL-Client-Cert and X-Forwarded-For, body bytes) and the client gets the
// upstream's answer as it was sent (status, headers, body bytes, a gzip body
// still encoded, a redirect not followed).
func TestProxy_ForwardsUnchanged(t *testing.T) {
	rec := &recorder{gzip: gzipped(`{"data":[]}`)}
	up := httptest.NewServer(rec)
	defer up.Close()
	u, _, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cert := apiclient.EncodeCertHeader("-----BEGIN CERTIFICATE-----\nMIIB+abc/def==\n-----END CERTIFICATE-----\n")
	tests := []struct {
		name, method, target, answer string
		header                       http.Header
		body                         []byte
	}{
		{"token request", "POST", "/api/auth/token", "json", http.Header{"X-Ssl-Client-Cert": {cert}, "Content-Type": {"application/json"}}, []byte(`{"clientId":"a","clientSecret":"b"}`)},
		{"escaped key in the path", "GET", "/api/pix/transactions/pix-key/%2B5511987654321?page=1&size=2&x=%20y", "json", http.Header{"Authorization": {"Bearer t"}}, nil},
		{"email in the path", "GET", "/api/pix/transactions/pix-key/a%40b.com", "json", nil, nil},
		{"repeated headers and forwarding headers", "PUT", "/cob/abc", "json", http.Header{"X-Multi": {"1", "2"}, "X-Forwarded-For": {"10.0.0.1"}, "X-Forwarded-Proto": {"https"}}, []byte(`{"valor":{"original":"1.00"}}`)},
		{"binary body", "POST", "/_sandbox/anything", "binary", http.Header{"Content-Type": {"application/octet-stream"}}, []byte{0, 255, 1, 254, '\n'}},
		{"no content", "DELETE", "/_sandbox/webhook-targets/1", "empty", nil, nil},
		{"redirect not followed", "GET", "/somewhere", "redirect", nil, nil},
		{"upstream error passed", "GET", "/api/med", "error", nil, nil},
		{"gzip kept encoded", "GET", "/api/transactions", "gzip", http.Header{"Accept-Encoding": {"gzip"}}, nil},
		{"chunked answer", "GET", "/api/webhooks", "chunked", nil, nil},
		{"html page", "GET", "/_sandbox/console", "html", nil, nil},
		{"no user agent", "GET", "/balance", "json", http.Header{"User-Agent": {""}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			compare(t, rec, u, up.URL, tt.method, tt.target, tt.answer, tt.header, tt.body)
		})
	}
}

// compare sends one request directly and through the proxy and checks that
// the upstream got the same request and the client the same answer.
func compare(t *testing.T, rec *recorder, proxyURL, upURL, method, target, answer string, h http.Header, body []byte) {
	t.Helper()
	send := func(base string) (*http.Response, []byte, received) {
		req, err := http.NewRequest(method, base+target, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range h {
			req.Header[k] = v
		}
		req.Header.Set("X-Test-Answer", answer)
		tr := &http.Transport{DisableCompression: true}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		rec.mu.Lock()
		last := rec.got[len(rec.got)-1]
		rec.mu.Unlock()
		return resp, b, last
	}
	dResp, dBody, dReq := send(upURL)
	pResp, pBody, pReq := send(proxyURL)
	if dReq.Method != pReq.Method || dReq.RequestURI != pReq.RequestURI || !bytes.Equal(dReq.Body, pReq.Body) {
		t.Errorf("the upstream got %s %s %q through the proxy, %s %s %q directly", pReq.Method, pReq.RequestURI, pReq.Body, dReq.Method, dReq.RequestURI, dReq.Body)
	}
	if diff := headerDiff(dReq.Header, pReq.Header); diff != "" {
		t.Errorf("request headers differ through the proxy:%s", diff)
	}
	if dResp.StatusCode != pResp.StatusCode || !bytes.Equal(dBody, pBody) {
		t.Errorf("answer %d %q through the proxy, %d %q directly", pResp.StatusCode, pBody, dResp.StatusCode, dBody)
	}
	if diff := headerDiff(dResp.Header, pResp.Header); diff != "" {
		t.Errorf("answer headers differ through the proxy:%s", diff)
	}
}

// headerDiff lists the headers that differ, ignoring skip.
func headerDiff(a, b http.Header, skip ...string) string {
	var out []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		if slices.Contains(skip, k) {
			continue
		}
		if !slices.Equal(a[k], b[k]) {
			out = append(out, k+": "+strings.Join(a[k], ",")+" vs "+strings.Join(b[k], ","))
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return ""
	}
	return "\n  " + strings.Join(out, "\n  ")
}

// TestProxy_UpstreamUnreachable: an upstream that does not answer gets the
// client a 502 in the minimal error shape naming the upstream, and one
// finding of kind upstream per exchange; the proxy itself keeps serving.
func TestProxy_UpstreamUnreachable(t *testing.T) {
	for _, j := range judgings {
		t.Run(j.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			dead := "http://" + ln.Addr().String()
			ln.Close()
			u, findings, stop, err := proxy.Start(dead, proxy.Options{JudgeProcess: j.process})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			c := newClient(t, u)
			for _, route := range []string{"GET /accounts/balances", "POST /api/pix/cash-out", "POST /api/auth/token"} {
				method, path, _ := strings.Cut(route, " ")
				body := ""
				if method == "POST" {
					body = "{}"
				}
				a := c.do(method, path, body)
				if a.Status != 502 || a.Header.Get("Content-Type") == "" {
					t.Fatalf("%s: %d %s, want 502 JSON", route, a.Status, a.Body)
				}
				v, err := apiclient.DecodeJSON(a.Body)
				if err != nil {
					t.Fatalf("%s: 502 body is not JSON: %s", route, a.Body)
				}
				if p := contract.ShapeProblems(contract.MinimalShape, v, 502, method); len(p) > 0 {
					t.Errorf("%s: the 502 is not in the minimal shape: %v", route, p)
				}
				if msg := a.str(t, "message"); !strings.Contains(msg, dead) {
					t.Errorf("%s: the message %q does not name the upstream %s", route, msg, dead)
				}
			}
			got := byKind(findings())["upstream"]
			if len(got) != 3 || got[0].Rule != "upstream.unreachable" || !strings.Contains(got[0].Message, dead) {
				t.Fatalf("want 3 upstream.unreachable findings naming %s, got:%s", dead, lines(got))
			}
		})
	}
}

// TestProxy_LargeBodies: bodies over 1 MiB, either way, stream through
// byte for byte and are not judged: a notice says so, and no rule reads them.
func TestProxy_LargeBodies(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3<<20)
	var gotSum [32]byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotSum = sha256.Sum256(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		if r.URL.Path == "/api/transactions" {
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
		_, _ = w.Write(big)
	}))
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	a := c.do("POST", "/api/pix/cash-out", string(big))
	if gotSum != sha256.Sum256(big) {
		t.Fatal("the upstream did not get the request body the client sent")
	}
	if a.Status != 201 || !bytes.Equal(a.Body, big) {
		t.Fatalf("the client got %d and %d bytes, want 201 and the upstream's %d", a.Status, len(a.Body), len(big))
	}
	b := c.do("GET", "/api/transactions", "")
	if !bytes.Equal(b.Body, big) {
		t.Fatalf("chunked answer: %d bytes, want %d", len(b.Body), len(big))
	}
	fs := findings()
	var rules []string
	for _, f := range fs {
		if f.Kind == contract.KindResponse && !f.Notice && f.Rule != "resp.status-allowed" {
			t.Errorf("a rule read an unjudged body: %s", proxy.Line(f))
		}
		rules = append(rules, f.Rule)
	}
	for _, want := range []string{"req.body-unjudged", "resp.body-unjudged"} {
		if !slices.Contains(rules, want) {
			t.Errorf("no %s notice; findings:%s", want, lines(fs))
		}
	}
	if n := strings.Count(strings.Join(rules, " "), "resp.body-unjudged"); n != 2 {
		t.Errorf("%d resp.body-unjudged notices, want 2 (one with Content-Length, one chunked)", n)
	}
}

// TestProxy_CaptureBudget: an answer beyond the capture budget passes
// unjudged, with a notice naming the budget.
func TestProxy_CaptureBudget(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		_, _ = w.Write([]byte(`{"statusCode":401,"message":"` + strings.Repeat("m", 100<<10) + `","error":"Unauthorized"}`))
	}))
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{CaptureBudget: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c := newClient(t, u)
	a := c.do("GET", "/api/med", "")
	if a.Status != 401 || len(a.Body) < 100<<10 {
		t.Fatalf("answer %d of %d bytes", a.Status, len(a.Body))
	}
	found := map[string]string{}
	for _, f := range findings() {
		found[f.Rule] = f.Message
	}
	if !strings.Contains(found["resp.body-unjudged"], "budget") {
		t.Errorf("no notice of the budget on the answer: %v", found)
	}
}

// TestProxy_Upgrade: a connection the upstream upgrades (101 Switching
// Protocols) passes through both ways and is not judged.
func TestProxy_Upgrade(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		_ = rw.Flush()
		line, _ := rw.ReadString('\n')
		_, _ = rw.WriteString("echo " + line)
		_ = rw.Flush()
	}))
	defer up.Close()
	u, findings, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	conn, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /api/med HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	br := bufio.NewReader(conn)
	status, _ := br.ReadString('\n')
	if !strings.Contains(status, "101") {
		t.Fatalf("status line %q, want 101", status)
	}
	for { // the rest of the answer's head
		if line, err := br.ReadString('\n'); err != nil || line == "\r\n" {
			break
		}
	}
	_, _ = io.WriteString(conn, "ping\n")
	if got, _ := br.ReadString('\n'); got != "echo ping\n" {
		t.Fatalf("through the upgraded connection: %q", got)
	}
	conn.Close()
	for _, f := range findings() {
		if f.Kind == contract.KindResponse {
			t.Errorf("an upgraded exchange was judged: %s", proxy.Line(f))
		}
	}
}

// TestProxy_StreamsUnknownLength: an answer without a Content-Length (a
// chunked body, an event stream) reaches the client piece by piece as the
// upstream writes it, not when the upstream ends it (an answer of known
// length is written once, whole).
func TestProxy_StreamsUnknownLength(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(release) }) }
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, `{"first":`)
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, `1}`)
	}))
	defer up.Close()
	defer done()
	u, _, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	type piece struct {
		resp  *http.Response
		first []byte
		err   error
	}
	got := make(chan piece, 1)
	go func() {
		resp, err := http.Get(u + "/api/transactions")
		if err != nil {
			got <- piece{err: err}
			return
		}
		first := make([]byte, len(`{"first":`))
		_, err = io.ReadFull(resp.Body, first)
		got <- piece{resp, first, err}
	}()
	var p piece
	select {
	case p = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the first piece of a chunked answer did not reach the client while the upstream was still writing")
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	defer p.resp.Body.Close()
	done()
	rest, err := io.ReadAll(p.resp.Body)
	if err != nil || string(p.first)+string(rest) != `{"first":1}` {
		t.Fatalf("the client read %q then %q (%v), want {\"first\":1}", p.first, rest, err)
	}
}

// BenchmarkProxy_Exchange: a small JSON answer through the proxy from a
// local upstream, judged; with -benchmem, what one exchange allocates in
// the proxy and the client together.
func BenchmarkProxy_Exchange(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}))
	defer up.Close()
	u, _, stop, err := proxy.Start(up.URL, proxy.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	c := &http.Client{}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Get(u + "/healthz")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
