package codec

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// SelfSignedCert creates a fresh ECDSA P-256 client certificate, signed by its
// own key and valid from notBefore to notAfter, that no target has ever seen.
// It returns the certificate and the PKCS #8 private key as PEM.
func SelfSignedCert(notBefore, notAfter time.Time) (certPEM, keyPEM string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return "", "", err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "pix-conformance unregistered client " + serial.Text(16), Organization: []string{"pix-conformance"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	certPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	keyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
	return certPEM, keyPEM, nil
}

// SelfSignedCertWithPlus is SelfSignedCert, retried until the certificate's
// base64 text contains a '+', which the '+'-encoding checks need. Nearly
// every certificate has one; it gives up after 64 attempts.
func SelfSignedCertWithPlus(notBefore, notAfter time.Time) (certPEM string, err error) {
	for range 64 {
		c, _, err := SelfSignedCert(notBefore, notAfter)
		if err != nil {
			return "", err
		}
		if CertBase64HasPlus(c) {
			return c, nil
		}
	}
	return "", errors.New("no certificate with '+' in its base64 after 64 attempts")
}

// CertBase64HasPlus reports whether the base64 body of a PEM text contains a
// '+' (the character the specification says must be sent as %2B).
func CertBase64HasPlus(certPEM string) bool {
	var body strings.Builder
	for line := range strings.Lines(certPEM) {
		if !strings.HasPrefix(line, "-----") {
			body.WriteString(line)
		}
	}
	return strings.Contains(body.String(), "+")
}

// ParseCertPEM parses the first CERTIFICATE block of a PEM text.
func ParseCertPEM(certPEM string) (*x509.Certificate, error) {
	rest := []byte(certPEM)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("no CERTIFICATE block in PEM")
		}
		if b.Type == "CERTIFICATE" {
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parse certificate: %w", err)
			}
			return c, nil
		}
	}
}
