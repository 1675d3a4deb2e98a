package pix

import "time"

// AccountID identifies an account. It is a number on the wire
// (spec "GET /api/webhooks": accountId is a number).
type AccountID int64

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
