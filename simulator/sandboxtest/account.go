package sandboxtest

import (
	"fmt"
	"strconv"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Account is an account of a sandbox with everything a client needs to act
// as it: the OAuth credentials of POST /api/auth/token and the client
// certificate that route reads from the X-SSL-Client-Cert header.
type Account struct {
	// ID is the account id (the token's "sub"; the accountId of the
	// /_sandbox routes).
	ID int64
	// Name is the holder's name; Document the holder's CPF (11 digits) or
	// CNPJ (14 digits).
	Name, Document string
	// Branch and AccountNumber locate the account at the sandbox's bank.
	Branch, AccountNumber string
	// ClientID and ClientSecret are the body of POST /api/auth/token.
	ClientID, ClientSecret string
	// CertificatePEM is the account's client certificate, issued by the
	// sandbox test CA (CertHeader encodes it for X-SSL-Client-Cert);
	// PrivateKeyPEM is its PKCS#8 private key.
	CertificatePEM, PrivateKeyPEM []byte
	// PixKeys are the DICT keys registered to the account.
	PixKeys []PixKey
	// OpeningBalance is the balance the account started with, in BRL with
	// two decimals ("10000.00").
	OpeningBalance string
}

// PixKey is a DICT key of an account: Type is CPF, CNPJ, EMAIL, PHONE or
// EVP, Key its canonical form.
type PixKey struct {
	Type, Key string
}

// CertHeader is the value of the X-SSL-Client-Cert header of a token request
// for the account: its certificate PEM, URL-encoded as the contract asks
// (RFC 3986, so + is %2B and a newline %0A).
func (a Account) CertHeader() string { return pix.EncodeCertHeader(a.CertificatePEM) }

// Key returns the account's first PIX key of type typ (CPF, CNPJ, EMAIL,
// PHONE or EVP), "" when it has none.
func (a Account) Key(typ string) string {
	for _, k := range a.PixKeys {
		if k.Type == typ {
			return k.Key
		}
	}
	return ""
}

// String names the account for messages: its id and holder.
func (a Account) String() string {
	return "account " + strconv.FormatInt(a.ID, 10) + " (" + a.Name + ")"
}

// fixtureAccounts are the accounts of the default workspace: the fixture
// set's, with their certificates and keys read from it.
func fixtureAccounts(set *fixtures.Set) ([]Account, error) {
	out := make([]Account, 0, len(set.Accounts))
	for _, f := range set.Accounts {
		cert, err := set.ReadFile(f.Certificate)
		if err != nil {
			return nil, err
		}
		key, err := set.ReadFile(f.Key)
		if err != nil {
			return nil, err
		}
		a := Account{ID: f.ID, Name: f.Name, Document: f.Document, Branch: f.Branch, AccountNumber: f.AccountNumber,
			ClientID: f.ClientID, ClientSecret: f.ClientSecret, CertificatePEM: cert, PrivateKeyPEM: key, OpeningBalance: f.Balance}
		for _, k := range f.PixKeys {
			a.PixKeys = append(a.PixKeys, PixKey{Type: k.Type, Key: k.Key})
		}
		out = append(out, a)
	}
	return out, nil
}

// createdAccounts are the accounts of a new workspace, from its creation.
func createdAccounts(in []pix.CreatedAccount) ([]Account, error) {
	out := make([]Account, 0, len(in))
	for _, c := range in {
		if c.ClientSecret == "" || len(c.Certificate.CertificatePEM) == 0 {
			return nil, fmt.Errorf("sandboxtest: the new workspace's account %d came without its credentials", c.Account.ID)
		}
		a := Account{ID: int64(c.Account.ID), Name: c.Account.Name, Document: c.Account.Document, Branch: c.Account.Branch,
			AccountNumber: c.Account.AccountNumber, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			CertificatePEM: c.Certificate.CertificatePEM, PrivateKeyPEM: c.Certificate.PrivateKeyPEM, OpeningBalance: c.Balance.Decimal2()}
		for _, k := range c.Account.PixKeys {
			a.PixKeys = append(a.PixKeys, PixKey{Type: string(k.Type), Key: k.Key})
		}
		out = append(out, a)
	}
	return out, nil
}
