package pix

import "time"

// The sandbox world: values the control plane (/_sandbox) reads and writes. They
// have no counterpart in the spec; they drive what the real world would do.

// ClockReport is the simulation clock as the control plane shows it.
type ClockReport struct {
	Now     time.Time
	Mode    string // "real" or "virtual"
	JobsRun int    // jobs run by the move that produced this report
	// WebhooksPending counts the webhook attempts still under way (or
	// queued) when the move answered.
	WebhooksPending int
}

// ClockWait says what a clock move waits for besides the state-changing jobs
// it runs on the way.
type ClockWait string

// Clock move waits.
const (
	// ClockWaitJobs answers once the jobs have run; webhook attempts they
	// started go on in the background.
	ClockWaitJobs ClockWait = ""
	// ClockWaitWebhooks also waits, at each instant on the way, for the
	// webhook attempts due then, so retries run at their own simulation
	// times, and answers once every attempt due by the new time is made.
	ClockWaitWebhooks ClockWait = "webhooks"
)

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

// JobBacklog is how far the job runner is behind the simulation clock.
type JobBacklog struct {
	Due       int       // pending jobs due at or before now (counted up to MaxBacklogCount)
	OldestDue time.Time // the earliest due time of those; zero when none
	// Lag is now minus OldestDue: how far behind the runner is, in
	// simulation time.
	Lag time.Duration
	// WebhooksPending counts the webhook attempts running or queued in the
	// worker pool.
	WebhooksPending int
}

// MaxBacklogCount bounds the count of JobBacklog.Due.
const MaxBacklogCount = 1_000_000

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
