package pix

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Transfer limits. Spec "Endpoints > POST /dict/pix" and "Limits".
const (
	MinTransferExpiration     = 1 * time.Second
	MaxTransferExpiration     = 10800 * time.Second
	DefaultTransferExpiration = 600 * time.Second
)

// Transfer priorities.
const (
	PriorityHigh = "HIGH" // processed instantly; needs creditorDocument
	PriorityNorm = "NORM" // the normal queue
)

// TransferRequest is a PIX transfer to a DICT key as requested. Missing lists the
// required fields the request lacked; Amount and Expiration are JSON number text.
type TransferRequest struct {
	IdempotencyKey   string
	PixKey           string
	CreditorDocument string
	Priority         string
	Description      string
	Expiration       string
	Currency         string
	Amount           string
	IspbDeny         []string
	// TxID names a charge of the key's holder that the transfer pays (Gap G-39:
	// the TRANSFER webhook carries txId, so a transfer can name the charge).
	TxID    string
	Missing []string
}

// Transfer is a validated transfer request.
type Transfer struct {
	IdempotencyKey   string
	PixKey           string
	KeyType          KeyType
	CreditorDocument string
	Priority         string
	Description      string
	Expiration       time.Duration
	Amount           Cents
	IspbDeny         []string
	TxID             string
}

// ValidateKey checks rule 1: the x-idempotency-key header is present and a UUID v4.
func (r TransferRequest) ValidateKey() error {
	if IsUUIDv4(r.IdempotencyKey) {
		return nil
	}
	msg := "is required"
	if r.IdempotencyKey != "" {
		msg = "must be a UUID v4"
	}
	return &Error{Kind: KindInvalid, Code: CodeIdempotencyKeyMissing, Message: "header x-idempotency-key " + msg,
		Violations: []Violation{{Field: "x-idempotency-key", Message: msg}}}
}

var ispbPattern = regexp.MustCompile(`^[0-9A-Z]{8}$`)

// Validate applies the spec's rules (rule 1: x-idempotency-key required; key
// formats; priority HIGH needs creditorDocument; expiration 1..10800, default 600;
// amount with at most 2 decimals). Every failure is KindInvalid (400), one
// violation per field.
func (r TransferRequest) Validate() (Transfer, error) {
	if err := r.ValidateKey(); err != nil {
		return Transfer{}, err
	}
	out := Transfer{IdempotencyKey: strings.ToLower(r.IdempotencyKey), Priority: r.Priority, Description: r.Description,
		CreditorDocument: r.CreditorDocument, Expiration: DefaultTransferExpiration}
	vs, missing := requiredViolations(r.Missing)
	if !missing["pixKey"] {
		t, key, ok := ParseDICTKey(r.PixKey)
		if ok {
			out.PixKey, out.KeyType = key, t
		} else {
			vs = append(vs, Violation{Field: "pixKey", Message: "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits, an email, a phone as +55 area code and number, or an EVP (UUID)"})
		}
	}
	switch r.Priority {
	case "", PriorityNorm:
		out.Priority = PriorityNorm
	case PriorityHigh:
		if r.CreditorDocument == "" {
			vs = append(vs, Violation{Field: "creditorDocument", Message: "is required when priority is HIGH"})
		}
	default:
		vs = append(vs, Violation{Field: "priority", Message: "must be HIGH or NORM"})
	}
	if r.CreditorDocument != "" && !ValidDocument(r.CreditorDocument) {
		vs = append(vs, Violation{Field: "creditorDocument", Message: "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits"})
	}
	if utf8.RuneCountInString(r.Description) > 140 {
		vs = append(vs, Violation{Field: "description", Message: "must be at most 140 characters"})
	}
	if r.Expiration != "" {
		n, err := strconv.ParseInt(r.Expiration, 10, 64)
		if err != nil || n < 1 || n > 10800 {
			vs = append(vs, Violation{Field: "expiration", Message: "must be a whole number of seconds from 1 to 10800"})
		} else {
			out.Expiration = time.Duration(n) * time.Second
		}
	}
	if !missing["payment"] {
		if !missing["payment.currency"] && r.Currency != "BRL" {
			vs = append(vs, Violation{Field: "payment.currency", Message: `must be "BRL"`})
		}
		if !missing["payment.amount"] {
			amount, err := ParseDecimal(r.Amount)
			if err != nil || amount < 1 {
				vs = append(vs, Violation{Field: "payment.amount", Message: "must be at least 0.01 with at most 2 decimals"})
			}
			out.Amount = amount
		}
	}
	for i, ispb := range r.IspbDeny {
		if !ispbPattern.MatchString(ispb) {
			vs = append(vs, Violation{Field: "ispbDeny[" + strconv.Itoa(i) + "]", Message: "must be an 8-character ISPB"})
		}
	}
	out.IspbDeny = r.IspbDeny
	if r.TxID != "" && !ValidTxID(r.TxID) {
		vs = append(vs, Violation{Field: "txId", Message: "must be 26 to 35 characters of [a-zA-Z0-9]"})
	}
	out.TxID = r.TxID
	if len(vs) > 0 {
		return Transfer{}, Invalid(CodeInvalidRequest, vs...)
	}
	return out, nil
}

// Fingerprint identifies the request behind an idempotency key: two requests
// with the same key and fingerprint are the same request.
func (t Transfer) Fingerprint() string {
	h := sha256.New()
	for _, part := range []string{t.PixKey, t.CreditorDocument, t.Priority, t.Description,
		t.Expiration.String(), t.Amount.Decimal2(), strings.Join(t.IspbDeny, ","), t.TxID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Denies reports whether ispb is in the request's ispbDeny list (spec rule 3).
func (t Transfer) Denies(ispb string) bool {
	for _, d := range t.IspbDeny {
		if d == ispb {
			return true
		}
	}
	return false
}
