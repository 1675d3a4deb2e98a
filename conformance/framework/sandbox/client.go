package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Client is a small client of the /_sandbox control plane. Its typed methods
// return a *StatusError when the control plane answers an unexpected status.
type Client struct {
	// Client sends the requests.
	Client *apiclient.Client
	// AdminToken, when not empty, is sent as X-Sandbox-Admin-Token.
	AdminToken string
	// DenyClockMoves, when not empty, is why this client refuses to move the
	// simulation clock or reset the sandbox: Do returns an error saying so
	// instead of sending POST /_sandbox/clock, POST /_sandbox/clock/advance or
	// POST /_sandbox/reset.
	DenyClockMoves string
	// Workspace, when not empty, is the workspace the client acts on: every
	// /_sandbox/... path is sent as /_sandbox/workspaces/{Workspace}/...
	Workspace string
	// AccountName, when not empty, is the holder's name of the accounts
	// CreateAccount creates without a name of their own, so that a person
	// looking at a shared sandbox can tell the suite's accounts apart.
	AccountName string
}

// movesClock reports whether a control-plane request moves the simulation
// clock or resets the sandbox.
func movesClock(method, path string) bool {
	if method == http.MethodGet || method == http.MethodHead {
		return false
	}
	p, _, _ := strings.Cut(path, "?")
	return p == "/_sandbox/clock" || strings.HasPrefix(p, "/_sandbox/clock/") || p == "/_sandbox/reset"
}

// New returns a control-plane client that sends its requests through c.
func New(c *apiclient.Client, adminToken string) *Client {
	return &Client{Client: c, AdminToken: adminToken}
}

// StatusError is an unexpected answer of the control plane.
type StatusError struct {
	// Want is the status the call expected.
	Want int
	// Response is what the control plane answered.
	Response *apiclient.Response
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("control plane: want status %d: %s", e.Want, e.Response)
}

// Do sends a control-plane request: body, unless nil, is encoded as JSON, and
// the admin token is added. path is the full path, e.g. "/_sandbox/clock".
func (s *Client) Do(ctx context.Context, method, path string, body any) (*apiclient.Response, error) {
	if s.DenyClockMoves != "" && movesClock(method, path) {
		return nil, fmt.Errorf("control plane: %s %s not sent: %s", method, path, s.DenyClockMoves)
	}
	if rest, ok := strings.CutPrefix(path, "/_sandbox/"); ok && s.Workspace != "" && !strings.HasPrefix(rest, "workspaces") {
		path = "/_sandbox/workspaces/" + s.Workspace + "/" + rest
	}
	var raw []byte
	if body != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(body); err != nil {
			return nil, fmt.Errorf("control plane: encode %s %s body: %w", method, path, err)
		}
		raw = bytes.TrimRight(buf.Bytes(), "\n")
	}
	var h http.Header
	if s.AdminToken != "" {
		h = http.Header{apiclient.HeaderAdminToken: {s.AdminToken}}
	}
	if strings.HasPrefix(path, "/_sandbox/workspaces") {
		// The path names the workspace: no default X-Sandbox-Workspace.
		if h == nil {
			h = http.Header{}
		}
		h[apiclient.HeaderWorkspace] = nil
	}
	return s.Client.Do(ctx, method, path, "", raw, h)
}

// call sends a request, requires status want and decodes the answer into out.
func (s *Client) call(ctx context.Context, method, path string, body any, want int, out any) error {
	r, err := s.Do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if r.Status != want {
		return &StatusError{Want: want, Response: r}
	}
	if err := json.Unmarshal(r.Body, out); err != nil {
		return fmt.Errorf("control plane: decode %s %s: %w (%s)", method, path, err, apiclient.Snippet(r.Body))
	}
	return nil
}

// ClockState is the simulation clock as the control plane reports it.
type ClockState struct {
	// Now is the simulation time.
	Now time.Time `json:"now"`
	// Mode is "real" (wall time plus an offset) or "virtual" (moves only when
	// advanced).
	Mode string `json:"mode"`
	// JobsRun is how many due jobs an advance or set ran; zero for Clock.
	JobsRun int `json:"jobsRun"`
}

// Virtual reports whether the clock moves only when advanced.
func (c ClockState) Virtual() bool { return c.Mode == "virtual" }

// Clock reads the simulation clock (GET /_sandbox/clock).
func (s *Client) Clock(ctx context.Context) (ClockState, error) {
	var c ClockState
	err := s.call(ctx, http.MethodGet, "/_sandbox/clock", nil, http.StatusOK, &c)
	return c, err
}

// Advance moves the simulation clock forward by seconds, running every job
// that falls due and waiting for the webhook attempts due on the way
// (POST /_sandbox/clock/advance {"seconds":N,"wait":"webhooks"}).
func (s *Client) Advance(ctx context.Context, seconds int64) (ClockState, error) {
	var c ClockState
	err := s.call(ctx, http.MethodPost, "/_sandbox/clock/advance", map[string]any{"seconds": seconds, "wait": "webhooks"}, http.StatusOK, &c)
	return c, err
}

// AdvanceDuration moves the simulation clock forward by a Go duration text
// such as "30m", as Advance does (POST /_sandbox/clock/advance
// {"duration":d,"wait":"webhooks"}).
func (s *Client) AdvanceDuration(ctx context.Context, d string) (ClockState, error) {
	var c ClockState
	err := s.call(ctx, http.MethodPost, "/_sandbox/clock/advance", map[string]string{"duration": d, "wait": "webhooks"}, http.StatusOK, &c)
	return c, err
}

// SetClock moves the simulation clock to now, which must not be in its past,
// as Advance does (POST /_sandbox/clock {"now":RFC3339,"wait":"webhooks"}).
func (s *Client) SetClock(ctx context.Context, now time.Time) (ClockState, error) {
	var c ClockState
	err := s.call(ctx, http.MethodPost, "/_sandbox/clock", map[string]string{"now": now.UTC().Format(time.RFC3339Nano), "wait": "webhooks"}, http.StatusOK, &c)
	return c, err
}

// AccountOptions are the optional fields of a new sandbox account.
type AccountOptions struct {
	// Name is the holder's name; empty lets the sandbox choose.
	Name string
	// Document is the holder's CPF or CNPJ digits; empty lets the sandbox choose.
	Document string
	// Balance is the opening available balance as decimal text with at most
	// two places, e.g. "1234.56"; empty lets the sandbox choose. It is sent as a
	// JSON number.
	Balance string
}

// PixKey is a PIX key of a sandbox account.
type PixKey struct {
	// Type is the key type.
	Type string `json:"type"`
	// Key is the key itself.
	Key string `json:"key"`
}

// Account is a sandbox account with its credentials.
type Account struct {
	// ID is the account id (a JSON number or string, kept as text).
	ID ID `json:"id"`
	// Name is the holder's name.
	Name string `json:"name"`
	// Document is the holder's CPF or CNPJ.
	Document string `json:"document"`
	// ClientID is the account's clientId.
	ClientID string `json:"clientId"`
	// ClientSecret is the account's clientSecret.
	ClientSecret string `json:"clientSecret"`
	// Certificate is a PEM certificate registered and linked to the account.
	Certificate string `json:"certificate"`
	// PrivateKey is the certificate's PEM private key.
	PrivateKey string `json:"privateKey"`
	// Balance is the opening balance as decimal text.
	Balance json.Number `json:"balance"`
	// PixKeys are the account's PIX keys.
	PixKeys []PixKey `json:"pixKeys"`
}

// CreateAccount creates an isolated account with fresh credentials and a
// registered, linked certificate (POST /_sandbox/accounts).
func (s *Client) CreateAccount(ctx context.Context, opts AccountOptions) (*Account, error) {
	body := map[string]any{}
	if opts.Name == "" {
		opts.Name = s.AccountName
	}
	if opts.Name != "" {
		body["name"] = opts.Name
	}
	if opts.Document != "" {
		body["document"] = opts.Document
	}
	if opts.Balance != "" {
		if _, err := apiclient.Cents(opts.Balance); err != nil {
			return nil, fmt.Errorf("CreateAccount: balance: %w", err)
		}
		body["balance"] = json.Number(opts.Balance)
	}
	var a Account
	if err := s.call(ctx, http.MethodPost, "/_sandbox/accounts", body, http.StatusCreated, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// CertificateOptions are the optional fields of a certificate added to an
// account. Zero times let the sandbox choose (valid from one hour ago to 365
// days ahead on the simulation clock).
type CertificateOptions struct {
	// NotBefore is the start of validity.
	NotBefore time.Time
	// NotAfter is the end of validity.
	NotAfter time.Time
	// Revoked registers the certificate as revoked.
	Revoked bool
}

// Certificate is a certificate the sandbox registered and linked to an account.
type Certificate struct {
	// Certificate is the PEM certificate.
	Certificate string `json:"certificate"`
	// PrivateKey is its PEM private key.
	PrivateKey string `json:"privateKey"`
	// Fingerprint is the lowercase hex SHA-256 of the DER certificate.
	Fingerprint string `json:"fingerprint"`
	// NotBefore is the start of validity.
	NotBefore time.Time `json:"notBefore"`
	// NotAfter is the end of validity.
	NotAfter time.Time `json:"notAfter"`
	// Revoked reports whether it is registered as revoked.
	Revoked bool `json:"revoked"`
}

// AddCertificate issues a certificate from the sandbox CA, registered and
// linked to the account (POST /_sandbox/accounts/{id}/certificates).
func (s *Client) AddCertificate(ctx context.Context, accountID string, opts CertificateOptions) (*Certificate, error) {
	body := map[string]any{}
	if !opts.NotBefore.IsZero() {
		body["notBefore"] = opts.NotBefore.UTC().Format(time.RFC3339)
	}
	if !opts.NotAfter.IsZero() {
		body["notAfter"] = opts.NotAfter.UTC().Format(time.RFC3339)
	}
	if opts.Revoked {
		body["revoked"] = true
	}
	var c Certificate
	path := "/_sandbox/accounts/" + url.PathEscape(accountID) + "/certificates"
	if err := s.call(ctx, http.MethodPost, path, body, http.StatusCreated, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// JobOptions describe a job to schedule on the sandbox agenda.
type JobOptions struct {
	// Kind is the job kind; "marker" is a job that does nothing but run.
	Kind string
	// Seconds is the delay from now, used when Duration is empty.
	Seconds int64
	// Duration is the delay as Go duration text, e.g. "10s".
	Duration string
	// Note is free text kept with the job.
	Note string
}

// Job is a job on the sandbox agenda.
type Job struct {
	// ID is the job id.
	ID ID `json:"id"`
	// Kind is the job kind.
	Kind string `json:"kind"`
	// Due is when the job falls due on the simulation clock.
	Due time.Time `json:"due"`
	// Status is "scheduled" or "done".
	Status string `json:"status"`
	// RanAt is when the job ran, once it has.
	RanAt *time.Time `json:"ranAt,omitempty"`
}

// ScheduleJob puts a job on the agenda (POST /_sandbox/jobs).
func (s *Client) ScheduleJob(ctx context.Context, opts JobOptions) (*Job, error) {
	body := map[string]any{"kind": opts.Kind}
	if opts.Duration != "" {
		body["duration"] = opts.Duration
	} else {
		body["seconds"] = opts.Seconds
	}
	if opts.Note != "" {
		body["note"] = opts.Note
	}
	var j Job
	if err := s.call(ctx, http.MethodPost, "/_sandbox/jobs", body, http.StatusCreated, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// Job reads one job (GET /_sandbox/jobs/{id}).
func (s *Client) Job(ctx context.Context, id string) (*Job, error) {
	var j Job
	if err := s.call(ctx, http.MethodGet, "/_sandbox/jobs/"+url.PathEscape(id), nil, http.StatusOK, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// ID is an identifier that the wire may carry as a JSON number or a string;
// it is kept as its text.
type ID string

// UnmarshalJSON accepts a JSON number or string.
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = ID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("id %s: want a number or a string", b)
	}
	*id = ID(n)
	return nil
}

// String returns the id's text.
func (id ID) String() string { return string(id) }
