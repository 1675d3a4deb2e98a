package core

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/simulator/auth"
	"github.com/pixsandbox/pixsandbox/simulator/invariants"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/seed"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

const (
	// firstCreatedAccountID is where ids of control-plane accounts start, so they
	// never collide with fixture accounts (which use small ids).
	firstCreatedAccountID pix.AccountID = 1000
	timeFormat                          = time.RFC3339
	// defaultCertificateLifetime is the validity of certificates issued by the
	// control plane when the request gives no dates.
	defaultCertificateLifetime = 365 * 24 * time.Hour
)

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
	acct := seed.Fake(s.faker, in)
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
		if err := seed.PutAccount(tx, acct, clientID, secret, in.Balance, now); err != nil {
			return err
		}
		issued.Registration.AccountID = id
		if err := tx.PutCertificate(issued.Registration); err != nil {
			return err
		}
		return seed.AccountKeys(tx, acct, s.banks.Sandbox)
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

// Accounts lists every account with its balance and client ids, for the
// control plane.
func (s *Simulator) Accounts(ctx context.Context) ([]pix.AccountOverview, error) {
	now := s.clock.Now()
	var out []pix.AccountOverview
	err := s.store.View(ctx, func(tx storage.Tx) error {
		accts, err := tx.Accounts()
		if err != nil {
			return err
		}
		creds, err := tx.Credentials()
		if err != nil {
			return err
		}
		for _, a := range accts {
			b, err := tx.Balance(a.ID)
			if err != nil {
				return err
			}
			o := pix.AccountOverview{Account: a, Balance: pix.BalanceReport{Balance: b, At: now}}
			for _, c := range creds {
				if c.AccountID == a.ID {
					o.ClientIDs = append(o.ClientIDs, c.ClientID)
				}
			}
			slices.Sort(o.ClientIDs)
			out = append(out, o)
		}
		return nil
	})
	return out, err
}
