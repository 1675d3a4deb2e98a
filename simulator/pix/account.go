package pix

import "time"

// AccountID identifies an account. It is a number on the wire
// (spec "GET /api/webhooks": accountId is a number).
type AccountID int64

// KeyType is the type of a DICT key. Spec "POST /dict/pix": CPF, CNPJ, email,
// phone (+55…) or EVP.
type KeyType string

// DICT key types.
const (
	KeyTypeCPF   KeyType = "CPF"
	KeyTypeCNPJ  KeyType = "CNPJ"
	KeyTypeEmail KeyType = "EMAIL"
	KeyTypePhone KeyType = "PHONE"
	KeyTypeEVP   KeyType = "EVP"
)

// PixKey is a DICT key owned by an account.
type PixKey struct {
	Type KeyType
	Key  string
}

// Account is an account holder of the service.
type Account struct {
	ID            AccountID
	Name          string
	Document      string // CPF (11 digits) or CNPJ (14 digits)
	Branch        string
	AccountNumber string
	PixKeys       []PixKey
	CreatedAt     time.Time
}

// Balance is an account's money in centavos. Spec "Resources > Balance":
// available is usable immediately and already net of blocked; blocked is reserved
// for operations in processing; the total is available + blocked.
type Balance struct {
	Available Cents
	Blocked   Cents
}

// Gross is the total balance, available + blocked (spec: grossBalance).
func (b Balance) Gross() Cents { return b.Available + b.Blocked }

// BalanceReport is a balance read at an instant (spec: eventDate / consultedAt).
type BalanceReport struct {
	Balance
	At time.Time
}
