package main

// The accounts and tokens a run uses, and the HTTP calls it makes itself.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// fixtureSet is what the routes need: credentials and tokens.
type fixtureSet struct {
	certHeader  string // X-SSL-Client-Cert of fixture account 1
	tokenBody   string // its token request body
	token       string // a token of fixture account 1
	writeTokens []string
	// writeAccounts are the ids of the accounts of writeTokens.
	writeAccounts []int64
	listingToken  string
}

type accountsFile struct {
	Accounts []struct {
		ID           int64  `json:"id"`
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
		Certificate  string `json:"certificate"`
	} `json:"accounts"`
}

// certHeader encodes a PEM for X-SSL-Client-Cert: RFC 3986 percent-encoding of
// every byte but the unreserved ones (+ as %2B, space as %20, newline as %0A).
func certHeader(pem string) string {
	var b strings.Builder
	for i := 0; i < len(pem); i++ {
		c := pem[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func setupFixtures(base string, n int) (*fixtureSet, error) {
	raw, err := os.ReadFile("fixtures/accounts.json")
	if err != nil {
		return nil, fmt.Errorf("run from the repository root: %w", err)
	}
	var af accountsFile
	if err := json.Unmarshal(raw, &af); err != nil {
		return nil, err
	}
	if len(af.Accounts) == 0 {
		return nil, errors.New("no fixture accounts")
	}
	a := af.Accounts[0]
	pem, err := os.ReadFile(filepath.Join("fixtures", a.Certificate))
	if err != nil {
		return nil, err
	}
	f := &fixtureSet{certHeader: certHeader(string(pem))}
	body, _ := json.Marshal(map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret})
	f.tokenBody = string(body)
	if f.token, err = token(base, f.certHeader, f.tokenBody); err != nil {
		return nil, fmt.Errorf("fixture account %d token: %w", a.ID, err)
	}
	// Accounts for the write routes: a large opening balance and no limits, so
	// every cash-out of the run is accepted.
	for i := 0; i < n; i++ {
		var acc struct {
			ID           int64  `json:"id"`
			ClientID     string `json:"clientId"`
			ClientSecret string `json:"clientSecret"`
			Certificate  string `json:"certificate"`
		}
		if err := call("POST", base+"/_sandbox/accounts", "", `{"balance": 9000000000.00}`, 201, &acc); err != nil {
			return nil, fmt.Errorf("create account: %w", err)
		}
		if err := call("PUT", fmt.Sprintf("%s/_sandbox/accounts/%d/settings", base, acc.ID), "",
			`{"perTransactionLimit":0,"dailyLimit":0,"nightLimit":0,"fee":0,"cashInFee":0}`, 200, nil); err != nil {
			return nil, fmt.Errorf("settings: %w", err)
		}
		b, _ := json.Marshal(map[string]string{"clientId": acc.ClientID, "clientSecret": acc.ClientSecret})
		tok, err := token(base, certHeader(acc.Certificate), string(b))
		if err != nil {
			return nil, fmt.Errorf("account %d token: %w", acc.ID, err)
		}
		f.writeTokens = append(f.writeTokens, tok)
		f.writeAccounts = append(f.writeAccounts, acc.ID)
	}
	f.listingToken = f.writeTokens[0]
	return f, nil
}

func token(base, cert, body string) (string, error) {
	var out struct {
		AccessToken string `json:"access_token"`
	}
	req, _ := http.NewRequest("POST", base+"/api/auth/token", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SSL-Client-Cert", cert)
	if err := do(req, 201, &out); err != nil {
		return "", err
	}
	return out.AccessToken, nil
}

func call(method, u, tok, body string, want int, out any) error {
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return do(req, want, out)
}

// httpClient bounds every call of the run: a server that stops answering (a
// clock advance stuck on a receiver, before the engine) fails the row instead
// of hanging the run.
var httpClient = &http.Client{Timeout: 60 * time.Second}

func do(req *http.Request, want int, out any) error {
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d, want %d: %s", req.Method, req.URL.Path, resp.StatusCode, want, bytes.TrimSpace(b))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// invariants reads GET /_sandbox/invariants after the run.
func invariants(base string) string {
	resp, err := http.Get(base + "/_sandbox/invariants")
	if err != nil {
		return "not read: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var v struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(b, &v) == nil && v.OK != nil {
		if *v.OK {
			return "hold"
		}
		return "VIOLATED: " + string(bytes.TrimSpace(b))
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(b))
}
