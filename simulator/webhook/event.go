package webhook

import (
	"crypto/rand"
	"time"
)

// Event is one notification to deliver to every active target of its type.
// The simulator builds Body; this package sends it byte for byte.
type Event struct {
	// ID identifies the event across every delivery and retry. It is sent as
	// webhook-id, the receivers' deduplication key. See NewEventID.
	ID        string
	AccountID int64
	EventType string // one of EventTypes
	// Kind is the payload's kind ("TRANSFER", "RECEIVE", "REFUND", "CashOut",
	// …), for inspection only.
	Kind          string
	TransactionID int64
	Body          []byte    // the exact bytes sent; signatures are over these bytes
	CreatedAt     time.Time // simulation time
}

// NewEventID returns a fresh event ID: "evt_" followed by 26 base32
// characters (128 random bits from crypto/rand). It contains no ".", as
// Standard Webhooks requires of a message id.
func NewEventID() string { return "evt_" + rand.Text() }

// newDeliveryID returns a fresh delivery ID: "dlv_" followed by 26 base32
// characters from crypto/rand.
func newDeliveryID() string { return "dlv_" + rand.Text() }
