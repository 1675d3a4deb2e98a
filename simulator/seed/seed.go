package seed

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/pixsandbox/pixsandbox/fixtures"
	"github.com/pixsandbox/pixsandbox/simulator/auth"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

const (
	metaSeeded     = "seeded"
	metaDictSeeded = "dict-seeded"
)

// Tx is the slice of a store transaction the seeding writes: accounts with
// their credentials, certificates and opening balances, webhook targets and
// their ids, the DICT directory, and the marks that make it run once.
type Tx interface {
	storage.AccountTx
	storage.CredentialTx
	storage.LedgerTx
	storage.SequenceTx
	storage.WebhookTargetTx
	storage.DictTx
	storage.MetaTx
}

// Account is a fixture account seeded on first start.
type Account struct {
	Account      pix.Account
	ClientID     string
	ClientSecret string
	Balance      pix.Cents
	Certificates []Certificate
	Targets      []webhook.Target
}

// Certificate is a certificate registered to a seeded account.
type Certificate struct {
	PEM     []byte
	Revoked bool
}

// FromFixtures converts the fixture accounts into what Accounts writes.
func FromFixtures(set *fixtures.Set) ([]Account, error) {
	out := make([]Account, 0, len(set.Accounts))
	for _, a := range set.Accounts {
		bal, err := pix.ParseDecimal2(a.Balance)
		if err != nil {
			return nil, fmt.Errorf("fixture account %d: balance %q: %w", a.ID, a.Balance, err)
		}
		keys := make([]pix.PixKey, len(a.PixKeys))
		for i, k := range a.PixKeys {
			keys[i] = pix.PixKey{Type: pix.KeyType(k.Type), Key: k.Key}
		}
		sa := Account{
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
			sa.Certificates = append(sa.Certificates, Certificate{PEM: pemBytes, Revoked: ref.Revoked})
		}
		out = append(out, sa)
	}
	return out, nil
}

// Accounts writes the fixture accounts into a new data dir, once: each
// account, credential and opening balance, its certificates and its webhook
// targets.
func Accounts(tx Tx, accounts []Account, now time.Time) error {
	var done bool
	if ok, err := tx.Meta(metaSeeded, &done); err != nil || ok {
		return err
	}
	for _, a := range accounts {
		if err := PutAccount(tx, a.Account, a.ClientID, a.ClientSecret, a.Balance, now); err != nil {
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
}

// PutAccount writes an account, its credential and its opening balance (a ledger
// movement from the world, so conservation holds from the first entry).
func PutAccount(tx Tx, a pix.Account, clientID, secret string, balance pix.Cents, now time.Time) error {
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

// Banks is the participant list by ISPB, from the fixtures; Sandbox is the
// institution of every sandbox account.
type Banks struct {
	ByISPB  map[string]pix.Bank
	List    []pix.Bank // real banks (not the sandbox), in fixture order
	Sandbox pix.Bank
}

// Lookup finds a participant by ISPB.
func (b Banks) Lookup(ispb string) (pix.Bank, bool) {
	p, ok := b.ByISPB[ispb]
	return p, ok
}

// ForKey is the participant outside the sandbox that a value (a key, a
// document) always lands at.
func (b Banks) ForKey(v string) pix.Bank {
	h := fnv.New32a()
	h.Write([]byte(v))
	return b.List[int(h.Sum32())%len(b.List)]
}

// LoadBanks reads the participants of the fixtures.
func LoadBanks(set *fixtures.Set) (Banks, error) {
	b := Banks{ByISPB: map[string]pix.Bank{}}
	for _, fb := range set.Banks() {
		pb := pix.Bank{ISPB: fb.ISPB, Name: fb.Name, Code: fb.Code}
		b.ByISPB[pb.ISPB] = pb
		switch {
		case fb.Sandbox:
			b.Sandbox = pb
		case fb.Code != "": // the Central Bank (no bank code) holds no customer accounts
			b.List = append(b.List, pb)
		}
	}
	if b.Sandbox.ISPB == "" || len(b.List) == 0 {
		return b, errors.New("simulator: fixtures need banks and one sandbox bank")
	}
	return b, nil
}

// Dict writes the fixture DICT directory once, and the keys of every
// sandbox account present (fixture accounts are seeded before it).
func Dict(tx Tx, set *fixtures.Set, banks Banks) error {
	var done bool
	if ok, err := tx.Meta(metaDictSeeded, &done); err != nil || ok {
		return err
	}
	for _, k := range set.DICT() {
		bank := banks.ByISPB[k.ISPB]
		e := pix.DictEntry{Key: k.Key, Type: pix.KeyType(k.Type), Name: k.Name, Document: k.Document, ISPB: k.ISPB,
			BankName: bank.Name, BankCode: bank.Code, Branch: k.Branch, AccountNumber: k.AccountNumber,
			AccountType: k.AccountType, Scenario: k.Scenario}
		if err := tx.PutDictEntry(e); err != nil {
			return err
		}
	}
	accounts, err := tx.Accounts()
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if err := AccountKeys(tx, a, banks.Sandbox); err != nil {
			return err
		}
	}
	return tx.PutMeta(metaDictSeeded, true)
}

// AccountKeys registers a sandbox account's keys in the DICT directory, so a
// PIX to them settles into the account.
func AccountKeys(tx storage.DictTx, a pix.Account, sandbox pix.Bank) error {
	for _, k := range a.PixKeys {
		e := AccountEntry(a, sandbox)
		e.Key, e.Type = k.Key, k.Type
		if err := tx.PutDictEntry(e); err != nil {
			return err
		}
	}
	return nil
}

// Fake is a new account of the control plane: the name and document given,
// or drawn from f with every PIX key type.
func Fake(f *gofakeit.Faker, in pix.NewAccount) pix.Account {
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

// AccountEntry is sandbox account a as the DICT directory knows it, without
// a key: its holder at the sandbox's institution. Its Counterpart is the
// account as the other side of a PIX.
func AccountEntry(a pix.Account, sandbox pix.Bank) pix.DictEntry {
	return pix.DictEntry{Name: a.Name, Document: a.Document, ISPB: sandbox.ISPB, BankName: sandbox.Name, BankCode: sandbox.Code,
		Branch: a.Branch, AccountNumber: a.AccountNumber, AccountType: "CACC", AccountID: a.ID}
}
