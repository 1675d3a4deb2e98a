package pix

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Transfer limits. Spec "Endpoints > POST /dict/pix" and "Limits".
const (
	minTransferExpiration     = 1 * time.Second
	maxTransferExpiration     = 10800 * time.Second
	defaultTransferExpiration = 600 * time.Second
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
		CreditorDocument: r.CreditorDocument, Expiration: defaultTransferExpiration, IspbDeny: r.IspbDeny, TxID: r.TxID}
	vs, missing := requiredViolations(r.Missing)
	if !missing["pixKey"] {
		t, key, ok := ParseDICTKey(r.PixKey)
		if ok {
			out.PixKey, out.KeyType = key, t
		} else {
			vs.add("pixKey", "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits, an email, a phone as +55 area code and number, or an EVP (UUID)")
		}
	}
	out.Priority = r.checkPriority(&vs)
	vs.text("description", r.Description, maxDescription, false)
	if r.Expiration != "" {
		n, err := strconv.ParseInt(r.Expiration, 10, 64)
		if err != nil || n < int64(minTransferExpiration/time.Second) || n > int64(maxTransferExpiration/time.Second) {
			vs.add("expiration", "must be a whole number of seconds from 1 to 10800")
		} else {
			out.Expiration = time.Duration(n) * time.Second
		}
	}
	if !missing["payment"] {
		out.Amount = r.checkPayment(&vs, missing)
	}
	for i, ispb := range r.IspbDeny {
		if !ispbPattern.MatchString(ispb) {
			vs.add("ispbDeny["+strconv.Itoa(i)+"]", "must be an 8-character ISPB")
		}
	}
	if r.TxID != "" && !ValidTxID(r.TxID) {
		vs.add("txId", "must be 26 to 35 characters of [a-zA-Z0-9]")
	}
	if len(vs) > 0 {
		return Transfer{}, Invalid(CodeInvalidRequest, vs...)
	}
	return out, nil
}

// checkPriority checks priority (HIGH needs creditorDocument) and
// creditorDocument, and returns the priority in force (NORM when absent).
func (r TransferRequest) checkPriority(vs *violations) string {
	priority := r.Priority
	switch r.Priority {
	case "", PriorityNorm:
		priority = PriorityNorm
	case PriorityHigh:
		if r.CreditorDocument == "" {
			vs.add("creditorDocument", "is required when priority is HIGH")
		}
	default:
		vs.add("priority", "must be HIGH or NORM")
	}
	if r.CreditorDocument != "" && !ValidDocument(r.CreditorDocument) {
		vs.add("creditorDocument", "must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits")
	}
	return priority
}

// checkPayment checks payment.currency and payment.amount and returns the amount.
func (r TransferRequest) checkPayment(vs *violations, missing map[string]bool) Cents {
	if !missing["payment.currency"] && r.Currency != "BRL" {
		vs.add("payment.currency", `must be "BRL"`)
	}
	if missing["payment.amount"] {
		return 0
	}
	amount, err := ParseDecimal(r.Amount)
	if err != nil || amount < 1 {
		vs.add("payment.amount", "must be at least 0.01 with at most 2 decimals")
	}
	return amount
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
func (t Transfer) Denies(ispb string) bool { return slices.Contains(t.IspbDeny, ispb) }
