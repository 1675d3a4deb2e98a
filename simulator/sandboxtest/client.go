package sandboxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// renewBefore is how long before its expiry (in simulation time) a Client's
// token is replaced.
const renewBefore = time.Minute

// Token takes an access token for account a the way a client does: POST
// /api/auth/token with a's clientId and clientSecret and its certificate in
// X-SSL-Client-Cert. The token is valid for 30 minutes of the workspace's
// simulation time (Advance past that and the API answers 401). A failure
// fails the test.
func (sb *Sandbox) Token(tb testing.TB, a Account) string {
	tb.Helper()
	tok, _, err := sb.token(context.Background(), a)
	if err != nil {
		tb.Fatalf("sandboxtest: %v", err)
	}
	return tok
}

// token takes a token for a and says when, in simulation time, it expires.
func (sb *Sandbox) token(ctx context.Context, a Account) (string, time.Time, error) {
	sim, err := sb.lookup()
	if err != nil {
		return "", time.Time{}, err
	}
	issued := sim.Clock().Now()
	body, err := json.Marshal(map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret})
	if err != nil {
		return "", time.Time{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sb.URL()+"/api/auth/token", bytes.NewReader(body))
	if err != nil {
		return "", time.Time{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SSL-Client-Cert", a.CertHeader())
	resp, err := sb.srv.base.RoundTrip(req)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("token of %s: %w", a, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("token of %s: %w", a, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return "", time.Time{}, fmt.Errorf("token of %s: POST /api/auth/token answered %d: %s", a, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		return "", time.Time{}, fmt.Errorf("token of %s: POST /api/auth/token answered 201 without a token: %s", a, b)
	}
	return tok.AccessToken, issued.Add(time.Duration(tok.ExpiresIn) * time.Second), nil
}

// Client returns an HTTP client that acts as account a: each request it
// sends to the sandbox (URL's host) carries a's bearer token in its
// Authorization header, unless the request sets that header itself; requests
// to other hosts go out unchanged. The token is taken on the first request
// and taken again when the workspace's clock nears its expiry, so the client
// keeps working across Advance. A failure to take it is the request's error.
//
// The client shares the sandbox's connections, which close with it.
func (sb *Sandbox) Client(a Account) *http.Client {
	return &http.Client{Transport: &bearer{sb: sb, account: a, host: sb.srv.http.Listener.Addr().String()}}
}

// bearer is the transport of Client.
type bearer struct {
	sb      *Sandbox
	account Account
	host    string

	mu      sync.Mutex
	token   string
	expires time.Time // simulation time
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	base := b.sb.srv.base
	if req.URL.Host != b.host || req.Header.Get("Authorization") != "" {
		return base.RoundTrip(req)
	}
	tok, err := b.current(req.Context())
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Header.Set("Authorization", "Bearer "+tok)
	return base.RoundTrip(out)
}

// current returns a token of the account valid for at least renewBefore
// more of simulation time.
func (b *bearer) current(ctx context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	sim, err := b.sb.lookup()
	if err != nil {
		return "", err
	}
	if b.token != "" && sim.Clock().Now().Add(renewBefore).Before(b.expires) {
		return b.token, nil
	}
	tok, expires, err := b.sb.token(ctx, b.account)
	if err != nil {
		return "", err
	}
	b.token, b.expires = tok, expires
	return tok, nil
}
