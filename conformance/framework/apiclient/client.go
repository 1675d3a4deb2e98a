package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Wire header names used by the suite.
const (
	// HeaderCert carries the URL-encoded PEM client certificate on the token endpoint.
	HeaderCert = "X-SSL-Client-Cert"
	// HeaderScenario selects a forced outcome on a sandbox.
	HeaderScenario = "X-Sandbox-Scenario"
	// HeaderAdminToken authenticates control-plane requests when the sandbox requires it.
	HeaderAdminToken = "X-Sandbox-Admin-Token"
	// HeaderWorkspace names the workspace a request acts on.
	HeaderWorkspace = "X-Sandbox-Workspace"
)

// CredentialToken is the token a Client with Credential headers gives for
// its configured account: a request sent with it carries those headers in
// place of an Authorization header. It is no JWT, and never goes on the wire.
const CredentialToken = "pixsandbox-credential-headers"

// TokenPath is the path of the token endpoint.
const TokenPath = "/api/auth/token"

// MaxBody bounds how much of a response body the client keeps.
const MaxBody = 8 << 20

// Response is one HTTP answer as the suite sees it: status, headers and the
// whole body. Method and Path name the request that produced it, for failure
// messages.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers.
	Header http.Header
	// Body is the raw response body.
	Body []byte
	// Method is the request method.
	Method string
	// Path is the request path, relative to the target.
	Path string
}

// JSON decodes the body as a JSON object, numbers as json.Number. It returns
// nil when the body is not a JSON object.
func (r *Response) JSON() map[string]any {
	m, _ := r.value().(map[string]any)
	return m
}

// Field returns the value at a dotted path of the JSON body, such as
// "data[0].balanceAmount.available" or "details.hint"; numbers are
// json.Number. The boolean is false when the body is not JSON or the path does
// not exist.
func (r *Response) Field(path string) (any, bool) {
	return Lookup(r.value(), path)
}

func (r *Response) value() any {
	if r == nil {
		return nil
	}
	v, err := DecodeJSON(r.Body)
	if err != nil {
		return nil
	}
	return v
}

// String summarises the response for failure messages: request, status and
// the beginning of the body.
func (r *Response) String() string {
	if r == nil {
		return "<nil response>"
	}
	return fmt.Sprintf("%s %s -> %d %s", r.Method, r.Path, r.Status, Snippet(r.Body))
}

// Snippet returns body as text, cut to 2 KiB, for failure messages.
func Snippet(body []byte) string {
	const limit = 2048
	if len(body) == 0 {
		return "<empty body>"
	}
	if len(body) > limit {
		return string(body[:limit]) + "…"
	}
	return string(body)
}

// DecodeJSON decodes one JSON value with numbers as json.Number, rejecting
// trailing data.
func DecodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Lookup walks a decoded JSON value along a dotted path with [i] indexes:
// "a.b[2].c", "[0].id". An empty path returns v itself.
func Lookup(v any, path string) (any, bool) {
	cur := v
	rest := path
	for rest != "" {
		switch {
		case rest[0] == '.':
			rest = rest[1:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, false
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return nil, false
			}
			arr, ok := cur.([]any)
			if !ok || i < 0 || i >= len(arr) {
				return nil, false
			}
			cur = arr[i]
			rest = rest[end+1:]
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			obj, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			cur, ok = obj[rest[:end]]
			if !ok {
				return nil, false
			}
			rest = rest[end:]
		}
	}
	return cur, true
}

// TokenRequest is one request to POST /api/auth/token. Every part is sent as
// given, so that negative checks can break exactly one of them.
type TokenRequest struct {
	// CertHeader is the value of X-SSL-Client-Cert, sent verbatim; nil omits
	// the header. Build it with EncodeCertHeader.
	CertHeader *string
	// Body is the raw request body.
	Body []byte
	// Scenario, when not empty, is sent as X-Sandbox-Scenario.
	Scenario string
}

// TokenBody returns the JSON body {"clientId":…,"clientSecret":…}.
func TokenBody(clientID, clientSecret string) []byte {
	b, _ := json.Marshal(map[string]string{"clientId": clientID, "clientSecret": clientSecret})
	return b
}

// Client is a typed HTTP client of the PIX API under test.
type Client struct {
	// BaseURL is the target's base URL, without a trailing slash.
	BaseURL string
	// HTTP performs the requests. It must not follow redirects, so that the
	// suite sees the target's own statuses (NewClient arranges that).
	HTTP *http.Client
	// TokenPath is the path of the token route; empty means TokenPath.
	TokenPath string
	// Headers are sent with every request, before the request's own (which
	// replace them): X-Sandbox-Workspace when the suite runs in a workspace,
	// and the run's extra headers (-header).
	Headers http.Header
	// Credential, when not empty, is how the configured account
	// authenticates instead of a bearer token (-auth header): these headers
	// go on exactly the requests sent with the token CredentialToken, and on
	// no other, so that a request sent with no or another token carries no
	// credential.
	Credential http.Header
}

// NewClient returns a Client for baseURL whose requests time out after
// timeout and never follow redirects. It has its own connection pool (a clone
// of http.DefaultTransport), which CloseIdleConnections empties.
func NewClient(baseURL string, timeout time.Duration) *Client {
	return NewWithTransport(baseURL, timeout, http.DefaultTransport.(*http.Transport).Clone())
}

func NewWithTransport(baseURL string, timeout time.Duration, t *http.Transport) *Client {
	return &Client{
		BaseURL: strings.TrimRight(baseURL, "/"),
		HTTP: &http.Client{
			Transport: t,
			Timeout:   timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
	}
}

// CloseIdleConnections closes the client's idle keep-alive connections. The
// suite calls it when it ends, so that a target shutting down gracefully right
// afterwards (an in-process simulator) does not wait for connections the
// client opened but never used.
func (c *Client) CloseIdleConnections() { c.HTTP.CloseIdleConnections() }

// Token sends req to the token route (POST TokenPath, by default
// POST /api/auth/token) with Content-Type application/json.
func (c *Client) Token(ctx context.Context, req TokenRequest) (*Response, error) {
	h := http.Header{}
	if req.CertHeader != nil {
		h.Set(HeaderCert, *req.CertHeader)
	}
	if req.Scenario != "" {
		h.Set(HeaderScenario, req.Scenario)
	}
	body := req.Body
	if body == nil {
		body = []byte{}
	}
	path := c.TokenPath
	if path == "" {
		path = TokenPath
	}
	return c.Do(ctx, http.MethodPost, path, "", body, h)
}

// Do sends one request to the target. path is appended to BaseURL and may
// carry a query. A non-empty token is sent as "Authorization: Bearer <token>",
// except CredentialToken on a Client with Credential headers, which sends
// those headers instead.
// A non-nil body is sent with Content-Type application/json unless headers
// sets another one. headers may be nil. The error reports transport failures
// only; every HTTP status is a Response.
func (c *Client) Do(ctx context.Context, method, path, token string, body []byte, headers http.Header) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	credential := token == CredentialToken && len(c.Credential) > 0
	if token != "" && !credential {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, vs := range c.Headers {
		req.Header[k] = append([]string(nil), vs...)
	}
	if credential {
		for k, vs := range c.Credential {
			req.Header[k] = append([]string(nil), vs...)
		}
	}
	for k, vs := range headers {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading body: %w", method, path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b, Method: method, Path: path}, nil
}

// EncodeCertHeader encodes a PEM certificate for X-SSL-Client-Cert as the
// specification requires ("Authentication", rule 3): RFC 3986
// percent-encoding of every byte except the unreserved characters
// A-Z a-z 0-9 - . _ ~, so '+' becomes %2B, space %20 and newline %0A.
func EncodeCertHeader(pem string) string {
	return percentEncode(pem, "%2B")
}

// BadPlusAsSpace encodes pem like EncodeCertHeader but sends each '+' as %20,
// the classic form-encoding mistake: the target decodes a space where the
// base64 had '+', so the certificate cannot be parsed.
func BadPlusAsSpace(pem string) string {
	return percentEncode(pem, "%20")
}

// RawPlus encodes pem like EncodeCertHeader but leaves each '+' literal; a
// target that URL-decodes the header reads a space there.
func RawPlus(pem string) string {
	return percentEncode(pem, "+")
}

func percentEncode(s, plus string) string {
	const hexdigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) * 3 / 2)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '+':
			b.WriteString(plus)
		case 'A' <= ch && ch <= 'Z', 'a' <= ch && ch <= 'z', '0' <= ch && ch <= '9',
			ch == '-', ch == '.', ch == '_', ch == '~':
			b.WriteByte(ch)
		default:
			b.WriteByte('%')
			b.WriteByte(hexdigits[ch>>4])
			b.WriteByte(hexdigits[ch&15])
		}
	}
	return b.String()
}
