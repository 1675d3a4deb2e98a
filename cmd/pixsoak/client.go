package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// response is a definite answer of the server: a status and a JSON body.
type response struct {
	status int
	body   map[string]any
	raw    string
}

// str returns a string field of the body, following dotted paths.
func (r response) str(path string) string {
	var v any = r.body
	for p := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// code returns the business code of an error body (code, errorCode).
func (r response) code() string {
	if c := r.str("errorCode"); c != "" {
		return c
	}
	return r.str("code")
}

// client sends requests to whichever server process is up. A request whose
// connection fails while the process is being killed has an unknown outcome:
// call waits for the next process and sends the same request again, so only
// requests that are safe to repeat (idempotency key, externalId, refund id, or
// reads) go through it with retry on.
type client struct {
	srv  *server
	http *http.Client
	set  *fixtures.Set
	rep  *recorder

	mu     sync.Mutex
	tokens map[int64]string
}

func newClient(srv *server, set *fixtures.Set, rep *recorder) *client {
	return &client{
		srv: srv, set: set, rep: rep, tokens: map[int64]string{},
		http: &http.Client{
			Timeout:   10 * time.Minute, // wall time: a clock advance may run many jobs
			Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
		},
	}
}

// request is one HTTP request: account 0 sends no token (control plane).
type request struct {
	method, path string
	body         any
	account      int64
	header       map[string]string
}

// outcome is how a call ended: the definite response, and whether an earlier
// attempt of the same request had an unknown outcome (so the server may have
// applied it before the answer that counts).
type outcome struct {
	response
	uncertain bool
}

// call sends req until it gets a definite answer. A 401 on a route with a
// token renews the token and sends again. A 5xx is recorded as a violation and
// the request is sent again (its effect is then unknown). With retry false a
// failed connection ends the call with ok false.
func (c *client) call(ctx context.Context, req request, retry bool) (outcome, bool) {
	var out outcome
	minGen := 0
	renewed := false
	fiveXX, sameGen := 0, 0
	for {
		url, gen, err := c.srv.waitUp(ctx, minGen)
		if err != nil {
			return out, false
		}
		hdr := map[string]string{}
		for k, v := range req.header {
			hdr[k] = v
		}
		if req.account != 0 {
			tok, ok := c.token(ctx, req.account)
			if !ok {
				return out, false
			}
			hdr["Authorization"] = "Bearer " + tok
		}
		resp, err := c.send(ctx, url, req.method, req.path, req.body, hdr)
		if err != nil {
			if ctx.Err() != nil {
				return out, false
			}
			_, nowGen, running, _ := c.srv.state()
			if running && nowGen == gen {
				// Not a kill. Once may be a connection kept from a killed process
				// whose port the new one reuses; twice is a failing server.
				sameGen++
				if sameGen > 1 {
					c.rep.violation("%s %s: transport error while the server was up: %v", req.method, req.path, err)
				}
				time.Sleep(50 * time.Millisecond) // wall time: back-off before retrying
			}
			if !retry {
				return out, false
			}
			out.uncertain = true
			c.rep.count(&c.rep.unknownRetried)
			minGen = gen + 1
			if running && nowGen == gen {
				minGen = gen
			}
			continue
		}
		if resp.status == http.StatusUnauthorized && req.account != 0 && !renewed {
			renewed = true
			c.dropToken(req.account)
			continue
		}
		if resp.status >= 500 {
			fiveXX++
			c.rep.violation("%s %s: status %d: %s", req.method, req.path, resp.status, truncate(resp.raw, 300))
			if !retry || fiveXX > 3 {
				out.response = resp
				return out, true
			}
			out.uncertain = true
			continue
		}
		out.response = resp
		return out, true
	}
}

func (c *client) send(ctx context.Context, base, method, path string, body any, hdr map[string]string) (response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(b)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return response{}, err
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		hreq.Header.Set(k, v)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return response{}, err
	}
	defer hresp.Body.Close()
	raw, err := io.ReadAll(hresp.Body)
	if err != nil {
		return response{}, err // the connection broke mid-body: unknown outcome
	}
	r := response{status: hresp.StatusCode, raw: string(raw)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		if m, ok := v.(map[string]any); ok {
			r.body = m
		}
	}
	return r, nil
}

// token returns a cached access token of the fixture account, or a new one.
func (c *client) token(ctx context.Context, account int64) (string, bool) {
	c.mu.Lock()
	tok, ok := c.tokens[account]
	c.mu.Unlock()
	if ok {
		return tok, true
	}
	var a fixtures.Account
	for _, x := range c.set.Accounts {
		if x.ID == account {
			a = x
		}
	}
	pemBytes, err := c.set.ReadFile(a.Certificate)
	if err != nil {
		c.rep.violation("account %d: certificate: %v", account, err)
		return "", false
	}
	out, ok := c.call(ctx, request{method: http.MethodPost, path: "/api/auth/token",
		body:   map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret},
		header: map[string]string{"X-SSL-Client-Cert": pix.EncodeCertHeader(pemBytes)}}, true)
	if !ok {
		return "", false
	}
	if out.status != http.StatusCreated || out.str("access_token") == "" {
		c.rep.violation("account %d: token: status %d: %s", account, out.status, truncate(out.raw, 300))
		return "", false
	}
	tok = out.str("access_token")
	c.mu.Lock()
	c.tokens[account] = tok
	c.mu.Unlock()
	return tok, true
}

func (c *client) dropToken(account int64) {
	c.mu.Lock()
	delete(c.tokens, account)
	c.mu.Unlock()
}

// cents parses a BRL amount ("10.5", "10.50", 10.5 as a JSON number) into centavos.
func cents(s string) (int64, error) {
	v, err := pix.ParseDecimal(s)
	return int64(v), err
}

// brl formats centavos as a decimal with two places.
func brl(c int64) string { return pix.Cents(c).Decimal2() }

// brlNumber is an amount written as a JSON number with two decimals.
func brlNumber(c int64) json.Number { return json.Number(brl(c)) }

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func mustAtoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
