package pix

import "time"

// Charge is what a cash-in charge (spec "Resources > Cash-in charge") holds
// beyond its transaction: the BR Code, the expiry, the payer's details and the
// splits to pay on confirmation.
type Charge struct {
	TransactionID  int64
	AccountID      AccountID
	CorrelationID  string
	TxID           string
	LocID          int64
	Location       string
	PixCode        string
	ExpiresAt      time.Time
	GenerateQrCode bool
	PayerName      string
	PayerDocument  string
	AdditionalInfo map[string]string
	Splits         []Split
	Scenario       string
	RefusedAt      time.Time // a payment that arrived after the charge ended
}

// LocationKind names what a BR Code location points at.
type LocationKind string

// Location kinds.
const (
	LocationCob    LocationKind = "cob"
	LocationCashIn LocationKind = "cashin"
)

// LocationRef resolves a BR Code location (the token at the end of its URL) to
// its charge.
type LocationRef struct {
	Kind          LocationKind
	AccountID     AccountID
	TxID          string // cob
	TransactionID int64  // cash-in
}

// QueuedSplit is a non-immediate split waiting for the account's split schedule.
type QueuedSplit struct {
	ChargeTransactionID int64
	Index               int
	Split               Split
	Amount              Cents
	QueuedAt            time.Time
}

// Payment is a payer's payment of a charge or of a key, as the control plane
// (the payer's bank) makes it.
type Payment struct {
	PixCode       string
	TxID          string
	TransactionID string
	Key           string
	Amount        string // decimal text; "" pays the charge's amount
	PayerName     string
	PayerDocument string
	PayerISPB     string
}

// PaymentResult is what the payer's bank learns.
type PaymentResult struct {
	EndToEndID    string
	TransactionID int64
	Amount        Cents
	Fee           Cents
}
