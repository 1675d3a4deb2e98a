package badgerstore

import (
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Credential returns the credential of a client id.
func (t *Tx) Credential(clientID string) (pix.Credential, error) {
	var c pix.Credential
	return c, t.mustGet(credKey(clientID), &c)
}

// PutCredential creates or replaces a credential.
func (t *Tx) PutCredential(c pix.Credential) error { return t.put(credKey(c.ClientID), c) }

// Credentials returns every credential, in client id order.
func (t *Tx) Credentials() ([]pix.Credential, error) {
	var out []pix.Credential
	err := t.scan([]byte(prefixCred), func(_, val []byte) (bool, error) {
		var c pix.Credential
		if err := storecodec.Decode(val, &c); err != nil {
			return true, err
		}
		out = append(out, c)
		return false, nil
	})
	return out, err
}

// Certificate returns a registered certificate by fingerprint.
func (t *Tx) Certificate(fp string) (pix.Certificate, error) {
	var c pix.Certificate
	return c, t.mustGet(certKey(fp), &c)
}

// PutCertificate registers a certificate.
func (t *Tx) PutCertificate(c pix.Certificate) error {
	c.Fingerprint = pix.NormalizeFingerprint(c.Fingerprint)
	return t.put(certKey(c.Fingerprint), c)
}
