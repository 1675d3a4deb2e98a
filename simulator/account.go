package simulator

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/auth"
	"github.com/pixsandbox/pixsandbox/simulator/invariants"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

const (
	metaSeeded = "seeded"
	// firstCreatedAccountID is where ids of control-plane accounts start, so they
	// never collide with fixture accounts (which use small ids).
	firstCreatedAccountID pix.AccountID = 1000
	timeFormat                          = time.RFC3339
	// defaultCertificateLifetime is the validity of certificates issued by the
	// control plane when the request gives no dates.
	defaultCertificateLifetime = 365 * 24 * time.Hour
)

// seedAccounts converts fixture accounts into what seed writes.
func seedAccounts(set *fixtures.Set) ([]SeedAccount, error) {
	out := make([]SeedAccount, 0, len(set.Accounts))
	for _, a := range set.Accounts {
		bal, err := pix.ParseDecimal2(a.Balance)
		if err != nil {
			return nil, fmt.Errorf("fixture account %d: balance %q: %w", a.ID, a.Balance, err)
		}
		keys := make([]pix.PixKey, len(a.PixKeys))
		for i, k := range a.PixKeys {
			keys[i] = pix.PixKey{Type: pix.KeyType(k.Type), Key: k.Key}
		}
		sa := SeedAccount{
			Account: pix.Account{ID: pix.AccountID(a.ID), Name: a.Name, Document: a.Document, Branch: a.Branch,
				AccountNumber: a.AccountNumber, PixKeys: keys},
			ClientID: a.ClientID, ClientSecret: a.ClientSecret, Balance: bal,
		}
		for _, w := range a.WebhookTargets {
			t := webhook.Target{AccountID: a.ID, URL: w.URL, EventType: w.EventType, Secret: w.Secret, Active: true}
			for _, h := range w.Headers {
				t.Headers = append(t.Headers, webhook.Header{Key: h.Key, Value: h.Value})
			}
			if err := webhook.ValidateTarget(t, false); err != nil {
				return nil, fmt.Errorf("fixture account %d webhook target %q: %w", a.ID, w.URL, err)
			}
			sa.Targets = append(sa.Targets, t)
		}
		refs := append([]fixtures.CertRef{{Certificate: a.Certificate, Key: a.Key}}, a.OtherCertificates...)
		for _, ref := range refs {
			pemBytes, err := set.ReadFile(ref.Certificate)
			if err != nil {
				return nil, err
			}
			sa.Certificates = append(sa.Certificates, SeedCertificate{PEM: pemBytes, Revoked: ref.Revoked})
		}
		out = append(out, sa)
	}
	return out, nil
}

// seed writes the fixture accounts into a new data dir, once.
func (s *Simulator) seed(ctx context.Context, accounts []SeedAccount) error {
	now := s.clock.Now()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		var done bool
		if ok, err := tx.Meta(metaSeeded, &done); err != nil || ok {
			return err
		}
		for _, a := range accounts {
			if err := s.putAccount(tx, a.Account, a.ClientID, a.ClientSecret, a.Balance, now); err != nil {
				return fmt.Errorf("seed account %d: %w", a.Account.ID, err)
			}
			for i, c := range a.Certificates {
				cert, err := auth.ParseCertPEM(c.PEM)
				if err != nil {
					return fmt.Errorf("seed account %d certificate %d: %w", a.Account.ID, i, err)
				}
				if err := tx.PutCertificate(auth.Registration(cert, a.Account.ID, c.Revoked)); err != nil {
					return err
				}
			}
			var targets []webhook.Target
			for _, t := range a.Targets {
				t, created, err := webhook.Register(targets, t, now)
				if err != nil {
					return fmt.Errorf("seed account %d webhook target %q: %w", a.Account.ID, t.URL, err)
				}
				if created {
					if t.ID, err = tx.NextID("webhook-target"); err != nil {
						return err
					}
					t.CreatedAt = now
					targets = append(targets, t)
				}
				if err := tx.PutWebhookTarget(t); err != nil {
					return err
				}
			}
		}
		return tx.PutMeta(metaSeeded, true)
	})
}

// putAccount writes an account, its credential and its opening balance (a ledger
// movement from the world, so conservation holds from the first entry).
func (s *Simulator) putAccount(tx storage.Tx, a pix.Account, clientID, secret string, balance pix.Cents, now time.Time) error {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now
	}
	if err := tx.PutAccount(a); err != nil {
		return err
	}
	if err := tx.PutCredential(pix.Credential{ClientID: clientID, SecretHash: sha256.Sum256([]byte(secret)), AccountID: a.ID}); err != nil {
		return err
	}
	if balance > 0 {
		_, err := tx.Move(ledger.Entry{At: now, From: ledger.WorldPocket, To: ledger.AvailableOf(a.ID), Amount: balance, Ref: refs.OpeningBalance})
		return err
	}
	return nil
}

// CreateAccount creates an isolated account with a new clientId and secret, an
// opening balance, and a certificate issued by the test CA, registered and linked
// to it. Client ids and secrets come from crypto/rand; names, documents and keys
// from the seeded faker.
func (s *Simulator) CreateAccount(ctx context.Context, in pix.NewAccount) (pix.CreatedAccount, error) {
	var vs []pix.Violation
	if in.Document != "" && !pix.ValidDocument(in.Document) {
		vs = append(vs, pix.Violation{Field: "document", Message: "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits"})
	}
	if len(in.Name) > 100 {
		vs = append(vs, pix.Violation{Field: "name", Message: "must be at most 100 characters"})
	}
	if in.Balance < 0 || in.Balance > pix.MaxCents {
		vs = append(vs, pix.Violation{Field: "balance", Message: "must be between 0 and 9999999999.99"})
	}
	if len(vs) > 0 {
		return pix.CreatedAccount{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	now := s.clock.Now()
	acct := s.fakeAccount(in)
	secret := auth.NewClientSecret()
	clientID := uuid.NewString()
	issued, err := s.ca.Issue(acct.Name, now.Add(-time.Hour), now.Add(defaultCertificateLifetime))
	if err != nil {
		return pix.CreatedAccount{}, err
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		id, err := tx.NextAccountID(firstCreatedAccountID)
		if err != nil {
			return err
		}
		acct.ID = id
		acct.AccountNumber = fmt.Sprintf("%07d", int64(id))
		if err := s.putAccount(tx, acct, clientID, secret, in.Balance, now); err != nil {
			return err
		}
		issued.Registration.AccountID = id
		if err := tx.PutCertificate(issued.Registration); err != nil {
			return err
		}
		return s.putAccountKeys(tx, acct)
	})
	if err != nil {
		return pix.CreatedAccount{}, err
	}
	acct.CreatedAt = now
	return pix.CreatedAccount{Account: acct, ClientID: clientID, ClientSecret: secret, Balance: in.Balance, Certificate: issued}, nil
}

// AddCertificate issues a certificate from the test CA and registers it to the
// account, revoked when asked (spec: revoked certificates answer
// PUB_CERT_NOT_REGISTERED). Any dates are allowed, so expired and not-yet-valid
// certificates can be made on purpose.
func (s *Simulator) AddCertificate(ctx context.Context, id pix.AccountID, in pix.NewCertificate) (pix.IssuedCertificate, error) {
	now := s.clock.Now()
	if in.NotBefore.IsZero() {
		in.NotBefore = now.Add(-time.Hour)
	}
	if in.NotAfter.IsZero() {
		in.NotAfter = in.NotBefore.Add(defaultCertificateLifetime)
	}
	if !in.NotAfter.After(in.NotBefore) {
		return pix.IssuedCertificate{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "notAfter", Message: "must be after notBefore"})
	}
	var name string
	if err := s.store.View(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		name = a.Name
		return refs.NotFound(err, "account %d not found", id)
	}); err != nil {
		return pix.IssuedCertificate{}, err
	}
	issued, err := s.ca.Issue(name, in.NotBefore, in.NotAfter)
	if err != nil {
		return pix.IssuedCertificate{}, err
	}
	issued.Registration.AccountID = id
	issued.Registration.Revoked = in.Revoked
	err = s.store.Update(ctx, func(tx storage.Tx) error { return tx.PutCertificate(issued.Registration) })
	return issued, err
}

// AccountBalance returns an account's balance at the simulation clock's now.
func (s *Simulator) AccountBalance(ctx context.Context, id pix.AccountID) (pix.BalanceReport, error) {
	now := s.clock.Now()
	var b pix.Balance
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		b, err = tx.Balance(id)
		return refs.NotFound(err, "account %d not found", id)
	})
	return pix.BalanceReport{Balance: b, At: now}, err
}

func (s *Simulator) fakeAccount(in pix.NewAccount) pix.Account {
	f := s.faker
	a := pix.Account{Name: in.Name, Document: in.Document, Branch: "0001"}
	if a.Name == "" {
		a.Name = f.FirstName() + " " + f.LastName()
	}
	if a.Document == "" {
		for {
			doc, err := pix.CPFCheckDigits(f.DigitN(9))
			if err == nil && pix.ValidCPF(doc) {
				a.Document = doc
				break
			}
		}
	}
	docType := pix.KeyTypeCPF
	if len(a.Document) == 14 {
		docType = pix.KeyTypeCNPJ
	}
	local := strings.ToLower(asciiLetters(f.FirstName()) + "." + asciiLetters(f.LastName()) + f.DigitN(4))
	a.PixKeys = []pix.PixKey{
		{Type: docType, Key: a.Document},
		{Type: pix.KeyTypeEmail, Key: local + "@sandbox.pix.example"},
		{Type: pix.KeyTypePhone, Key: "+55" + fmt.Sprintf("%02d", f.Number(11, 99)) + "9" + f.DigitN(8)},
		{Type: pix.KeyTypeEVP, Key: uuidV4From(f.UUID())},
	}
	return a
}

// uuidV4From forces the version and variant nibbles of a faker UUID, so EVP keys
// are v4 like real ones.
func uuidV4From(s string) string {
	b := []byte(strings.ToLower(s))
	if len(b) == 36 {
		b[14] = '4'
		b[19] = "89ab"[strings.IndexByte("0123456789abcdef", b[19])%4]
	}
	return string(b)
}

func asciiLetters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Account returns an account and its balance (control plane).
func (s *Simulator) Account(ctx context.Context, id pix.AccountID) (pix.Account, pix.BalanceReport, error) {
	var a pix.Account
	var b pix.Balance
	now := s.clock.Now()
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		if a, err = tx.Account(id); err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		b, err = tx.Balance(id)
		return err
	})
	return a, pix.BalanceReport{Balance: b, At: now}, err
}

// CheckInvariants checks the ledger and the transaction history against each
// other in one consistent snapshot (simulator/invariants; control plane).
func (s *Simulator) CheckInvariants(ctx context.Context) (pix.InvariantReport, error) {
	return invariants.Check(ctx, s.store, s.clock.Now())
}
