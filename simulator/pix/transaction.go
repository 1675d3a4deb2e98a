package pix

import (
	"slices"
	"time"
)

// TxKind is what a transaction is.
type TxKind string

// Transaction kinds.
const (
	TxCashOut  TxKind = "CASH_OUT" // POST /api/pix/cash-out
	TxTransfer TxKind = "TRANSFER" // POST /dict/pix
	TxPixIn    TxKind = "PIX_IN"   // a PIX received (from another sandbox account, a payer, …)
	TxCashIn   TxKind = "CASH_IN"  // POST /api/pix/cash-in: a charge, PENDING until paid
	TxSplit    TxKind = "SPLIT"    // a share of a received charge paid out to a key
	// TxRefundIn is a refund of a PIX the account received (the listing's
	// "Refund in", a debit): either refund route, or a MED.
	TxRefundIn TxKind = "REFUND_IN"
	// TxRefundOut is a refund the account received for a PIX it sent to another
	// sandbox account (the listing's "Refund out", a credit).
	TxRefundOut TxKind = "REFUND_OUT"
)

// IsPixOut reports whether transactions of kind k send money (and settle through
// the PIX-out settlement).
func (k TxKind) IsPixOut() bool { return k == TxCashOut || k == TxTransfer || k == TxSplit }

// TxStatus is a transaction's status. Spec "States and transitions > Cash-out transaction".
type TxStatus string

// Transaction statuses.
const (
	TxStatusPending   TxStatus = "PENDING"
	TxStatusConfirmed TxStatus = "CONFIRMED"
	TxStatusError     TxStatus = "ERROR"
)

// txTransitions is spec "States and transitions > Cash-out transaction" as data:
// PENDING becomes CONFIRMED or ERROR, once. Gap G-23: the DICT transfer's
// PENDING → COMPLETED | ERROR (transitions not shown) uses the same table.
var txTransitions = map[TxStatus][]TxStatus{
	TxStatusPending: {TxStatusConfirmed, TxStatusError},
}

// CanBecome reports whether s may transition to next. Terminal states have no successors.
func (s TxStatus) CanBecome(next TxStatus) bool { return slices.Contains(txTransitions[s], next) }

// TransferType is the "type" of a PIX transfer on the DICT route (spec "Resources >
// PIX transfer (DICT route) response"): PENDING, COMPLETED or ERROR.
func (s TxStatus) TransferType() string {
	switch s {
	case TxStatusConfirmed:
		return "COMPLETED"
	case TxStatusError:
		return "ERROR"
	}
	return "PENDING"
}

// Counterpart is the other side of a transaction.
type Counterpart struct {
	Name          string
	Document      string
	ISPB          string
	BankName      string
	BankCode      string
	Branch        string
	AccountNumber string
	AccountType   string
	// AccountID is the sandbox account on the other side, 0 when it is outside.
	AccountID AccountID
}

// Transaction is one movement of an account: a cash-out, a DICT transfer, a PIX
// received. Its numeric ID is the spec's "id" (PIX transfer) and the CashOut
// webhook's transactionId text; its UUID is the cash-out response's transactionId.
type Transaction struct {
	ID             int64
	UUID           string
	AccountID      AccountID
	Kind           TxKind
	Status         TxStatus
	Amount         Cents
	Fee            Cents
	ExternalID     string
	IdempotencyKey string
	// EndToEndID is the Central Bank end-to-end id, set at settlement (spec: the
	// real value is delivered in the webhook at settlement).
	EndToEndID string
	PixKey     string // as the DICT knows it (+55… phones, hyphenated EVPs)
	// PixKeySent is the key exactly as the client sent it (a cash-out's
	// details.key, a split's pixKey), echoed in the CashOut webhook; empty
	// for other kinds and for transactions recorded before it existed.
	PixKeySent  string
	KeyType     string // as the request named it (cash-out keyType, or the detected DICT type)
	Description string
	Priority    string
	Expiration  time.Duration // DICT route: time in the queue before cancellation
	Counterpart Counterpart
	// Document is the holder document the payer stated (cash-out details.document,
	// DICT creditorDocument); the settling bank verifies it.
	Document     string
	CreatedAt    time.Time
	ProcessedAt  time.Time // zero until CONFIRMED or ERROR
	ErrorCode    Code
	ErrorMessage string
	Scenario     string // forced outcome, if any
	// RelatedID links the two sides of a PIX between sandbox accounts, or a
	// split to the charge it came from.
	RelatedID int64
	// TxID is the charge's txid: the cob's, or the cash-in charge's own; on a
	// transfer, the charge it pays (spec TRANSFER data.txId).
	TxID string
}

// Hold is what the transaction reserves while it is pending: amount plus fee.
func (t Transaction) Hold() Cents { return t.Amount + t.Fee }

// Final reports whether the transaction reached a terminal status.
func (t Transaction) Final() bool { return t.Status == TxStatusConfirmed || t.Status == TxStatusError }

// FailureReason is why settlement failed (spec "Resources > Cash-out webhook
// payload", errorCode table), with its retryable flag.
type FailureReason struct {
	Code      Code
	Message   string
	Retryable bool
}

// FailureReasons is the spec's errorCode table, in its order.
var FailureReasons = []FailureReason{
	{Code: CodeTaxIDMismatch, Message: "details.document does not match the key holder", Retryable: false},
	{Code: CodeInvalidTaxID, Message: "CPF or CNPJ algorithmically invalid", Retryable: false},
	{Code: CodeBlockedAccount, Message: "destination account judicially blocked", Retryable: false},
	{Code: CodeAccountClosed, Message: "destination account closed", Retryable: false},
	{Code: CodeOrderRejected, Message: "destination bank rejected the operation", Retryable: false},
	{Code: CodePaymentExpired, Message: "transaction expired before processing", Retryable: true},
	{Code: CodeSettlementTimeout, Message: "destination bank did not answer in time", Retryable: true},
}

// LookupFailure returns the failure reason of a code.
func LookupFailure(c Code) (FailureReason, bool) {
	for _, f := range FailureReasons {
		if f.Code == c {
			return f, true
		}
	}
	return FailureReason{}, false
}
