package pix

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"
)

// testCertWithPlus returns a self-signed certificate PEM whose base64 holds a '+'.
func testCertWithPlus(tb testing.TB) []byte {
	tb.Helper()
	for i := 0; i < 100; i++ {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			tb.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(i + 1)), Subject: pkix.Name{CommonName: "t"},
			NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			tb.Fatal(err)
		}
		p := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		if strings.Contains(string(p), "+") {
			return p
		}
	}
	tb.Fatal("no certificate with + in 100 tries")
	return nil
}

func TestDecodeCertHeader(t *testing.T) {
	p := testCertWithPlus(t)
	enc := EncodeCertHeader(p)
	if strings.ContainsAny(enc, "+ \n/=") || !strings.Contains(enc, "%2B") {
		t.Fatalf("EncodeCertHeader left reserved characters: %q", enc[:80])
	}
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{name: "RFC 3986 encoding", in: enc, ok: true},
		{name: "form encoding (space as +)", in: url.QueryEscape(string(p)), ok: true},
		{name: "plus sent as %20", in: strings.ReplaceAll(enc, "%2B", "%20")},
		{name: "raw plus", in: strings.ReplaceAll(enc, "%2B", "+")},
		{name: "not encoded at all", in: string(p)},
		{name: "empty", in: ""},
		{name: "blank", in: "   "},
		{name: "bad escape", in: "%zz"},
		{name: "not PEM", in: "hello"},
		{name: "wrong block type", in: EncodeCertHeader(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2}}))},
		{name: "garbage DER", in: EncodeCertHeader(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("garbage")}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := DecodeCertHeader(tt.in)
			if tt.ok {
				if err != nil || c == nil {
					t.Fatalf("DecodeCertHeader = %v, %v", c, err)
				}
				return
			}
			if !Match(&Error{Kind: KindInvalid, Code: CodePubCertMalformedPEM}, err) {
				t.Fatalf("DecodeCertHeader error = %v, want PUB_CERT_MALFORMED_PEM", err)
			}
		})
	}
}

func TestTokenRequest_Validate(t *testing.T) {
	ok := TokenRequest{ClientID: "2b28bc5f-714d-4515-9a30-06854d5df38c", ClientSecret: "s"}
	if vs := ok.Validate(); len(vs) != 0 {
		t.Fatalf("valid request: %v", vs)
	}
	vs := TokenRequest{}.Validate()
	if len(vs) != 2 || vs[0].Field != "clientId" || vs[1].Field != "clientSecret" {
		t.Fatalf("empty request violations = %v", vs)
	}
	// A field the decoder already reported is not reported twice.
	r := TokenRequest{BodyViolations: []Violation{{Field: "clientId", Message: "must be a string, not number"}}, ClientSecret: "s"}
	if vs := r.Validate(); len(vs) != 0 {
		t.Fatalf("violations = %v", vs)
	}
}

// FuzzDecodeCertHeader: the header decoder never panics, fails only with
// PUB_CERT_MALFORMED_PEM, and decodes what EncodeCertHeader produced.
func FuzzDecodeCertHeader(f *testing.F) {
	p := testCertWithPlus(f)
	f.Add(EncodeCertHeader(p))
	f.Add(url.QueryEscape(string(p)))
	f.Add(strings.ReplaceAll(EncodeCertHeader(p), "%2B", "%20"))
	f.Add("%")
	f.Add("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := DecodeCertHeader(s)
		if err != nil {
			if ErrorCode(err) != CodePubCertMalformedPEM || c != nil {
				t.Fatalf("DecodeCertHeader(%q) = %v, %v", s, c, err)
			}
			return
		}
		again, err := DecodeCertHeader(EncodeCertHeader(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})))
		if err != nil || !again.Equal(c) {
			t.Fatalf("re-encoding a decoded certificate failed: %v", err)
		}
	})
}
