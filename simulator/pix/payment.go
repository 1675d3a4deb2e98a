package pix

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
