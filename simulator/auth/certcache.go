package auth

import (
	"crypto/x509"
	"sync"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// certCacheMax bounds the decoded certificate headers kept; when full the
// cache starts over (a sandbox sees a handful of client certificates).
const certCacheMax = 1024

// certCache remembers X-SSL-Client-Cert headers already decoded, with the
// certificate's fingerprint: the same header bytes always decode to the same
// certificate, so a token request with a known header skips URL-decoding, PEM
// and X.509 parsing (a fifth of the token route's CPU). Headers that fail to
// decode are not kept. Registration and validity dates are still checked on
// every request.
type certCache struct {
	mu sync.RWMutex
	m  map[string]decodedCert
}

type decodedCert struct {
	cert        *x509.Certificate // read-only once decoded
	fingerprint string
}

// decode returns the header's certificate and fingerprint, decoding it on the
// first sight.
func (c *certCache) decode(header string) (decodedCert, error) {
	c.mu.RLock()
	d, ok := c.m[header]
	c.mu.RUnlock()
	if ok {
		return d, nil
	}
	cert, err := pix.DecodeCertHeader(header)
	if err != nil {
		return decodedCert{}, err
	}
	d = decodedCert{cert: cert, fingerprint: pix.Fingerprint(cert.Raw)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= certCacheMax {
		c.m = make(map[string]decodedCert)
	}
	c.m[header] = d
	return d, nil
}
