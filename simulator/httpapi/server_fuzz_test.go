package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/simulatortest"
)

// errShape is the error shape a fuzzed route family answers in.
type errShape int

const (
	minimalErrors  errShape = iota // statusCode, message, error
	extendedErrors                 // plus code, errorId, path /public/…, …
)

// fuzzServer is an in-memory simulator whose router the fuzz targets call
// directly, with a bearer token for fixture account 0.
type fuzzServer struct {
	env     *simulatortest.Env
	mu      sync.Mutex
	tok     string
	tokenAt time.Time // simulation time the token was issued
}

func newFuzzServer(tb testing.TB) *fuzzServer {
	env := simulatortest.New(tb, simulatortest.Options{})
	return &fuzzServer{env: env, tok: tokenFor(tb, env, 0), tokenAt: env.Sim.Clock().Now()}
}

// fuzzRequest is one request of a fuzz target. path and query are set on the
// URL as given, so the router sees exactly the fuzzed bytes.
type fuzzRequest struct {
	method, path, query, body string
	header                    map[string]string
	auth                      bool // send the bearer token
}

// fuzzAnswer is what the router answered.
type fuzzAnswer struct {
	status int
	body   map[string]any
	raw    []byte
}

// serve sends rq through the router. A 429 moves the virtual clock past the
// one-minute rate windows so that rate limits do not hide the rest of a route
// from the fuzzer; the token is renewed before it expires.
func (fs *fuzzServer) serve(t testing.TB, rq fuzzRequest) fuzzAnswer {
	t.Helper()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if rq.auth && fs.env.Sim.Clock().Now().Sub(fs.tokenAt) > pix.TokenLifetime/2 {
		fs.tok, fs.tokenAt = tokenFor(t, fs.env, 0), fs.env.Sim.Clock().Now()
	}
	req := httptest.NewRequest(rq.method, "/", bytes.NewBufferString(rq.body))
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = rq.path, "", rq.query
	req.RequestURI = ""
	if rq.auth {
		req.Header.Set("Authorization", "Bearer "+fs.tok)
	}
	for k, v := range rq.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	fs.env.Server.Config.Handler.ServeHTTP(rec, req)
	a := fuzzAnswer{status: rec.Code, raw: rec.Body.Bytes()}
	if err := json.Unmarshal(a.raw, &a.body); err != nil {
		t.Fatalf("%s %q?%q: status %d, body not a JSON object: %q", rq.method, rq.path, rq.query, a.status, a.raw)
	}
	if a.status == http.StatusTooManyRequests {
		if _, err := fs.env.Sim.AdvanceClock(context.Background(), 61*time.Second, pix.ClockWaitWebhooks); err != nil {
			t.Fatalf("advance past the rate window: %v", err)
		}
	}
	return a
}

// check fails t when a is a 5xx, or an error answer outside sh's shape, or a
// 400 whose message does not start with the name of the offending field: one
// of fields, a key of the request's body object (a key given twice, or a
// string that is not valid UTF-8, is named whatever it is) or body (nested
// names such as details.key count by their root).
func (a fuzzAnswer) check(t testing.TB, rq fuzzRequest, sh errShape, fields ...string) {
	t.Helper()
	if len(fields) > 0 {
		fields = append(slices.Clip(fields), bodyKeys(rq.body)...)
	}
	where := rq.method + " " + rq.path
	if rq.query != "" {
		where += "?" + rq.query
	}
	if a.status >= 500 {
		t.Fatalf("%q: status %d: %s", where, a.status, a.raw)
	}
	if a.status < 300 {
		return
	}
	b := a.body
	if sc, _ := b["statusCode"].(float64); int(sc) != a.status || b["error"] != http.StatusText(a.status) || b["message"] == nil {
		t.Fatalf("%q: status %d without the error shape: %s", where, a.status, a.raw)
	}
	var msgs []string
	switch sh {
	case minimalErrors:
		if len(b) != 3 {
			t.Fatalf("%q: status %d: minimal error shape has extra fields: %s", where, a.status, a.raw)
		}
		m, _ := b["message"].(string)
		msgs = []string{m}
	case extendedErrors:
		if b["code"] == nil || b["errorId"] == nil || b["path"] != "/public"+rq.path || b["userMessage"] == nil {
			t.Fatalf("%q: status %d without the extended shape: %s", where, a.status, a.raw)
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
		t.Fatalf("%q: status %d with an empty message: %s", where, a.status, a.raw)
	}
	if a.status != http.StatusBadRequest || len(fields) == 0 {
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
		keys = append(keys, httpapi.JoinPath("", k))
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
