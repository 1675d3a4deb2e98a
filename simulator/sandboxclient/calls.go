package sandboxclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The typed calls of the control plane (docs/openapi.yaml, the /_sandbox
// routes). Those whose answer a caller may print as received also return the
// *Response.

// Clock is the answer of the clock routes.
type Clock struct {
	Now             string `json:"now"`
	Mode            string `json:"mode"`
	JobsRun         *int   `json:"jobsRun"`         // moves only
	WebhooksPending *int   `json:"webhooksPending"` // moves only
}

// Time is Now parsed.
func (c Clock) Time() (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, c.Now)
	if err != nil {
		return time.Time{}, fmt.Errorf("GET /_sandbox/clock answered a time that is not RFC 3339: %q", c.Now)
	}
	return t, nil
}

// Wait is what a clock move waits for before it answers.
type Wait string

const (
	WaitJobs     Wait = "jobs"     // the jobs due on the way
	WaitWebhooks Wait = "webhooks" // and the webhook attempts due on the way
)

// Clock reads the simulation clock (GET /_sandbox/clock).
func (c *Client) Clock(ctx context.Context) (Clock, *Response, error) {
	var out Clock
	r, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/clock", nil, nil, &out, http.StatusOK)
	return out, r, err
}

// Advance moves the clock forward by d (POST /_sandbox/clock/advance).
func (c *Client) Advance(ctx context.Context, d time.Duration, wait Wait) (Clock, *Response, error) {
	var out Clock
	r, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/clock/advance", map[string]string{"duration": d.String(), "wait": string(wait)}, nil, &out, http.StatusOK)
	return out, r, err
}

// SetClock moves the clock forward to now, RFC 3339 (POST /_sandbox/clock).
func (c *Client) SetClock(ctx context.Context, now string, wait Wait) (Clock, *Response, error) {
	var out Clock
	r, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/clock", map[string]string{"now": now, "wait": string(wait)}, nil, &out, http.StatusOK)
	return out, r, err
}

// Token is the body of both token routes.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// AccountToken issues an access token of account without credentials (POST
// /_sandbox/accounts/{id}/token).
func (c *Client) AccountToken(ctx context.Context, account int64) (Token, *Response, error) {
	var out Token
	r, err := c.CallJSON(ctx, http.MethodPost, fmt.Sprintf("/_sandbox/accounts/%d/token", account), nil, nil, &out, http.StatusCreated)
	return out, r, err
}

// Account reads an account (GET /_sandbox/accounts/{id}) into out.
func (c *Client) Account(ctx context.Context, account int64, out any) error {
	_, err := c.CallJSON(ctx, http.MethodGet, fmt.Sprintf("/_sandbox/accounts/%d", account), nil, nil, out, http.StatusOK)
	return err
}

// AccountSettings reads an account's settings (GET
// /_sandbox/accounts/{id}/settings) into out.
func (c *Client) AccountSettings(ctx context.Context, account int64, out any) error {
	_, err := c.CallJSON(ctx, http.MethodGet, fmt.Sprintf("/_sandbox/accounts/%d/settings", account), nil, nil, out, http.StatusOK)
	return err
}

// Payment is the answer of POST /_sandbox/payments and /_sandbox/pix-in.
type Payment struct {
	EndToEndID    string      `json:"endToEndId"`
	TransactionID string      `json:"transactionId"`
	Amount        json.Number `json:"amount"`
	FeeAmount     json.Number `json:"feeAmount"`
	FinalAmount   json.Number `json:"finalAmount"`
}

// Pay pays a charge as a payer's bank would (POST /_sandbox/payments).
func (c *Client) Pay(ctx context.Context, body any) (Payment, *Response, error) {
	var out Payment
	r, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/payments", body, nil, &out, http.StatusCreated)
	return out, r, err
}

// PixIn makes an account receive a PIX (POST /_sandbox/pix-in).
func (c *Client) PixIn(ctx context.Context, body any) (Payment, error) {
	var out Payment
	_, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/pix-in", body, nil, &out, http.StatusCreated)
	return out, err
}

// DictEntry is a key of GET /_sandbox/dict/keys/{key}.
type DictEntry struct {
	Key      string `json:"key"`
	Type     string `json:"type"` // CPF, CNPJ, EMAIL, PHONE, EVP
	Name     string `json:"name"`
	Document string `json:"document"`
	BankName string `json:"bankName"`
}

// DictKey reads a key of the DICT directory.
func (c *Client) DictKey(ctx context.Context, key string) (DictEntry, error) {
	var out DictEntry
	_, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/dict/keys/"+url.PathEscape(key), nil, nil, &out, http.StatusOK)
	return out, err
}

// Transaction is GET /_sandbox/transactions/{id}.
type Transaction struct {
	ID            json.Number `json:"id"`
	TransactionID string      `json:"transactionId"`
	Kind          string      `json:"kind"`
	Status        string      `json:"status"`
	Amount        json.Number `json:"amount"`
	ErrorCode     string      `json:"errorCode"`
}

// Transaction reads a transaction by any of its identifiers.
func (c *Client) Transaction(ctx context.Context, ref string) (Transaction, error) {
	var out Transaction
	_, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/transactions/"+url.PathEscape(ref), nil, nil, &out, http.StatusOK)
	return out, err
}

// Delivery is one delivery of GET /_sandbox/webhook-deliveries; its attempts
// are kept as received (DecodeAttempt reads one).
type Delivery struct {
	ID            string            `json:"id"`
	EventID       string            `json:"eventId"`
	EventType     string            `json:"eventType"`
	TargetID      int64             `json:"targetId"`
	AccountID     json.Number       `json:"accountId"`
	TransactionID json.Number       `json:"transactionId"`
	URL           string            `json:"url"`
	Status        string            `json:"status"`
	NextAttemptAt string            `json:"nextAttemptAt"`
	Attempts      []json.RawMessage `json:"attempts"`
}

// Attempt is one attempt of a delivery.
type Attempt struct {
	WebhookLogID int64   `json:"webhookLogId"`
	Number       int     `json:"number"`
	SentAt       string  `json:"sentAt"`
	URL          string  `json:"url"`
	StatusCode   int     `json:"statusCode"`
	Error        string  `json:"error"`
	DurationMs   float64 `json:"durationMs"`
	RequestBody  string  `json:"requestBody"`
}

// DecodeAttempt reads one of a Delivery's Attempts.
func DecodeAttempt(raw json.RawMessage) (Attempt, error) {
	var a Attempt
	err := DecodeJSON(raw, &a)
	return a, err
}

// Deliveries lists webhook deliveries, newest first (GET
// /_sandbox/webhook-deliveries; query: accountId, limit, afterAttempt, ...).
func (c *Client) Deliveries(ctx context.Context, query url.Values) ([]Delivery, error) {
	var out struct {
		Data []Delivery `json:"data"`
	}
	p := "/_sandbox/webhook-deliveries"
	if len(query) > 0 {
		p += "?" + query.Encode()
	}
	_, err := c.CallJSON(ctx, http.MethodGet, p, nil, nil, &out, http.StatusOK)
	return out.Data, err
}

// Journal is the answer of GET /_sandbox/requests: entries newest first, kept
// as received (DecodeJSON reads them into a JournalEntry).
type Journal struct {
	Enabled bool              `json:"enabled"`
	Data    []json.RawMessage `json:"data"`
}

// JournalEntry is the summary of an entry of the request journal.
type JournalEntry struct {
	ID         int64       `json:"id"`
	RequestID  string      `json:"requestId"`
	Time       string      `json:"time"`
	Method     string      `json:"method"`
	Path       string      `json:"path"`
	Query      string      `json:"query"`
	AccountID  json.Number `json:"accountId"`
	Status     int         `json:"status"`
	DurationMs float64     `json:"durationMs"`
	// Fault is the network fault applied to the request, nil for none.
	Fault *struct {
		Applied string `json:"applied"`
		Source  string `json:"source"`
		RuleID  int64  `json:"ruleId"`
	} `json:"fault"`
}

// Requests reads the request journal (query: account, path, status, since,
// ref, limit, after).
func (c *Client) Requests(ctx context.Context, query url.Values) (Journal, error) {
	var out Journal
	p := "/_sandbox/requests"
	if len(query) > 0 {
		p += "?" + query.Encode()
	}
	_, err := c.CallJSON(ctx, http.MethodGet, p, nil, nil, &out, http.StatusOK)
	return out, err
}

// ClearRequests empties the request journal and says how many entries it held.
func (c *Client) ClearRequests(ctx context.Context) (int, *Response, error) {
	var out struct {
		Deleted int `json:"deleted"`
	}
	r, err := c.CallJSON(ctx, http.MethodDelete, "/_sandbox/requests", nil, nil, &out, http.StatusOK)
	return out.Deleted, r, err
}

// ListenerRequest is the body of POST /_sandbox/listeners.
type ListenerRequest struct {
	URL        string   `json:"url"`
	AccountID  int64    `json:"accountId,omitempty"`
	All        bool     `json:"all,omitempty"`
	Events     []string `json:"events,omitempty"`
	Secret     string   `json:"secret,omitempty"`
	TTLSeconds int      `json:"ttlSeconds,omitempty"`
}

// Listener is a listener's lease: its webhook targets and signing secret.
type Listener struct {
	ID         string   `json:"id"`
	URL        string   `json:"url"`
	Secret     string   `json:"secret"`
	AccountIDs []int64  `json:"accountIds"`
	Events     []string `json:"events"`
	TTLSeconds int      `json:"ttlSeconds"`
	Targets    []struct {
		ID        int64  `json:"id"`
		AccountID int64  `json:"accountId"`
		EventType string `json:"eventType"`
	} `json:"targets"`
	// PreviousSecretExpiresAt is when the secret of the listener's last
	// rotation stops signing (wall time); "" when none does.
	PreviousSecretExpiresAt string `json:"previousSecretExpiresAt"`
}

// CreateListener makes a listener (POST /_sandbox/listeners).
func (c *Client) CreateListener(ctx context.Context, req ListenerRequest) (Listener, error) {
	var out Listener
	_, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/listeners", req, nil, &out, http.StatusCreated)
	return out, err
}

// RenewListener runs a listener's lease for its ttl again; with all accounts
// the answer lists the targets made for accounts created since.
func (c *Client) RenewListener(ctx context.Context, id string) (Listener, error) {
	var out Listener
	_, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/listeners/"+url.PathEscape(id)+"/renew", nil, nil, &out, http.StatusOK)
	return out, err
}

// DeleteListener ends a listener and says how many targets it removed.
func (c *Client) DeleteListener(ctx context.Context, id string) (int, error) {
	var out struct {
		TargetsRemoved int `json:"targetsRemoved"`
	}
	_, err := c.CallJSON(ctx, http.MethodDelete, "/_sandbox/listeners/"+url.PathEscape(id), nil, nil, &out, http.StatusOK)
	return out.TargetsRemoved, err
}

// Listeners lists the live listeners (GET /_sandbox/listeners).
func (c *Client) Listeners(ctx context.Context) ([]Listener, error) {
	var out struct {
		Data []Listener `json:"data"`
	}
	_, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/listeners", nil, nil, &out, http.StatusOK)
	return out.Data, err
}

// Reset drops every record and seeds the fixtures again (POST /_sandbox/reset).
func (c *Client) Reset(ctx context.Context) (*Response, error) {
	return c.Call(ctx, http.MethodPost, "/_sandbox/reset", nil, nil, http.StatusOK)
}

// FaultRequest is the body of POST /_sandbox/faults (docs/faults.md): the
// zero value of an optional field leaves it out.
type FaultRequest struct {
	Method      string  `json:"method"`
	Route       string  `json:"route"`
	AccountID   int64   `json:"accountId,omitempty"`
	Fault       string  `json:"fault"`
	Times       int     `json:"times,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	Seed        *uint64 `json:"seed,omitempty"`
}

// FaultRule is a network fault rule of the workspace.
type FaultRule struct {
	ID          int64   `json:"id"`
	Method      string  `json:"method"`
	Route       string  `json:"route"`
	AccountID   *int64  `json:"accountId"`
	Fault       string  `json:"fault"`
	Times       *int    `json:"times"`
	Probability float64 `json:"probability"`
	Seed        uint64  `json:"seed"`
	Matched     int     `json:"matched"`
	Applied     int     `json:"applied"`
	Remaining   *int    `json:"remaining"`
}

// AddFault adds a network fault rule (POST /_sandbox/faults).
func (c *Client) AddFault(ctx context.Context, req FaultRequest) (FaultRule, *Response, error) {
	var out FaultRule
	r, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/faults", req, nil, &out, http.StatusCreated)
	return out, r, err
}

// Faults lists the workspace's network fault rules (GET /_sandbox/faults).
func (c *Client) Faults(ctx context.Context) ([]FaultRule, *Response, error) {
	var out struct {
		Data []FaultRule `json:"data"`
	}
	r, err := c.CallJSON(ctx, http.MethodGet, "/_sandbox/faults", nil, nil, &out, http.StatusOK)
	return out.Data, r, err
}

// ClearFaults removes every network fault rule of the workspace and says how
// many there were (DELETE /_sandbox/faults).
func (c *Client) ClearFaults(ctx context.Context) (int, *Response, error) {
	var out struct {
		Deleted int `json:"deleted"`
	}
	r, err := c.CallJSON(ctx, http.MethodDelete, "/_sandbox/faults", nil, nil, &out, http.StatusOK)
	return out.Deleted, r, err
}

// DeleteFault removes one network fault rule (DELETE /_sandbox/faults/{id}).
func (c *Client) DeleteFault(ctx context.Context, id int64) (*Response, error) {
	return c.Call(ctx, http.MethodDelete, "/_sandbox/faults/"+strconv.FormatInt(id, 10), nil, nil, http.StatusOK)
}
