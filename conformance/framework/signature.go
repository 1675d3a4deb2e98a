package framework

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Standard Webhooks (https://www.standardwebhooks.com) header names and
// secret prefix.
const (
	// HeaderWebhookID carries the message id, the same on every retry.
	HeaderWebhookID = "webhook-id"
	// HeaderWebhookTimestamp carries the attempt's Unix time in seconds.
	HeaderWebhookTimestamp = "webhook-timestamp"
	// HeaderWebhookSignature carries space-separated "v1,<base64>" signatures.
	HeaderWebhookSignature = "webhook-signature"
	// WebhookSecretPrefix prefixes the base64 signing key of a secret.
	WebhookSecretPrefix = "whsec_"
)

// NewWebhookSecret returns a fresh signing secret: "whsec_" followed by the
// standard base64 of 32 random bytes.
func NewWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// webhookKey decodes the signing key of a secret; the "whsec_" prefix is
// optional, as Standard Webhooks allows.
func webhookKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook secret: not base64 after %q: %w", WebhookSecretPrefix, err)
	}
	if len(key) == 0 {
		return nil, errors.New("webhook secret: empty key")
	}
	return key, nil
}

// SignWebhook returns the Standard Webhooks signature of one message:
// "v1," followed by the base64 HMAC-SHA256, keyed with the secret's key, of
// "{id}.{timestamp}.{body}".
func SignWebhook(secret, id, timestamp string, body []byte) (string, error) {
	key, err := webhookKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// VerifyWebhookSignature checks a delivery's webhook-signature header against
// secret, webhook-id, webhook-timestamp and the exact body bytes, per
// Standard Webhooks: the header is a space-separated list of
// "<version>,<base64>" entries, and one "v1" entry must equal the HMAC-SHA256
// of "{id}.{timestamp}.{body}" (compared in constant time). It does not judge
// the timestamp's age: a sandbox stamps simulation time.
func VerifyWebhookSignature(secret string, h http.Header, body []byte) error {
	id, ts, sigs := h.Get(HeaderWebhookID), h.Get(HeaderWebhookTimestamp), h.Get(HeaderWebhookSignature)
	switch {
	case id == "":
		return errors.New("webhook signature: no " + HeaderWebhookID + " header")
	case ts == "":
		return errors.New("webhook signature: no " + HeaderWebhookTimestamp + " header")
	case sigs == "":
		return errors.New("webhook signature: no " + HeaderWebhookSignature + " header")
	}
	want, err := SignWebhook(secret, id, ts, body)
	if err != nil {
		return err
	}
	wantMAC, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(want, "v1,"))
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			continue
		}
		if hmac.Equal(got, wantMAC) {
			return nil
		}
	}
	return fmt.Errorf("webhook signature: no v1 signature in %q matches the body (want %s)", sigs, want)
}

// VerifySignature checks the delivery's Standard Webhooks signature with
// secret (see VerifyWebhookSignature).
func (d Delivery) VerifySignature(secret string) error {
	return VerifyWebhookSignature(secret, d.Header, d.Body)
}
