package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pixsandbox/pixsandbox/conformance/contract"
)

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

// accountOf returns what the exchange's bearer token says of its account.
func accountOf(ex *contract.Exchange) (Token, bool) {
	raw, ok := ex.Bearer()
	if !ok {
		return Token{}, false
	}
	return ParseToken(raw), true
}
