package pix

import "time"

// The sandbox world: values the control plane (/_sandbox) reads and writes. They
// have no counterpart in the spec; they drive what the real world would do.

// ClockReport is the simulation clock as the control plane shows it.
type ClockReport struct {
	Now     time.Time
	Mode    string // "real" or "virtual"
	JobsRun int    // jobs run by the move that produced this report
}

// MaxClockTime is the latest time the simulation clock may be moved to. Every
// timestamp the simulator stores or renders is RFC 3339, which ends with year
// 9999; the margin leaves room for the deadlines added to the clock (tokens,
// settlements, expiries, refund windows, certificates, and control-plane jobs
// of up to 292 years, the longest time.Duration).
var MaxClockTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)

// JobStatus is the status of a scheduled job.
type JobStatus string

// Job statuses.
const (
	JobScheduled JobStatus = "scheduled"
	JobDone      JobStatus = "done"
)

// JobReport is a scheduled or finished job.
type JobReport struct {
	ID     string
	Kind   string
	Due    time.Time
	Status JobStatus
	RanAt  time.Time // zero until done
	Note   string
}

// NewAccount asks for an isolated account. Empty fields are generated.
type NewAccount struct {
	Name     string
	Document string
	Balance  Cents
}

// CreatedAccount is a new account with its credentials and a fresh certificate.
type CreatedAccount struct {
	Account      Account
	ClientID     string
	ClientSecret string
	Balance      Cents
	Certificate  IssuedCertificate
}

// AccountOverview is an account as the control plane lists it.
type AccountOverview struct {
	Account   Account
	Balance   BalanceReport
	ClientIDs []string
}

// NewCertificate asks for another certificate for an account. Zero dates default
// to a validity from an hour ago to a year ahead on the simulation clock.
type NewCertificate struct {
	NotBefore time.Time
	NotAfter  time.Time
	Revoked   bool
}

// IssuedCertificate is a certificate issued by the sandbox test CA and registered.
type IssuedCertificate struct {
	CertificatePEM []byte
	PrivateKeyPEM  []byte
	Registration   Certificate
}

// InvariantReport is the result of recomputing every balance from the ledger
// and from the transaction history.
type InvariantReport struct {
	At           time.Time
	Accounts     int
	Entries      int
	Transactions int      // transactions checked against the journal
	Refunds      int      // refunds checked against their original PIX
	Inside       Cents    // the sum of every account's available + blocked
	World        Cents    // the outside world's balance from the journals; Inside + World == 0
	Violations   []string // empty when every invariant holds
}

// TimeLayout is the one timestamp format of responses and webhooks: ISO 8601 in
// UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"
