package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/proxy"
	"github.com/pixsandbox/pixsandbox/fixtures"
)

// syncBuffer is a bytes.Buffer safe for the proxy's concurrent log lines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// client sends requests to a base URL and remembers which routes of the
// contract it called.
type client struct {
	t      testing.TB
	base   string
	token  string
	http   *http.Client
	mu     sync.Mutex
	routes map[string]bool
}

func newClient(t testing.TB, base string) *client {
	return &client{t: t, base: base, http: &http.Client{Transport: &http.Transport{DisableCompression: true}}, routes: map[string]bool{}}
}

type answer struct {
	Status int
	Header http.Header
	Body   []byte
}

func (a answer) json(t testing.TB) map[string]any {
	t.Helper()
	v, err := apiclient.DecodeJSON(a.Body)
	if err != nil {
		t.Fatalf("answer %d is not JSON: %s", a.Status, a.Body)
	}
	m, _ := v.(map[string]any)
	return m
}

func (a answer) str(t testing.TB, path string) string {
	t.Helper()
	v, ok := apiclient.Lookup(a.json(t), path)
	if !ok {
		t.Fatalf("answer has no %s: %s", path, a.Body)
	}
	return fmt.Sprint(v)
}

// do sends a request; headers are "Name: value" pairs; the client's token is
// sent unless a header sets Authorization (an empty value sends none).
func (c *client) do(method, path, body string, headers ...string) answer {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		if value == "" {
			req.Header.Del(name)
			continue
		}
		req.Header.Set(name, value)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	if rt, _ := contract.Match(method, req.URL.Path); rt != nil {
		c.mu.Lock()
		c.routes[rt.String()] = true
		c.mu.Unlock()
	}
	return answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// expect fails the test unless a has status want.
func expect(t testing.TB, a answer, want int, what string) answer {
	t.Helper()
	if a.Status != want {
		t.Fatalf("%s: status %d, want %d: %s", what, a.Status, want, a.Body)
	}
	return a
}

// tokenFor gets a token of fixture account i.
func tokenFor(t testing.TB, c *client, set *fixtures.Set, i int) string {
	t.Helper()
	a := set.Accounts[i]
	pem, err := set.ReadFile(a.Certificate)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret})
	r := expect(t, c.do("POST", "/api/auth/token", string(body), "X-SSL-Client-Cert: "+apiclient.EncodeCertHeader(string(pem)), "Authorization: "), 201, "token")
	return r.str(t, "access_token")
}

// keyOf returns fixture account i's key of type typ.
func keyOf(t testing.TB, set *fixtures.Set, i int, typ string) string {
	t.Helper()
	for _, k := range set.Accounts[i].PixKeys {
		if k.Type == typ {
			return k.Key
		}
	}
	t.Fatalf("fixture account %d has no %s key", i, typ)
	return ""
}

// byKind splits findings by kind, notices apart.
func byKind(fs []contract.Finding) map[string][]contract.Finding {
	out := map[string][]contract.Finding{}
	for _, f := range fs {
		k := string(f.Kind)
		if f.Notice {
			k = "notice"
		}
		out[k] = append(out[k], f)
	}
	return out
}

func lines(fs []contract.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  ")
		b.WriteString(proxy.Line(f))
	}
	return b.String()
}
