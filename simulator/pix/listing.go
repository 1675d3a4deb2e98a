package pix

import "time"

// TxType is a transaction's type in the listings (spec "GET /api/transactions").
type TxType string

// Listing types.
const (
	TxTypePayment   TxType = "PAYMENT"    // Pix in
	TxTypeWithdraw  TxType = "WITHDRAW"   // Pix out
	TxTypeRefundIn  TxType = "REFUND_IN"  // Refund in
	TxTypeRefundOut TxType = "REFUND_OUT" // Refund out
)

// TxTypes lists the valid ?type= values; TxStatuses the valid ?status= values.
var (
	TxTypes    = []TxType{TxTypePayment, TxTypeWithdraw, TxTypeRefundIn, TxTypeRefundOut}
	TxStatuses = []TxStatus{TxStatusPending, TxStatusConfirmed, TxStatusError}
)

// ListingType maps a transaction kind to its listing type: received PIX and
// charges are PAYMENT, PIX sent (cash-out, DICT transfer, split) WITHDRAW, a
// refund of a received PIX REFUND_IN, a refund received REFUND_OUT.
func (k TxKind) ListingType() TxType {
	switch k {
	case TxPixIn, TxCashIn:
		return TxTypePayment
	case TxRefundIn:
		return TxTypeRefundIn
	case TxRefundOut:
		return TxTypeRefundOut
	}
	return TxTypeWithdraw
}

// Label is the type's display label (spec display mapping).
func (t TxType) Label() string {
	switch t {
	case TxTypePayment:
		return "Pix in"
	case TxTypeWithdraw:
		return "Pix out"
	case TxTypeRefundIn:
		return "Refund in"
	case TxTypeRefundOut:
		return "Refund out"
	}
	return string(t)
}

// MovementType is CREDIT for Pix in and Refund out, DEBIT for Pix out and Refund in.
func (t TxType) MovementType() string {
	if t == TxTypePayment || t == TxTypeRefundOut {
		return "CREDIT"
	}
	return "DEBIT"
}

// Label is the status's display label: Pendente, Confirmado, Error.
func (s TxStatus) Label() string {
	switch s {
	case TxStatusPending:
		return "Pendente"
	case TxStatusConfirmed:
		return "Confirmado"
	case TxStatusError:
		return "Error"
	}
	return string(s)
}

// FinalAmount is the amount with the fee: what left the account for a debit,
// what stayed for a credit.
func (t Transaction) FinalAmount() Cents {
	if t.Kind.ListingType().MovementType() == "CREDIT" {
		return t.Amount - t.Fee
	}
	return t.Amount + t.Fee
}

// Listing bounds. Spec "GET /api/transactions" and "GET
// /api/pix/transactions/pix-key/{pixKey}", "Limits".
const (
	MaxListingInterval     = 31 * 24 * time.Hour
	DefaultAccountLookback = 31 * 24 * time.Hour
	DefaultKeyLookback     = 30 * 24 * time.Hour
	MaxAccountPageSize     = 100
	MaxKeyPageSize         = 1000
	MaxKeyResults          = 1000
	DefaultPageSize        = 20
)

// TransactionFilter selects an account's transactions. From and To bound
// createdAt, both inclusive. MaxResults, when above zero, caps the results
// counted and listed (the key listing's 1000).
type TransactionFilter struct {
	From, To   time.Time
	Status     TxStatus
	Type       TxType
	ExternalID string
	EndToEndID string
	PixKey     string
	Page, Size int
	MaxResults int
}

// Matches reports whether t passes the filter's field conditions (not the page).
func (f TransactionFilter) Matches(t Transaction) bool {
	return !t.CreatedAt.Before(f.From) && !t.CreatedAt.After(f.To) &&
		(f.Status == "" || t.Status == f.Status) && (f.Type == "" || t.Kind.ListingType() == f.Type) &&
		(f.ExternalID == "" || t.ExternalID == f.ExternalID) && (f.EndToEndID == "" || t.EndToEndID == f.EndToEndID) &&
		(f.PixKey == "" || t.PixKey == f.PixKey)
}
