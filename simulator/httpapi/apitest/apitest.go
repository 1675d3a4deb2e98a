// Package apitest holds the HTTP helpers the tests of httpapi and sandboxapi
// share, and the binary's tests with them: requests against a simulator's
// server, a token for a fixture account, waiting for what a server does in the
// background, and the fuzz targets' in-memory server with the check of its
// answers (no 5xx, the route family's error shape, a 400 naming its field).
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

type Result struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Do sends a request and decodes its JSON object body.
func Do(tb testing.TB, method, url string, body io.Reader, headers map[string]string) Result {
	tb.Helper()
	r := DoRaw(tb, method, url, body, headers)
	dec := json.NewDecoder(bytes.NewReader(r.Raw))
	dec.UseNumber()
	if err := dec.Decode(&r.Body); err != nil {
		tb.Fatalf("%s %s: body is not a JSON object (%v): %s", method, url, err, r.Raw)
	}
	return r
}

// DoRaw sends a request and reads its body, whatever its type.
func DoRaw(tb testing.TB, method, url string, body io.Reader, headers map[string]string) Result {
	tb.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return Result{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
}

// TokenFor gets a token for fixture account i over HTTP.
func TokenFor(tb testing.TB, env *simulatortest.Env, i int) string {
	tb.Helper()
	a := env.Fixtures.Accounts[i]
	pemBytes, _ := env.Fixtures.ReadFile(a.Certificate)
	body := `{"clientId":"` + a.ClientID + `","clientSecret":"` + a.ClientSecret + `"}`
	r := Do(tb, "POST", env.URL+"/api/auth/token", strings.NewReader(body),
		map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)})
	if r.Status != 201 {
		tb.Fatalf("token: %d %s", r.Status, r.Raw)
	}
	return r.Body["access_token"].(string)
}

// WaitFor polls cond every 10 ms until it holds, and fails the test when
// 10 s (wall time) pass first: for what a server does after it answered (a
// webhook delivered, a held request counted, a workspace's keys dropped).
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-timeout:
			tb.Fatalf("timed out waiting for %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Shape is the error shape a fuzzed route family answers in.
type Shape int

const (
	Minimal  Shape = iota // statusCode, message, error
	Extended              // plus code, errorId, path /public/…, …
)

// FuzzServer is an in-memory simulator whose router the fuzz targets call
// directly, with a bearer token for fixture account 0.
type FuzzServer struct {
	Env     *simulatortest.Env
	mu      sync.Mutex
	tok     string
	tokenAt time.Time // simulation time the token was issued
}

// NewFuzzServer is a FuzzServer over a new simulator with the default options.
func NewFuzzServer(tb testing.TB) *FuzzServer {
	return FuzzServerOf(tb, simulatortest.New(tb, simulatortest.Options{}))
}

// FuzzServerOf is a FuzzServer over env.
func FuzzServerOf(tb testing.TB, env *simulatortest.Env) *FuzzServer {
	return &FuzzServer{Env: env, tok: TokenFor(tb, env, 0), tokenAt: env.Sim.Clock().Now()}
}

// Request is one request of a fuzz target. path and query are set on the
// URL as given, so the router sees exactly the fuzzed bytes.
type Request struct {
	Method, Path, Query, Body string
	Header                    map[string]string
	Auth                      bool // send the bearer token
}

// Answer is what the router answered.
type Answer struct {
	Status int
	Body   map[string]any
	Raw    []byte
}

// Token is the bearer token the server sends for fixture account 0.
func (fs *FuzzServer) Token() string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.tok
}

// Serve sends rq through the router. A 429 moves the virtual clock past the
// one-minute rate windows so that rate limits do not hide the rest of a route
// from the fuzzer; the token is renewed before it expires.
func (fs *FuzzServer) Serve(t testing.TB, rq Request) Answer {
	t.Helper()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if rq.Auth && fs.Env.Sim.Clock().Now().Sub(fs.tokenAt) > pix.TokenLifetime/2 {
		fs.tok, fs.tokenAt = TokenFor(t, fs.Env, 0), fs.Env.Sim.Clock().Now()
	}
	req := httptest.NewRequest(rq.Method, "/", bytes.NewBufferString(rq.Body))
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = rq.Path, "", rq.Query
	req.RequestURI = ""
	if rq.Auth {
		req.Header.Set("Authorization", "Bearer "+fs.tok)
	}
	for k, v := range rq.Header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fs.Env.Server.Config.Handler.ServeHTTP(rec, req)
	a := Answer{Status: rec.Code, Raw: rec.Body.Bytes()}
	if err := json.Unmarshal(a.Raw, &a.Body); err != nil {
		t.Fatalf("%s %q?%q: status %d, body not a JSON object: %q", rq.Method, rq.Path, rq.Query, a.Status, a.Raw)
	}
	if a.Status == http.StatusTooManyRequests {
		if _, err := fs.Env.Sim.AdvanceClock(context.Background(), 61*time.Second, pix.ClockWaitWebhooks); err != nil {
			t.Fatalf("advance past the rate window: %v", err)
		}
	}
	return a
}

// Check fails t when a is a 5xx, or an error answer outside sh's shape, or a
// 400 whose message does not start with the name of the offending field: one
// of fields, a key of the request's body object (a key given twice, or a
// string that is not valid UTF-8, is named whatever it is) or body (nested
// names such as details.key count by their root).
func (a Answer) Check(t testing.TB, rq Request, sh Shape, fields ...string) {
	t.Helper()
	if len(fields) > 0 {
		fields = append(slices.Clip(fields), bodyKeys(rq.Body)...)
	}
	where := rq.Method + " " + rq.Path
	if rq.Query != "" {
		where += "?" + rq.Query
	}
	if a.Status >= 500 {
		t.Fatalf("%q: status %d: %s", where, a.Status, a.Raw)
	}
	if a.Status < 300 {
		return
	}
	b := a.Body
	if sc, _ := b["statusCode"].(float64); int(sc) != a.Status || b["error"] != http.StatusText(a.Status) || b["message"] == nil {
		t.Fatalf("%q: status %d without the error shape: %s", where, a.Status, a.Raw)
	}
	var msgs []string
	switch sh {
	case Minimal:
		if len(b) != 3 {
			t.Fatalf("%q: status %d: minimal error shape has extra fields: %s", where, a.Status, a.Raw)
		}
		m, _ := b["message"].(string)
		msgs = []string{m}
	case Extended:
		if b["code"] == nil || b["errorId"] == nil || b["path"] != "/public"+rq.Path || b["userMessage"] == nil {
			t.Fatalf("%q: status %d without the extended shape: %s", where, a.Status, a.Raw)
		}
		switch m := b["message"].(type) {
		case string:
			msgs = []string{m}
		case []any:
			for _, x := range m {
				s, _ := x.(string)
				msgs = append(msgs, s)
			}
		}
	}
	if len(msgs) == 0 || msgs[0] == "" {
		t.Fatalf("%q: status %d with an empty message: %s", where, a.Status, a.Raw)
	}
	if a.Status != http.StatusBadRequest || len(fields) == 0 {
		return
	}
	for _, m := range msgs {
		if !namesField(m, fields) {
			t.Fatalf("%q: 400 message %q does not start with one of the fields %v", where, m, fields)
		}
	}
}

// bodyKeys lists the top-level keys of a JSON object body as violations name
// them, reading tokens until the first error.
func bodyKeys(body string) []string {
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		k, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		keys = append(keys, strictjson.KeyName(k))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return keys
}

// namesField reports whether msg starts with body or one of fields, alone or
// as the root of a nested name (details.key, splits[0].value).
func namesField(msg string, fields []string) bool {
	for _, f := range append([]string{"body"}, fields...) {
		if rest, ok := strings.CutPrefix(msg, f); ok && f != "" && rest != "" && strings.ContainsRune(" .[", rune(rest[0])) {
			return true
		}
	}
	return false
}
