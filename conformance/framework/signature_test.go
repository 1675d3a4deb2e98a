package framework

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// The Standard Webhooks reference vector (its libraries' test suites).
const (
	vectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTS     = "1614265330"
	vectorBody   = `{"test": 2432232314}`
	vectorSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func vectorHeader(sig string) http.Header {
	h := http.Header{}
	h.Set(HeaderWebhookID, vectorID)
	h.Set(HeaderWebhookTimestamp, vectorTS)
	h.Set(HeaderWebhookSignature, sig)
	return h
}

func TestSignWebhook_ReferenceVector(t *testing.T) {
	got, err := SignWebhook(vectorSecret, vectorID, vectorTS, []byte(vectorBody))
	if err != nil || got != vectorSig {
		t.Fatalf("SignWebhook = %q, %v; want %q", got, err, vectorSig)
	}
	// The prefix is optional.
	got, err = SignWebhook(strings.TrimPrefix(vectorSecret, WebhookSecretPrefix), vectorID, vectorTS, []byte(vectorBody))
	if err != nil || got != vectorSig {
		t.Fatalf("SignWebhook without prefix = %q, %v", got, err)
	}
}

func TestVerifyWebhookSignature(t *testing.T) {
	body := []byte(vectorBody)
	tests := []struct {
		name    string
		secret  string
		header  http.Header
		body    []byte
		wantErr string
	}{
		{name: "valid", secret: vectorSecret, header: vectorHeader(vectorSig), body: body},
		{name: "one of several", secret: vectorSecret, header: vectorHeader("v1,AAAA v2,xyz " + vectorSig), body: body},
		{name: "tampered body", secret: vectorSecret, header: vectorHeader(vectorSig), body: []byte(`{"test": 2432232315}`), wantErr: "matches"},
		{name: "other secret", secret: NewWebhookSecret(), header: vectorHeader(vectorSig), body: body, wantErr: "matches"},
		{name: "wrong version", secret: vectorSecret, header: vectorHeader("v2," + strings.TrimPrefix(vectorSig, "v1,")), body: body, wantErr: "matches"},
		{name: "no signature", secret: vectorSecret, header: vectorHeader(""), body: body, wantErr: "no webhook-signature"},
		{name: "bad secret", secret: "whsec_!!!", header: vectorHeader(vectorSig), body: body, wantErr: "not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyWebhookSignature(tt.secret, tt.header, tt.body)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("VerifyWebhookSignature = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("VerifyWebhookSignature = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	h := vectorHeader(vectorSig)
	h.Del(HeaderWebhookTimestamp)
	if err := VerifyWebhookSignature(vectorSecret, h, body); err == nil || !strings.Contains(err.Error(), "webhook-timestamp") {
		t.Errorf("without webhook-timestamp: %v", err)
	}
	d := Delivery{Header: vectorHeader(vectorSig), Body: body}
	if err := d.VerifySignature(vectorSecret); err != nil {
		t.Errorf("Delivery.VerifySignature = %v", err)
	}
}

func TestNewWebhookSecret(t *testing.T) {
	a, b := NewWebhookSecret(), NewWebhookSecret()
	if a == b || !strings.HasPrefix(a, WebhookSecretPrefix) {
		t.Fatalf("NewWebhookSecret = %q, %q", a, b)
	}
	key, err := base64.StdEncoding.Strict().DecodeString(strings.TrimPrefix(a, WebhookSecretPrefix))
	if err != nil || len(key) != 32 {
		t.Fatalf("key of %q: %d bytes, %v", a, len(key), err)
	}
	sig, err := SignWebhook(a, "id", "1", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(HeaderWebhookID, "id")
	h.Set(HeaderWebhookTimestamp, "1")
	h.Set(HeaderWebhookSignature, sig)
	if err := VerifyWebhookSignature(a, h, []byte("{}")); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}
