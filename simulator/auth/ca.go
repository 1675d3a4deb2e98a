package auth

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
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// CA is the sandbox test CA, which issues client certificates to the
// accounts the control plane creates.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// ParseCA reads the test CA's certificate and PKCS #8 ECDSA key (PEM).
func ParseCA(certPEM, keyPEM []byte) (*CA, error) {
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return nil, errors.New("simulator: test CA certificate and key are required")
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, errors.New("simulator: test CA is not PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("simulator: test CA certificate: %w", err)
	}
	key, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("simulator: test CA key: %w", err)
	}
	ec, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("simulator: test CA key is not ECDSA")
	}
	return &CA{cert: cert, key: ec}, nil
}

// Issue creates an ECDSA P-256 client certificate signed by the CA, with its
// registration (no account yet).
func (ca *CA) Issue(cn string, notBefore, notAfter time.Time) (pix.IssuedCertificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"pixsandbox sandbox client"}},
		NotBefore:    notBefore.UTC(),
		NotAfter:     notAfter.UTC(),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	return pix.IssuedCertificate{
		CertificatePEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		PrivateKeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		Registration:   Registration(cert, 0, false),
	}, nil
}

// Registration is cert registered to account id.
func Registration(cert *x509.Certificate, id pix.AccountID, revoked bool) pix.Certificate {
	return pix.Certificate{
		Fingerprint: pix.Fingerprint(cert.Raw),
		AccountID:   id,
		Subject:     cert.Subject.CommonName,
		NotBefore:   cert.NotBefore,
		NotAfter:    cert.NotAfter,
		Revoked:     revoked,
	}
}

// ParseCertPEM reads one PEM certificate.
func ParseCertPEM(b []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("not a PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

// NewClientSecret returns a client secret of 40 letters and digits from
// crypto/rand.
func NewClientSecret() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 40)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
