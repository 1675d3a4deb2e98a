package auth

import (
	"testing"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

func TestCertCache(t *testing.T) {
	set, err := fixtures.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := set.ReadFile(set.Accounts[0].Certificate)
	if err != nil {
		t.Fatal(err)
	}
	header := pix.EncodeCertHeader(pemBytes)
	var c certCache
	a, err := c.decode(header)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.decode(header)
	if err != nil || a.cert != b.cert {
		t.Fatalf("a known header was decoded again (%v)", err)
	}
	if a.fingerprint != pix.Fingerprint(a.cert.Raw) {
		t.Fatalf("fingerprint %s, want the certificate's", a.fingerprint)
	}
	if _, err := c.decode("not a certificate"); err == nil {
		t.Fatal("a malformed header decoded")
	}
	if len(c.m) != 1 {
		t.Fatalf("%d entries, want only the good header", len(c.m))
	}
	for i := range certCacheMax {
		c.m[string(rune(i))+"x"] = a
	}
	other, err := set.ReadFile(set.Accounts[1].Certificate)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.decode(pix.EncodeCertHeader(other)); err != nil || len(c.m) > certCacheMax {
		t.Fatalf("the cache grew past its bound: %d entries (%v)", len(c.m), err)
	}
}
