package codec

import (
	"testing"
	"time"
)

func TestSelfSignedCert(t *testing.T) {
	nb := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	na := nb.Add(48 * time.Hour)
	certPEM, keyPEM, err := SelfSignedCert(nb, na)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCertPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !c.NotBefore.Equal(nb) || !c.NotAfter.Equal(na) {
		t.Errorf("validity %s..%s, want %s..%s", c.NotBefore, c.NotAfter, nb, na)
	}
	if keyPEM == "" {
		t.Error("no private key")
	}
	other, _, err := SelfSignedCert(nb, na)
	if err != nil {
		t.Fatal(err)
	}
	if other == certPEM {
		t.Error("two calls gave the same certificate")
	}
}

func TestSelfSignedCertWithPlus(t *testing.T) {
	now := time.Now()
	c, err := SelfSignedCertWithPlus(now, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !CertBase64HasPlus(c) {
		t.Fatalf("no '+' in %s", c)
	}
}

func TestCertBase64HasPlus(t *testing.T) {
	if CertBase64HasPlus("-----BEGIN CERTIFICATE-----\nMIIBzCC\n-----END CERTIFICATE-----\n") {
		t.Error("reported '+' where there is none")
	}
	if !CertBase64HasPlus(pemWithPlus) {
		t.Error("missed a '+'")
	}
	if CertBase64HasPlus("-----BEGIN X+Y-----\nAAAA\n-----END X+Y-----\n") {
		t.Error("counted a '+' of the armour lines")
	}
}

func TestParseCertPEM_Errors(t *testing.T) {
	for _, in := range []string{"", "garbage", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"} {
		if _, err := ParseCertPEM(in); err == nil {
			t.Errorf("ParseCertPEM(%q) = nil error", in)
		}
	}
}

const pemWithPlus = "-----BEGIN CERTIFICATE-----\nMIIB+zCC/a==\n-----END CERTIFICATE-----\n"
