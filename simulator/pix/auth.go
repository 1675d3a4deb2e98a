package pix

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net/url"
	"strings"
	"time"
)

// TokenLifetime is the validity of an access token. Spec "Authentication", rule 2:
// a JWT valid for 1800 seconds.
const TokenLifetime = 1800 * time.Second

// Credential is a client id and the SHA-256 of its secret, owned by an account.
// Secrets are random and high-entropy, so a plain hash suffices; they are compared
// in constant time.
type Credential struct {
	ClientID   string
	SecretHash [32]byte
	AccountID  AccountID
}

// Certificate is a client certificate registered with the service.
// Spec "Authentication", rule 4: its SHA-256 fingerprint is registered and it is
// linked to the account that owns the clientId.
type Certificate struct {
	Fingerprint string // lowercase hex SHA-256 of the DER
	AccountID   AccountID
	Subject     string
	NotBefore   time.Time
	NotAfter    time.Time
	Revoked     bool
}

// Token is an issued access token.
type Token struct {
	AccessToken string
	TokenType   string // "Bearer"
	ExpiresIn   int    // seconds
	IssuedAt    time.Time
	ExpiresAt   time.Time
	AccountID   AccountID
}

// TokenRequest is a token request as received, before any check. The checks run
// in one documented order (simulator.IssueToken), so the transport only collects.
type TokenRequest struct {
	CertHeader     string      // raw X-SSL-Client-Cert value
	HasCertHeader  bool        // header present
	BodyViolations []Violation // schema problems found while decoding the body
	ClientID       string
	ClientSecret   string
}

// Fingerprint returns the lowercase hex SHA-256 of a certificate's DER bytes.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// NormalizeFingerprint lowercases a fingerprint and strips the colons that
// `openssl x509 -fingerprint -sha256` prints.
func NormalizeFingerprint(fp string) string {
	return strings.ToLower(strings.ReplaceAll(fp, ":", ""))
}

// DecodeCertHeader decodes the X-SSL-Client-Cert header: a URL-encoded PEM
// certificate. Spec "Authentication", rule 3: a literal + in the base64 body must
// be encoded as %2B (not %20).
//
// It uses query unescaping, which accepts both correct encodings (RFC 3986 %20 for
// spaces, and form-style + for spaces) and turns the two broken ones (a + sent as
// %20, or left raw and so read as a space) into a certificate that does not parse:
// DOMAIN.md B5 records the experiment. Every failure is CodePubCertMalformedPEM.
func DecodeCertHeader(header string) (*x509.Certificate, error) {
	malformed := func(msg string) error {
		return Errorf(KindInvalid, CodePubCertMalformedPEM, "X-SSL-Client-Cert %s", msg).
			WithHint("Send the PEM certificate URL-encoded, with every + in the base64 body encoded as %2B (not %20 or a raw +).")
	}
	if strings.TrimSpace(header) == "" {
		return nil, malformed("is empty")
	}
	text, err := url.QueryUnescape(header)
	if err != nil {
		return nil, malformed("is not valid URL encoding")
	}
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, malformed("does not contain a PEM block")
	}
	if block.Type != "CERTIFICATE" {
		return nil, malformed("holds a PEM block of type " + quoteASCII(block.Type) + ", not CERTIFICATE")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, malformed("is not a parseable X.509 certificate")
	}
	return cert, nil
}

// quoteASCII quotes s for a message, keeping it ASCII and short.
func quoteASCII(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' {
			c = '?'
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}

// Validate checks the body fields of a token request (spec "POST /api/auth/token":
// clientId is a UUID v4, clientSecret is required). Fields already reported by the
// decoder are not reported twice.
func (r TokenRequest) Validate() []Violation {
	reported := map[string]bool{}
	for _, v := range r.BodyViolations {
		reported[v.Field] = true
	}
	if reported["body"] {
		return nil
	}
	var vs []Violation
	switch {
	case reported["clientId"]:
	case r.ClientID == "":
		vs = append(vs, Violation{Field: "clientId", Message: "is required"})
	case !IsUUIDv4(r.ClientID):
		vs = append(vs, Violation{Field: "clientId", Message: "must be a UUID v4"})
	}
	if !reported["clientSecret"] && r.ClientSecret == "" {
		vs = append(vs, Violation{Field: "clientSecret", Message: "is required"})
	}
	return vs
}

// EncodeCertHeader URL-encodes a PEM certificate for X-SSL-Client-Cert the way
// the spec asks and nginx's $ssl_client_escaped_cert does: RFC 3986
// percent-encoding of every byte but the unreserved ones, so + becomes %2B, a
// space %20 and a newline %0A.
func EncodeCertHeader(pemBytes []byte) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(pemBytes) * 3 / 2)
	for _, c := range pemBytes {
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// NewCertificate asks for another certificate for an account. Zero dates default
// to a validity from an hour ago to a year ahead on the simulation clock.
type NewCertificate struct {
	NotBefore time.Time
	NotAfter  time.Time
	Revoked   bool
}

// IssuedCertificate is a certificate issued by the sandbox test CA and registered.
type IssuedCertificate struct {
	CertificatePEM []byte
	PrivateKeyPEM  []byte
	Registration   Certificate
}
