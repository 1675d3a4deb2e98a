package apiclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

const pemWithPlus = "-----BEGIN CERTIFICATE-----\nMIIB+zCC/a==\n-----END CERTIFICATE-----\n"

func TestEncodeCertHeader(t *testing.T) {
	got := EncodeCertHeader(pemWithPlus)
	want := "-----BEGIN%20CERTIFICATE-----%0AMIIB%2BzCC%2Fa%3D%3D%0A-----END%20CERTIFICATE-----%0A"
	if got != want {
		t.Fatalf("EncodeCertHeader = %q, want %q", got, want)
	}
	// The target decodes with url.QueryUnescape; the round trip must be exact.
	if dec, err := url.QueryUnescape(got); err != nil || dec != pemWithPlus {
		t.Fatalf("QueryUnescape(EncodeCertHeader) = %q, %v", dec, err)
	}
	for _, c := range "~-._" {
		if s := EncodeCertHeader(string(c)); s != string(c) {
			t.Errorf("unreserved %q encoded as %q", c, s)
		}
	}
}

func TestBadPlusEncodings(t *testing.T) {
	bad := BadPlusAsSpace(pemWithPlus)
	if strings.Contains(bad, "%2B") || !strings.Contains(bad, "MIIB%20zCC") {
		t.Errorf("BadPlusAsSpace = %q, want '+' as %%20", bad)
	}
	raw := RawPlus(pemWithPlus)
	if !strings.Contains(raw, "MIIB+zCC") {
		t.Errorf("RawPlus = %q, want a literal '+'", raw)
	}
	for name, s := range map[string]string{"BadPlusAsSpace": bad, "RawPlus": raw} {
		dec, err := url.QueryUnescape(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(dec, "+") || !strings.Contains(dec, "MIIB zCC") {
			t.Errorf("%s decodes to %q, want a space where '+' was", name, dec)
		}
	}
}

func TestLookup(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"data":[{"eventDate":"d","balanceAmount":{"available":10.50}}],"list":[[1,2]],"n":null}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want any
		ok   bool
	}{
		{path: "data[0].eventDate", want: "d", ok: true},
		{path: "data[0].balanceAmount.available", want: json.Number("10.50"), ok: true},
		{path: "list[0][1]", want: json.Number("2"), ok: true},
		{path: "n", want: nil, ok: true},
		{path: "data[1]", ok: false},
		{path: "data[-1]", ok: false},
		{path: "data[x]", ok: false},
		{path: "data[0", ok: false},
		{path: "data.eventDate", ok: false},
		{path: "missing", ok: false},
		{path: "data[0].eventDate.deeper", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, ok := Lookup(v, tt.path)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Fatalf("Lookup(%q) = %#v, %v; want %#v, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
	if got, ok := Lookup([]any{"a"}, "[0]"); !ok || got != "a" {
		t.Errorf(`Lookup of a top-level array "[0]" = %v, %v`, got, ok)
	}
}

func TestResponse_JSON(t *testing.T) {
	r := &Response{Body: []byte(`{"a":1.10}`)}
	if got := r.JSON()["a"]; got != json.Number("1.10") {
		t.Errorf(`JSON()["a"] = %#v, want json.Number("1.10")`, got)
	}
	for _, body := range []string{`[1]`, `nope`, `{"a":1} {"b":2}`, ``} {
		if m := (&Response{Body: []byte(body)}).JSON(); m != nil {
			t.Errorf("JSON() of %q = %v, want nil", body, m)
		}
	}
	var nilResp *Response
	if _, ok := nilResp.Field("a"); ok {
		t.Error("Field on a nil response: want false")
	}
}

// echo is a test target that reports what it received.
func echo(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := map[string]any{}
		for _, k := range []string{"Authorization", "Content-Type", "X-Ssl-Client-Cert", "X-Sandbox-Scenario", "X-Sandbox-Admin-Token", "X-Idempotency-Key"} {
			if v, ok := r.Header[k]; ok {
				h[k] = v[0]
			}
		}
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot)
		_ = json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "uri": r.URL.RequestURI(), "body": string(b), "headers": h})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClient_Do(t *testing.T) {
	srv := echo(t)
	c := NewClient(srv.URL+"/", 5*time.Second)
	ctx := context.Background()

	r, err := c.Do(ctx, http.MethodPost, "/dict/pix?x=1", "tok", []byte(`{"a":1}`), http.Header{"X-Idempotency-Key": {"k"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusTeapot || r.Method != http.MethodPost || r.Path != "/dict/pix?x=1" {
		t.Fatalf("response = %s", r)
	}
	for path, want := range map[string]string{
		"uri":                       "/dict/pix?x=1",
		"body":                      `{"a":1}`,
		"headers.Authorization":     "Bearer tok",
		"headers.Content-Type":      "application/json",
		"headers.X-Idempotency-Key": "k",
	} {
		if got, _ := r.Field(path); got != want {
			t.Errorf("%s = %v, want %q", path, got, want)
		}
	}

	r, err = c.Do(ctx, http.MethodGet, "/accounts/balances", "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"headers.Authorization", "headers.Content-Type"} {
		if v, ok := r.Field(h); ok {
			t.Errorf("%s sent (%v) without a token or body", h, v)
		}
	}

	r, err = c.Do(ctx, http.MethodGet, "/redirect", "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusFound {
		t.Errorf("redirect status = %d, want 302 (not followed)", r.Status)
	}
}

func TestClient_Token(t *testing.T) {
	srv := echo(t)
	c := NewClient(srv.URL, 5*time.Second)
	ctx := context.Background()
	h := "a%2Bb"
	r, err := c.Token(ctx, TokenRequest{CertHeader: &h, Body: TokenBody("id", "se\"cret"), Scenario: "PUB_AUTH_UPSTREAM_ERROR"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"method":                     "POST",
		"uri":                        "/api/auth/token",
		"body":                       `{"clientId":"id","clientSecret":"se\"cret"}`,
		"headers.X-Ssl-Client-Cert":  "a%2Bb",
		"headers.X-Sandbox-Scenario": "PUB_AUTH_UPSTREAM_ERROR",
		"headers.Content-Type":       "application/json",
	} {
		if got, _ := r.Field(path); got != want {
			t.Errorf("%s = %v, want %q", path, got, want)
		}
	}
	r, err = c.Token(ctx, TokenRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Field("headers.X-Ssl-Client-Cert"); ok {
		t.Errorf("X-SSL-Client-Cert sent (%v) with a nil CertHeader", v)
	}
}

func TestClient_TransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	if _, err := NewClient(srv.URL, time.Second).Do(context.Background(), http.MethodGet, "/", "", nil, nil); err == nil {
		t.Fatal("Do against a closed server: want an error")
	}
}

// A Client with Credential headers sends them, and no Authorization header,
// on a request made with CredentialToken, and never on a request made with
// no token or another one; Headers go on every request.
func TestClient_CredentialHeaders(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
	}))
	defer srv.Close()
	c := NewClient(srv.URL, 5*time.Second)
	c.Headers = http.Header{"X-Extra": {"e"}}
	c.Credential = http.Header{"Mocked-Token": {"secret"}}
	for _, tok := range []string{CredentialToken, "", "not-a-jwt"} {
		if _, err := c.Do(context.Background(), http.MethodGet, "/", tok, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if h := got[0]; h.Get("Mocked-Token") != "secret" || h.Get("Authorization") != "" || h.Get("X-Extra") != "e" {
		t.Errorf("with CredentialToken: headers %v", h)
	}
	if h := got[1]; h.Get("Mocked-Token") != "" || h.Get("Authorization") != "" || h.Get("X-Extra") != "e" {
		t.Errorf("without a token: headers %v", h)
	}
	if h := got[2]; h.Get("Mocked-Token") != "" || h.Get("Authorization") != "Bearer not-a-jwt" {
		t.Errorf("with another token: headers %v", h)
	}
}
