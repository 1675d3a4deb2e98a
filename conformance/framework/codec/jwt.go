package codec

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// MalformedToken is a bearer token that is not a JWT at all.
const MalformedToken = "not-a-jwt"

// JWT is a decoded JSON Web Token (compact serialisation). Decoding does not
// verify the signature: the suite cannot know the target's key.
type JWT struct {
	// Header is the decoded JOSE header; numbers are json.Number.
	Header map[string]any
	// Payload is the decoded claims set; numbers are json.Number.
	Payload map[string]any
	// Signature is the raw signature bytes.
	Signature []byte
	// Raw is the token as received.
	Raw string
}

// ParseJWT decodes a compact JWT: three base64url parts without padding
// (RFC 7515), the first two JSON objects. It does not verify the signature.
func ParseJWT(token string) (*JWT, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("a JWT has 3 dot-separated parts, this one has %d", len(parts))
	}
	dec := func(i int, name string) (map[string]any, error) {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return nil, fmt.Errorf("JWT %s is not base64url: %w", name, err)
		}
		v, err := apiclient.DecodeJSON(b)
		if err != nil {
			return nil, fmt.Errorf("JWT %s is not JSON: %w", name, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("JWT %s is not a JSON object", name)
		}
		return m, nil
	}
	h, err := dec(0, "header")
	if err != nil {
		return nil, err
	}
	p, err := dec(1, "payload")
	if err != nil {
		return nil, err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("JWT signature is not base64url: %w", err)
	}
	return &JWT{Header: h, Payload: p, Signature: sig, Raw: token}, nil
}

// RandomKey returns 32 random bytes, a key the target cannot know.
func RandomKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k
}

// ResignHS256 returns token with its header and payload untouched and a new
// HMAC-SHA256 signature made with key. Whatever algorithm the header names,
// the result carries a signature the target did not make, so it must be
// rejected.
func ResignHS256(token string, key []byte) (string, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || strings.Count(token, ".") != 2 {
		return "", errors.New("ResignHS256: not a compact JWT")
	}
	signing := token[:i]
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

// AlgNone returns an unsecured JWT (RFC 7519 section 6) carrying token's
// payload: header {"alg":"none","typ":"JWT"} and an empty signature.
func AlgNone(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", errors.New("AlgNone: not a compact JWT")
	}
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	return h + "." + parts[1] + ".", nil
}
