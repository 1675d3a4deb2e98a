// Package sandboxclient calls a running simulator over HTTP: the control plane
// (/_sandbox) and, for the few calls a client makes there, the contract. It is
// what the pixsandbox CLI and the console's Go tests share: the base URL, the
// admin token header, JSON calls that expect given statuses, errors that read
// the server's error shapes, and typed calls of the control plane.
//
// It sees the simulator as any client does, through its HTTP answers.
package sandboxclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// AdminHeader carries the server's --admin-token on /_sandbox requests.
const AdminHeader = "X-Sandbox-Admin-Token"

// WorkspaceHeader names the workspace a /_sandbox request acts on
// (docs/workspaces.md).
const WorkspaceHeader = "X-Sandbox-Workspace"

// Client calls one simulator. Its errors are *Unreachable (no HTTP answer)
// and *HTTPError (an answer with an unexpected status).
type Client struct {
	Base       string // e.g. http://127.0.0.1:8080, no trailing slash
	AdminToken string // sent as AdminHeader on /_sandbox requests when set
	UserAgent  string
	HTTP       *http.Client
	// WorkspaceID, when set, is sent as WorkspaceHeader on the /_sandbox
	// requests outside /_sandbox/workspaces (whose paths name their
	// workspace), so the control plane acts on that workspace. PIX API
	// requests need no header: a workspace's token acts there by itself.
	WorkspaceID string
}

// New returns a client of the simulator at base. Its timeouts allow a clock
// move that waits for its jobs (the server allows 5 minutes).
func New(base, adminToken string) *Client {
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		// Wall time: I/O deadlines only.
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		ResponseHeaderTimeout: 6 * time.Minute,
	}
	return &Client{Base: strings.TrimRight(base, "/"), AdminToken: adminToken, UserAgent: "pixsandbox-cli",
		HTTP: &http.Client{Transport: tr, Timeout: 7 * time.Minute}}
}

// Response is an HTTP answer.
type Response struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
}

// Do sends a request with a JSON body (nil: none) and reads the answer, whatever
// its status. The admin token goes on /_sandbox requests only; header adds or
// replaces headers.
func (c *Client) Do(ctx context.Context, method, path string, body any, header map[string]string) (*Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.AdminToken != "" && IsSandboxRoute(path) {
		req.Header.Set(AdminHeader, c.AdminToken)
	}
	if c.WorkspaceID != "" && IsSandboxRoute(path) && !isWorkspaceRoute(path) {
		req.Header.Set(WorkspaceHeader, c.WorkspaceID)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, c.transportError(ctx, err)
	}
	return &Response{Method: method, Path: path, Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// Call is Do, then an *HTTPError unless the answer has one of the ok statuses.
func (c *Client) Call(ctx context.Context, method, path string, body any, header map[string]string, ok ...int) (*Response, error) {
	r, err := c.Do(ctx, method, path, body, header)
	if err != nil {
		return nil, err
	}
	for _, s := range ok {
		if r.Status == s {
			return r, nil
		}
	}
	return nil, c.HTTPError(r)
}

// CallJSON is Call, then the body decoded into out (numbers kept as written).
func (c *Client) CallJSON(ctx context.Context, method, path string, body any, header map[string]string, out any, ok ...int) (*Response, error) {
	r, err := c.Call(ctx, method, path, body, header, ok...)
	if err != nil {
		return nil, err
	}
	if err := r.Decode(out); err != nil {
		return nil, err
	}
	return r, nil
}

// Decode decodes the body into out, with an error that names the request.
func (r *Response) Decode(out any) error {
	if err := DecodeJSON(r.Body, out); err != nil {
		return fmt.Errorf("%s %s answered %d with a body that is not the expected JSON (%v): %s", r.Method, r.Path, r.Status, err, Excerpt(r.Body))
	}
	return nil
}

// DecodeJSON decodes b into out, numbers in interface values kept as
// json.Number.
func DecodeJSON(b []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(out)
}

// IsSandboxRoute reports whether path is on the control plane.
func IsSandboxRoute(path string) bool {
	return path == "/_sandbox" || strings.HasPrefix(path, "/_sandbox/")
}

// isWorkspaceRoute reports whether path is under /_sandbox/workspaces, whose
// routes name their workspace in the path (a header naming another would be
// refused).
func isWorkspaceRoute(path string) bool {
	path, _, _ = strings.Cut(path, "?")
	return path == workspacesPath || strings.HasPrefix(path, workspacesPath+"/")
}

// SandboxURL is the URL of control route path (/_sandbox/...) in the client's
// workspace: under /_sandbox/workspaces/{id} when one is set, since a command
// printed for curl carries no WorkspaceHeader.
func (c *Client) SandboxURL(path string) string {
	if c.WorkspaceID == "" || !IsSandboxRoute(path) || isWorkspaceRoute(path) {
		return c.Base + path
	}
	return c.Base + workspacePath(c.WorkspaceID) + strings.TrimPrefix(path, "/_sandbox")
}

// Unreachable is a request that got no HTTP answer.
type Unreachable struct {
	Base string
	Err  error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("cannot reach the simulator at %s (%v).\n"+
		"Start it in another terminal with `make run` (or `pixsandbox serve`), "+
		"or point --url (PIXSANDBOX_URL) at the address it prints.", e.Base, e.Err)
}

func (e *Unreachable) Unwrap() error { return e.Err }

func (c *Client) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns) {
		var cause error = op
		if dns != nil {
			cause = dns
		}
		return &Unreachable{Base: c.Base, Err: cause}
	}
	return fmt.Errorf("request to %s failed: %w", c.Base, err)
}

// HTTPError is an answer with an unexpected status, with what its body says
// in any of the server's error shapes (the control plane's minimal
// {"message"}, the token route's, the contract's extended one).
type HTTPError struct {
	Method, Path string
	Status       int
	Message      string // the body's message (an extended error's list joined with "; ")
	Code         string // code or errorCode of the token and extended shapes
	Hint         string // what to do about it
	Body         []byte
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s answered %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Code != "" && e.Code != "HTTP_ERROR" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\n%s", e.Hint)
	}
	return b.String()
}

// IsStatus reports whether err is an *HTTPError with the given status.
func IsStatus(err error, status int) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status == status
}

// errorBody is the union of the server's error shapes.
type errorBody struct {
	Message   any    `json:"message"` // a string, or a list of strings (extended shape)
	Code      string `json:"code"`
	ErrorCode string `json:"errorCode"`
	Details   struct {
		Hint string `json:"hint"`
	} `json:"details"`
}

// ParseError reads an error body: its message, code and hint. A body that is
// not JSON is its own message.
func ParseError(b []byte) (message, code, hint string) {
	var e errorBody
	if json.Unmarshal(b, &e) != nil {
		return Excerpt(b), "", ""
	}
	switch m := e.Message.(type) {
	case string:
		message = m
	case []any:
		parts := make([]string, 0, len(m))
		for _, p := range m {
			parts = append(parts, fmt.Sprint(p))
		}
		message = strings.Join(parts, "; ")
	}
	code = e.ErrorCode
	if code == "" {
		code = e.Code
	}
	return message, code, e.Details.Hint
}

// HTTPError is the error of an answer with an unexpected status, with a hint
// for the control plane's answers that mean a setup problem.
func (c *Client) HTTPError(r *Response) *HTTPError {
	e := &HTTPError{Method: r.Method, Path: r.Path, Status: r.Status, Body: r.Body}
	e.Message, e.Code, e.Hint = ParseError(r.Body)
	sandbox := IsSandboxRoute(r.Path)
	switch {
	case sandbox && r.Status == http.StatusUnauthorized && c.AdminToken == "":
		e.Hint = "The server runs with --admin-token: pass the same value with --admin-token or PIXSANDBOX_ADMIN_TOKEN."
	case sandbox && r.Status == http.StatusUnauthorized && (c.WorkspaceID != "" || strings.HasPrefix(r.Path, workspacesPath+"/")):
		e.Hint = "The --admin-token given (or PIXSANDBOX_ADMIN_TOKEN) is neither the server's --admin-token nor the workspace's own adminToken."
	case sandbox && r.Status == http.StatusUnauthorized:
		e.Hint = "The --admin-token given (or PIXSANDBOX_ADMIN_TOKEN) is not the server's --admin-token."
	case sandbox && r.Status == http.StatusNotFound && strings.HasPrefix(e.Message, "no route") && strings.HasSuffix(r.Path, "/snapshot"):
		e.Hint = "This server cannot take a workspace's snapshot: it is a version older than GET /_sandbox/workspaces/{id}/snapshot."
	case sandbox && r.Status == http.StatusNotFound && strings.HasPrefix(e.Message, "no route"):
		e.Hint = "This server has no control plane: it was started with --control-plane=false, or --url is not a pixsandbox."
	case sandbox && r.Status == http.StatusNotFound && c.WorkspaceID != "" && strings.HasPrefix(e.Message, "workspace "):
		e.Hint = "No workspace has the id given with --workspace (PIXSANDBOX_WORKSPACE): it expired or was deleted; pixsandbox workspace list shows those there are."
	}
	return e
}

// Excerpt is the start of a body for a message.
func Excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
