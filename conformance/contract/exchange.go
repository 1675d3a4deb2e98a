package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Exchange is one request and the upstream's answer to it, as the proxy saw
// them. Bodies are the bytes on the wire (a gzip-encoded answer is given
// decoded, see the proxy); a body marked unjudged is not read by any rule.
type Exchange struct {
	// Seq numbers the exchanges of one proxy; RequestID is the upstream's
	// X-Request-Id of this one, when it sent one.
	Seq       uint64
	RequestID string

	Method    string
	Path      string // the decoded URL path, e.g. /api/pix/transactions/pix-key/+5511987654321
	RawQuery  string
	ReqHeader http.Header
	ReqBody   []byte
	// ReqUnjudged says why the request body was not kept ("" when it was).
	ReqUnjudged string

	Status     int
	RespHeader http.Header
	RespBody   []byte
	// RespUnjudged says why the response body was not kept ("" when it was).
	RespUnjudged string

	// Start is when the proxy received the request, End when it had the
	// whole answer: the state model orders observations by them.
	Start, End time.Time
	// Alone: no other exchange was in flight at the proxy at any moment of
	// this one, so the upstream served it after every exchange answered
	// before and before every exchange started after. The balance rule
	// judges only such reads (false, the zero value, when not known).
	Alone bool

	reqJSON, respJSON     any
	reqErr, respErr       error
	reqParsed, respParsed bool
}

// reqValue returns the request body decoded (numbers as json.Number).
func (ex *Exchange) reqValue() (any, error) {
	if !ex.reqParsed {
		ex.reqParsed = true
		ex.reqJSON, ex.reqErr = apiclient.DecodeJSON(ex.ReqBody)
	}
	return ex.reqJSON, ex.reqErr
}

// respValue returns the response body decoded (numbers as json.Number).
func (ex *Exchange) respValue() (any, error) {
	if !ex.respParsed {
		ex.respParsed = true
		ex.respJSON, ex.respErr = apiclient.DecodeJSON(ex.RespBody)
	}
	return ex.respJSON, ex.respErr
}

// success reports a 2xx answer.
func (ex *Exchange) success() bool { return ex.Status >= 200 && ex.Status <= 299 }

// query returns the parsed query string.
func (ex *Exchange) query() url.Values {
	v, _ := url.ParseQuery(ex.RawQuery)
	return v
}

// scenario reports whether the request asks the sandbox for a scenario
// (X-Sandbox-Scenario): the contract does not show its values or effects,
// so status and code rules do not judge such answers.
func (ex *Exchange) scenario() bool { return ex.ReqHeader.Get("X-Sandbox-Scenario") != "" }

// bearer returns the bearer token of the request, if any.
func (ex *Exchange) bearer() (string, bool) {
	h := ex.ReqHeader.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// jsonContentType reports whether ct names JSON (application/json or a
// +json type); an absent type counts as JSON.
func jsonContentType(ct string) bool {
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Token is what the proxy reads of a bearer token without verifying it.
type Token struct {
	// Account identifies the account the token acts for: its claims other
	// than its times and its id (iss, sub, client ids, a workspace), or a
	// hash of the whole Authorization value for a token that is not a JWT.
	Account string
	// IssuedAt and ExpiresAt are the iat and exp claims (zero when absent).
	IssuedAt, ExpiresAt time.Time
	JWT                 bool
	// Subject and Workspace are the sub and ws claims (the sandbox's
	// account id and workspace), when they are strings.
	Subject, Workspace string
}

// ParseToken reads a bearer token's claims without verifying its signature
// (the proxy cannot know the upstream's key), with the JWT library of go.mod.
// A client sends the same token with every request for up to 30 minutes, so
// the tokens read last are kept (tokenCache): a proxy reads each once.
func ParseToken(raw string) Token {
	if t, ok := tokens.get(raw); ok {
		return t
	}
	t := parseToken(raw)
	tokens.put(raw, t)
	return t
}

// tokens is the tokens ParseToken read last.
var tokens = tokenCache{max: 4096}

// tokenCache maps a token's text to what ParseToken read of it, up to max
// tokens; once full it starts again empty (a proxy in front of more clients
// than that reads some tokens again, nothing worse).
type tokenCache struct {
	mu  sync.RWMutex
	max int
	m   map[string]Token
}

func (c *tokenCache) get(raw string) (Token, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.m[raw]
	return t, ok
}

func (c *tokenCache) put(raw string, t Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[string]Token, min(c.max, 64))
	}
	c.m[raw] = t
}

func parseToken(raw string) Token {
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(raw, claims); err != nil {
		sum := sha256.Sum256([]byte(raw))
		return Token{Account: "authorization:" + hex.EncodeToString(sum[:8])}
	}
	t := Token{JWT: true}
	t.Subject, _ = claims["sub"].(string)
	t.Workspace, _ = claims["ws"].(string)
	if iat, err := claims.GetIssuedAt(); err == nil && iat != nil {
		t.IssuedAt = iat.Time
	}
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		t.ExpiresAt = exp.Time
	}
	keys := make([]string, 0, len(claims))
	for k := range claims {
		switch k {
		case "iat", "exp", "nbf", "jti":
		default:
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		v, _ := json.Marshal(claims[k])
		b.WriteString(k + "=" + string(v) + ";")
	}
	t.Account = "jwt:" + b.String()
	return t
}

// account returns the account key of the exchange's bearer token, or "".
func (ex *Exchange) account() (Token, bool) {
	raw, ok := ex.bearer()
	if !ok {
		return Token{}, false
	}
	return ParseToken(raw), true
}

// render writes a JSON value shortly for a finding's evidence.
func render(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	const limit = 120
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
