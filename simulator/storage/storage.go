// Package storage declares what the simulator needs from its store: transactions
// over accounts, credentials, certificates, the ledger journal, metadata and jobs.
// simulator/badgerstore implements it over Badger; the simulator never imports Badger.
//
// It may import simulator/pix, simulator/ledger and simulator/agenda only.
package storage

import (
	"context"
	"errors"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// ErrNotFound reports a record that does not exist.
var ErrNotFound = errors.New("storage: not found")

// Store runs transactions. Update retries fn when the transaction conflicts with a
// concurrent one, so fn must be free of side effects outside the Tx. A nil error
// from Update means the writes are durable.
type Store interface {
	Update(ctx context.Context, fn func(Tx) error) error
	View(ctx context.Context, fn func(Tx) error) error
	agenda.Store
	Close() error
}

// Tx is one store transaction.
type Tx interface {
	// Account returns the account, or ErrNotFound.
	Account(id pix.AccountID) (pix.Account, error)
	// PutAccount creates or replaces an account record; its balance starts at zero.
	PutAccount(a pix.Account) error
	// Accounts returns every account in id order.
	Accounts() ([]pix.Account, error)
	// NextAccountID returns an unused account id, at least min.
	NextAccountID(min pix.AccountID) (pix.AccountID, error)

	// Balance returns the account's balance, or ErrNotFound.
	Balance(id pix.AccountID) (pix.Balance, error)
	// Move applies a ledger entry (ledger.Apply) to the stored balances and appends
	// it to the journal of every account it touches. It is the only way a stored
	// balance changes. It returns the ledger's errors (ledger.ErrInsufficient, …).
	Move(e ledger.Entry) (ledger.Entry, error)
	// Journal calls fn with the account's entries in the order they were applied.
	Journal(id pix.AccountID, fn func(ledger.Entry) error) error

	// Credential returns the credential of a client id, or ErrNotFound.
	Credential(clientID string) (pix.Credential, error)
	// PutCredential creates or replaces a credential.
	PutCredential(c pix.Credential) error
	// Certificate returns a registered certificate by fingerprint, or ErrNotFound.
	Certificate(fingerprint string) (pix.Certificate, error)
	// PutCertificate registers a certificate.
	PutCertificate(c pix.Certificate) error

	// Meta reads a metadata value into v; it reports false when absent.
	Meta(key string, v any) (bool, error)
	// PutMeta writes a metadata value.
	PutMeta(key string, v any) error

	// PutJob schedules a job in this transaction (the transactional outbox): the job
	// exists only if the transaction commits. Call agenda.Wake after commit.
	PutJob(j agenda.Job) error
	// DeleteJob removes a job in this transaction.
	DeleteJob(id string) error
}
