// Package storage declares what the simulator needs from its store: transactions
// over accounts, credentials, certificates, the ledger journal, metadata and jobs.
// simulator/badgerstore implements it over Badger, so the core and the
// procedures under simulator/ know nothing of the database.
//
// Tx, one store transaction, is the sum of narrow interfaces, one per concern
// of the store (AccountTx, LedgerTx, … JobTx). The core works with the whole
// Tx; a procedure package takes the slices it touches, so its signatures say
// which records it reads and writes.
package storage

import (
	"context"
	"errors"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// Record is one stored key of a workspace and its value, as stored: what a
// workspace's snapshot carries (badgerstore's Records and ImportSpace).
type Record struct {
	Key string
	Val []byte
}

// ErrNotFound reports a record that does not exist.
var ErrNotFound = errors.New("storage: not found")

// Store runs transactions. Update applies fn's transaction after every
// transaction acknowledged before it was called, and may run fn more than once
// (only the writes of its last run commit), so fn must be free of side effects
// outside the Tx. fn must not call Update or Reset itself. A nil error from
// Update means the writes are durable.
type Store interface {
	Update(ctx context.Context, fn func(Tx) error) error
	View(ctx context.Context, fn func(Tx) error) error
	agenda.Store
	// CountDue counts the pending jobs due at or before until (up to limit;
	// no bound when limit <= 0) and gives the earliest due time among them,
	// without decoding the jobs.
	CountDue(ctx context.Context, until time.Time, limit int) (n int, oldest time.Time, err error)
	// Reset drops every record, as in a new data directory.
	Reset(ctx context.Context) error
	Close() error
}

// IdempotencyRecord is what an idempotency key is bound to: the fingerprint of
// the first request and the response it got, replayed to every retry.
type IdempotencyRecord struct {
	Fingerprint   string
	TransactionID int64
	Status        int
	Body          []byte
	CreatedAt     time.Time
}

// Tx is one store transaction: every slice of the store. The core takes it
// whole; a procedure takes the narrow interfaces it needs.
type Tx interface {
	AccountTx
	LedgerTx
	CredentialTx
	MetaTx
	SequenceTx
	TransactionTx
	IdempotencyTx
	DictTx
	SettingsTx
	CounterTx
	WebhookTargetTx
	WebhookEventTx
	DeliveryTx
	ChargeTx
	SplitTx
	RefundTx
	MEDTx
	JobTx
}

// AccountTx is the accounts of a transaction.
type AccountTx interface {
	// Account returns the account, or ErrNotFound.
	Account(id pix.AccountID) (pix.Account, error)
	// PutAccount creates or replaces an account record; its balance starts at zero.
	PutAccount(a pix.Account) error
	// Accounts returns every account in id order.
	Accounts() ([]pix.Account, error)
	// NextAccountID returns an unused account id, at least min.
	NextAccountID(min pix.AccountID) (pix.AccountID, error)
}

// LedgerTx is the balances and the journal of a transaction.
type LedgerTx interface {
	// Balance returns the account's balance, or ErrNotFound.
	Balance(id pix.AccountID) (pix.Balance, error)
	// Move applies a ledger entry (ledger.Apply) to the stored balances and appends
	// it to the journal of every account it touches. It is the only way a stored
	// balance changes. It returns the ledger's errors (ledger.ErrInsufficient, …).
	Move(e ledger.Entry) (ledger.Entry, error)
	// Journal calls fn with the account's entries in the order they were applied.
	Journal(id pix.AccountID, fn func(ledger.Entry) error) error
}

// CredentialTx is the client credentials and registered certificates of a
// transaction.
type CredentialTx interface {
	// Credential returns the credential of a client id, or ErrNotFound.
	Credential(clientID string) (pix.Credential, error)
	// PutCredential creates or replaces a credential.
	PutCredential(c pix.Credential) error
	// Credentials returns every credential, in client id order.
	Credentials() ([]pix.Credential, error)
	// Certificate returns a registered certificate by fingerprint, or ErrNotFound.
	Certificate(fingerprint string) (pix.Certificate, error)
	// PutCertificate registers a certificate.
	PutCertificate(c pix.Certificate) error
}

// MetaTx is the named metadata values of a transaction (the clock, the
// signing key, the seeding marks, …).
type MetaTx interface {
	// Meta reads a metadata value into v; it reports false when absent.
	Meta(key string, v any) (bool, error)
	// PutMeta writes a metadata value.
	PutMeta(key string, v any) error
}

// SequenceTx is the named number sequences of a transaction.
type SequenceTx interface {
	// NextID returns the next number of a named sequence (transactions, webhook
	// targets, webhook attempts). Numbers are unique and increasing; a crash may
	// leave gaps.
	NextID(sequence string) (int64, error)
}

// TransactionTx is the PIX transactions of a transaction, by id, UUID,
// externalId, end-to-end id and listing.
type TransactionTx interface {
	// Transaction returns a transaction by numeric id, or ErrNotFound.
	Transaction(id int64) (pix.Transaction, error)
	// TransactionByUUID returns a transaction by its UUID, or ErrNotFound.
	TransactionByUUID(uuid string) (pix.Transaction, error)
	// TransactionByExternalID returns an account's transaction by externalId, or ErrNotFound.
	TransactionByExternalID(account pix.AccountID, externalID string) (pix.Transaction, error)
	// PutTransaction creates or updates a transaction and its indexes (UUID,
	// externalId, end-to-end id, account and time).
	PutTransaction(t pix.Transaction) error
	// ListTransactions returns a page of an account's transactions, newest first,
	// and the total matching; its cost follows the page size, not the history.
	ListTransactions(account pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error)
	// TransactionByE2E returns an account's transaction by end-to-end id, or ErrNotFound.
	TransactionByE2E(account pix.AccountID, e2e string) (pix.Transaction, error)
}

// IdempotencyTx is the idempotency keys of a transaction.
type IdempotencyTx interface {
	// Idempotency returns the record of an account's idempotency key, or ErrNotFound.
	Idempotency(account pix.AccountID, key string) (IdempotencyRecord, error)
	// PutIdempotency stores the record of an idempotency key.
	PutIdempotency(account pix.AccountID, key string, r IdempotencyRecord) error
}

// DictTx is the DICT directory of a transaction.
type DictTx interface {
	// DictEntry returns the DICT entry of a key, or ErrNotFound.
	DictEntry(key string) (pix.DictEntry, error)
	// PutDictEntry creates or replaces a DICT entry.
	PutDictEntry(e pix.DictEntry) error
}

// SettingsTx is the account settings (limits, fees, the split schedule, …)
// of a transaction.
type SettingsTx interface {
	// Settings returns an account's settings; ok is false when they were never set.
	Settings(account pix.AccountID) (s pix.Settings, ok bool, err error)
	// PutSettings stores an account's settings.
	PutSettings(account pix.AccountID, s pix.Settings) error
}

// CounterTx is the named running totals of a transaction (the payer limits'
// day and night totals, the refunded total of a PIX).
type CounterTx interface {
	// Counter returns a named running total (0 when absent).
	Counter(name string) (pix.Cents, error)
	// PutCounter stores a named running total.
	PutCounter(name string, v pix.Cents) error
}

// WebhookTargetTx is the webhook targets of a transaction.
type WebhookTargetTx interface {
	// WebhookTargets returns an account's webhook targets in id order.
	WebhookTargets(account pix.AccountID) ([]webhook.Target, error)
	// WebhookTarget returns a target by id, or ErrNotFound.
	WebhookTarget(id int64) (webhook.Target, error)
	// PutWebhookTarget creates or updates a target.
	PutWebhookTarget(t webhook.Target) error
	// DeleteWebhookTarget removes a target.
	DeleteWebhookTarget(t webhook.Target) error
}

// WebhookEventTx is the webhook events (the outbox) of a transaction.
type WebhookEventTx interface {
	// PutWebhookEvent stores an event (the outbox).
	PutWebhookEvent(e webhook.Event) error
	// WebhookEvents returns a transaction's events, oldest first.
	WebhookEvents(transactionID int64) ([]webhook.Event, error)
	// WebhookEvent returns an event, or ErrNotFound.
	WebhookEvent(id string) (webhook.Event, error)
}

// DeliveryTx is the webhook deliveries and their attempts of a transaction.
type DeliveryTx interface {
	// PutDelivery creates or updates a delivery and its indexes.
	PutDelivery(d webhook.Delivery) error
	// Delivery returns a delivery, or ErrNotFound.
	Delivery(id string) (webhook.Delivery, error)
	// Deliveries returns deliveries newest first, filtered by account and
	// transaction when not zero, at most limit.
	Deliveries(account pix.AccountID, transactionID int64, limit int) ([]webhook.Delivery, error)
	// InFlightDeliveries returns the deliveries whose InFlight is set.
	InFlightDeliveries() ([]webhook.Delivery, error)
	// DeliveriesAfterAttempt returns the deliveries that have an attempt with
	// an id above after (attempt ids grow with every attempt), in the order of
	// their first such attempt, filtered by account when not zero, at most limit.
	DeliveriesAfterAttempt(account pix.AccountID, after int64, limit int) ([]webhook.Delivery, error)
}

// ChargeTx is the charges of a transaction: cobs, cash-in charges and their
// BR Code locations.
type ChargeTx interface {
	// Cob returns an account's cob by txid, or ErrNotFound.
	Cob(account pix.AccountID, txid string) (pix.Cob, error)
	// PutCob creates or updates a cob.
	PutCob(c pix.Cob) error
	// CobAccounts returns the accounts holding a cob with this txid.
	CobAccounts(txid string) ([]pix.AccountID, error)
	// Charge returns a cash-in charge by its transaction id, or ErrNotFound.
	Charge(transactionID int64) (pix.Charge, error)
	// PutCharge creates or updates a cash-in charge.
	PutCharge(c pix.Charge) error
	// ChargeByTxID returns a cash-in charge by its txid, or ErrNotFound.
	ChargeByTxID(txid string) (pix.Charge, error)
	// Location resolves a BR Code location token, or ErrNotFound.
	Location(token string) (pix.LocationRef, error)
	// PutLocation stores a BR Code location token.
	PutLocation(token string, r pix.LocationRef) error
}

// SplitTx is the queued splits of a transaction.
type SplitTx interface {
	// QueuedSplits returns an account's splits waiting for its schedule, oldest first.
	QueuedSplits(account pix.AccountID) ([]pix.QueuedSplit, error)
	// PutQueuedSplit queues a split.
	PutQueuedSplit(account pix.AccountID, q pix.QueuedSplit) error
	// DeleteQueuedSplit removes a queued split.
	DeleteQueuedSplit(account pix.AccountID, q pix.QueuedSplit) error
}

// RefundTx is the refunds of received PIX of a transaction.
type RefundTx interface {
	// Refund returns a refund of an original transaction by its id, or ErrNotFound.
	Refund(originalTransactionID int64, id string) (pix.Refund, error)
	// PutRefund creates or updates a refund.
	PutRefund(r pix.Refund) error
	// Refunds returns every refund of an original transaction in request order.
	Refunds(originalTransactionID int64) ([]pix.Refund, error)
	// RefundByTransaction returns a refund by its REFUND_IN transaction, or ErrNotFound.
	RefundByTransaction(transactionID int64) (pix.Refund, error)
}

// MEDTx is the MED records of a transaction.
type MEDTx interface {
	// MED returns a MED record, or ErrNotFound.
	MED(id int64) (pix.MED, error)
	// PutMED creates or updates a MED record.
	PutMED(m pix.MED) error
	// MEDs calls fn with an account's MED records in creation order until fn returns false.
	MEDs(account pix.AccountID, fn func(pix.MED) bool) error
}

// JobTx is the agenda's jobs as a transaction writes them: they exist only if
// it commits.
type JobTx interface {
	// PutJob schedules a job in this transaction (the transactional outbox): the job
	// exists only if the transaction commits. Call agenda.Wake after commit.
	PutJob(j agenda.Job) error
	// PutNewJob is PutJob for a job whose id no pending job has, one derived
	// from a record this transaction creates: it skips the lookup of a job to
	// replace, a read that misses (about 1% of a cash-out's CPU).
	PutNewJob(j agenda.Job) error
	// Job returns the pending job with the given id as this transaction sees
	// it; ok is false when there is none.
	Job(id string) (j agenda.Job, ok bool, err error)
	// DeleteJob removes a job in this transaction.
	DeleteJob(id string) error
	// CompleteJob records in this transaction that job j ran at ranAt and
	// removes it if it is still the pending version: a handler whose work is
	// one transaction calls it there, so the work and its bookkeeping commit
	// together and the agenda's MarkDone afterwards writes nothing.
	CompleteJob(j agenda.Job, ranAt time.Time) error
}
