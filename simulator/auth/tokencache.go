package auth

import (
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// tokenCacheMax bounds the verified tokens kept; when full the cache starts
// over (tokens live 30 minutes, so a sandbox rarely holds this many).
const tokenCacheMax = 8192

// tokenCache remembers access tokens already verified (signature, issuer,
// algorithm, subject, and that the account exists), so a request with a known
// token checks only its time window against the simulation clock. Accounts are
// never deleted and the signing key never changes while the process runs, so a
// token once valid stays valid until it expires — until a reset (Service.Forget, called by the core's Reset)
// drops the accounts: reset empties the cache and bumps gen, and a verification
// that began before it does not add its token afterwards (putIf).
type tokenCache struct {
	mu  sync.RWMutex
	m   map[string]verifiedToken
	gen uint64
}

type verifiedToken struct {
	account  pix.AccountID
	iat, exp time.Time
}

func (c *tokenCache) get(token string) (verifiedToken, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[token]
	return v, ok
}

// generation is read before a verification starts, for putIf.
func (c *tokenCache) generation() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.gen
}

// putIf remembers a verified token unless the cache was reset since gen.
func (c *tokenCache) putIf(gen uint64, token string, v verifiedToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.m == nil || len(c.m) >= tokenCacheMax {
		c.m = make(map[string]verifiedToken)
	}
	c.m[token] = v
}

// reset forgets every token.
func (c *tokenCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
	c.gen++
}
