package pix

import (
	"slices"
	"time"
)

// MEDStatus is the status of a MED record (spec "Resources > MED").
type MEDStatus string

// MED statuses. RECEIVED is "under analysis".
const (
	MEDStatusOpen      MEDStatus = "OPEN"
	MEDStatusReceived  MEDStatus = "RECEIVED"
	MEDStatusCancelled MEDStatus = "CANCELLED"
	MEDStatusAnalyzed  MEDStatus = "ANALYZED"
)

// MEDStatuses lists the valid statuses (GET /api/med ?status=).
var MEDStatuses = []MEDStatus{MEDStatusOpen, MEDStatusReceived, MEDStatusCancelled, MEDStatusAnalyzed}

// medTransitions: the spec shows none (Gap G-46). OPEN → RECEIVED (the receiving
// PSP acknowledges) → ANALYZED (APPROVED or REJECTED); OPEN or RECEIVED →
// CANCELLED (the requesting bank withdraws it, reason REFUND_CANCELLATION).
var medTransitions = map[MEDStatus][]MEDStatus{
	MEDStatusOpen:     {MEDStatusReceived, MEDStatusCancelled},
	MEDStatusReceived: {MEDStatusAnalyzed, MEDStatusCancelled},
}

// CanBecome reports whether s may transition to next.
func (s MEDStatus) CanBecome(next MEDStatus) bool { return slices.Contains(medTransitions[s], next) }

// MED reasons and results.
const (
	MEDReasonRefundRequest      = "REFUND_REQUEST"
	MEDReasonRefundCancellation = "REFUND_CANCELLATION"
	MEDResultApproved           = "APPROVED"
	MEDResultRejected           = "REJECTED"
)

// MEDCauses are the cause codes the sandbox accepts (the spec's examples plus
// the situation types of MED 2.0 integrations; the full list is not shown, Gap
// G-47). Operational flaws refund as MED_OPERACIONAL, the others as MED_FRAUDE.
var MEDCauses = map[string]Nature{
	"UNAUTHORIZED_TRANSACTION": NatureMedFraude,
	"SOCIAL_ENGINEERING":       NatureMedFraude,
	"SCAM":                     NatureMedFraude,
	"ACCOUNT_TAKEOVER":         NatureMedFraude,
	"COERCION":                 NatureMedFraude,
	"FRAUDULENT_ACCESS":        NatureMedFraude,
	"OTHER":                    NatureMedFraude,
	"OPERATIONAL_FLAW":         NatureMedOperacional,
}

// MEDTimeline is when each step of a MED falls due on the simulation clock
// (DOMAIN.md A4, MED timeline; Gap G-48). Each is configurable.
type MEDTimeline struct {
	Acknowledge time.Duration // OPEN → RECEIVED (the contested amount is blocked)
	Analysis    time.Duration // RECEIVED → ANALYZED, counted from creation: "within 7 calendar days"
	Refund      time.Duration // APPROVED → the refund, counted from analysis (refund request ≤ 72 h + return ≤ 24 h)
}

// DefaultMEDTimeline: acknowledged after 1 hour, analysed (APPROVED unless a
// scenario or the control plane says otherwise) 7 days after creation, refunded
// 24 hours after approval.
var DefaultMEDTimeline = MEDTimeline{Acknowledge: time.Hour, Analysis: 7 * 24 * time.Hour, Refund: 24 * time.Hour}

// Bank names a participant in a MED.
type BankRef struct {
	ISPB string
	Name string
}

// MEDOriginal is a snapshot of the contested transaction.
type MEDOriginal struct {
	Amount          Cents
	Type            string // listing type, e.g. PAYMENT
	TransactionType string // PIX
	Name            string
	Document        string
	DateTime        time.Time
}

// MED is a record of the Special Refund Mechanism against a PIX the account received.
type MED struct {
	ID                    int64
	AccountID             AccountID
	EndToEnd              string
	Status                MEDStatus
	Reason                string
	Cause                 string
	Description           string
	AnalysisResult        string
	AnalysisDetails       string
	RequestingBank        BankRef
	ContestedBank         BankRef
	Original              *MEDOriginal
	IsReconciled          bool
	OriginalTransactionID int64
	ContestedAmount       Cents
	BlockedAmount         Cents // what the block actually holds (bounded by what was available)
	RefundID              string
	Scenario              string
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// MEDOpen asks to open a MED (control plane, POST /_sandbox/med).
type MEDOpen struct {
	AccountID      AccountID
	EndToEndID     string
	Cause          string
	Description    string
	RequestingBank BankRef
	Amount         string // contested amount; default the original's, required when unreconciled
	Scenario       string
}

// MEDFilter selects MEDs for GET /api/med.
type MEDFilter struct {
	Status       MEDStatus // "" = any
	IsReconciled *bool
	From, To     time.Time // createdAt range, zero = open
	Page, Size   int
}
