package pix

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Cash-in limits. Spec "Endpoints > POST /api/pix/cash-in" and "Limits".
const (
	MinCashInExpiration     = 30 * time.Second
	MaxCashInExpiration     = 604800 * time.Second
	defaultCashInExpiration = 86400 * time.Second
	maxAdditionalInfo       = 10
	maxSplits               = 10
	maxSplitText            = 255
)

// SplitType says how a split's value is read.
type SplitType string

// Split types.
const (
	SplitFixed      SplitType = "FIXED"      // BRL, up to 2 decimals
	SplitPercentage SplitType = "PERCENTAGE" // percent of the gross amount (10 means 10%)
)

// splitKeyTypes are the valid splits[].pixKeyType values.
var splitKeyTypes = []string{"EMAIL", "PHONE", "CPF", "CNPJ", "RANDOM"}

// Split is one share of a received charge, paid out to a key on confirmation.
type Split struct {
	PixKey     string // as the DICT knows it
	PixKeySent string // as the client sent it
	PixKeyType string
	Name       string
	Document   string
	Type       SplitType
	// Value is centavos for FIXED and hundredths of a percent for PERCENTAGE
	// (12.5% is 1250).
	Value     int64
	Immediate bool
}

// Amount is what the split pays out of a gross amount. A percentage is rounded
// down to the centavo, so the splits never pay out more than was received.
func (s Split) Amount(gross Cents) Cents {
	if s.Type == SplitFixed {
		return Cents(s.Value)
	}
	return Cents(int64(gross) * s.Value / 10000)
}

// SplitRequest is one splits[] item as received.
type SplitRequest struct {
	PixKey, PixKeyType, Name, Document, Type, Value string
	Immediate                                       bool
	Missing                                         []string
}

// CashInRequest is the body of POST /api/pix/cash-in as received; numbers are
// their JSON text and Missing lists absent required fields ("transaction.value").
type CashInRequest struct {
	Value          string
	Description    string
	ExternalID     string
	ExpirationTime string
	GenerateQrCode bool
	PayerName      string
	PayerDocument  string
	AdditionalInfo map[string]string
	Splits         []SplitRequest
	Missing        []string
}

// CashIn is a validated charge request.
type CashIn struct {
	Amount         Cents
	Description    string
	ExternalID     string
	Expiration     time.Duration
	GenerateQrCode bool
	PayerName      string
	PayerDocument  string
	AdditionalInfo map[string]string
	Splits         []Split
}

// Validate applies the body table of spec "POST /api/pix/cash-in" as a
// cash-out does (Gap G-21): every problem at once under CodeHTTPError, one
// message per field, including the spec's "other causes of cash-in 400" (empty
// description or externalId, expirationTime outside 30..604800, splits summing
// above the amount) and the amount; the amount alone is CodePixInvalidAmount.
// Only a body without problems meets the account provider's minimum
// expiration (CodeProviderExpirationBelowMinimum); minExpiration 0 skips it.
func (r CashInRequest) Validate(minExpiration time.Duration) (CashIn, error) {
	vs, missing := requiredViolations(r.Missing)
	for _, parent := range []string{"transaction", "payer"} { // a missing object is reported once
		markChildren(missing, parent, "value", "description", "externalId", "fullName", "document")
	}
	out := CashIn{Description: r.Description, ExternalID: r.ExternalID, Expiration: defaultCashInExpiration,
		GenerateQrCode: r.GenerateQrCode, PayerName: r.PayerName, PayerDocument: r.PayerDocument, AdditionalInfo: r.AdditionalInfo}
	if !missing["transaction.description"] {
		vs.text("transaction.description", r.Description, maxDescription, true)
	}
	if !missing["transaction.externalId"] {
		vs.text("transaction.externalId", r.ExternalID, maxExternalIDLength, true)
	}
	if r.ExpirationTime != "" {
		n, err := strconv.ParseInt(r.ExpirationTime, 10, 64)
		if err != nil || !ValidCashInExpirationSeconds(n) {
			vs.add("transaction.expirationTime", "must be a whole number of seconds from 30 to 604800")
		} else {
			out.Expiration = time.Duration(n) * time.Second
		}
	}
	r.checkPayer(&vs, missing)
	if len(r.AdditionalInfo) > maxAdditionalInfo {
		vs.add("additionalInfo", "must have at most 10 keys")
	}
	out.Splits = r.checkSplits(&vs)
	amount, parseErr := ParseDecimal(r.Value)
	if len(vs) == 0 && parseErr == nil && amount >= 1 {
		checkSplitSum(&vs, out.Splits, amount)
	}
	var amountErr *Error
	if !missing["transaction.value"] && (parseErr != nil || amount < 1) {
		amountErr = &Error{Kind: KindInvalid, Code: CodePixInvalidAmount, Message: "transaction.value must be at least 0.01 with at most 2 decimals",
			Violations: []Violation{{Field: "transaction.value", Message: "must be at least 0.01 with at most 2 decimals"}}}
	}
	if err := layeredError(vs, amountErr); err != nil { // every problem at once; the amount's own code only when it is the only one
		return CashIn{}, err
	}
	out.Amount = amount
	if out.Expiration < minExpiration {
		return CashIn{}, belowProviderMinimum(out.Expiration, minExpiration)
	}
	return out, nil
}

// checkPayer checks payer.fullName and payer.document.
func (r CashInRequest) checkPayer(vs *violations, missing map[string]bool) {
	if !missing["payer.fullName"] {
		vs.text("payer.fullName", r.PayerName, maxHolderName, true)
	}
	if !missing["payer.document"] && !ValidDocument(r.PayerDocument) {
		vs.add("payer.document", "must be a CPF (11 digits) or CNPJ (14 digits), digits only, with valid check digits")
	}
}

// checkSplits checks the splits: at most 10, each valid.
func (r CashInRequest) checkSplits(vs *violations) []Split {
	if len(r.Splits) > maxSplits {
		vs.add("splits", "must have at most 10 items")
	}
	var out []Split
	for i, sr := range r.Splits {
		out = append(out, sr.validate("splits["+strconv.Itoa(i)+"]", vs))
	}
	return out
}

// checkSplitSum checks that the splits pay out at most the amount received.
func checkSplitSum(vs *violations, splits []Split, amount Cents) {
	var sum Cents
	for _, s := range splits {
		sum += s.Amount(amount)
	}
	if sum > amount {
		vs.add("splits", "must sum to at most the transaction amount "+amount.Decimal2()+", not "+sum.Decimal2())
	}
}

// belowProviderMinimum is the error of a cash-in whose expiration is below the
// account provider's minimum.
func belowProviderMinimum(expiration, minimum time.Duration) *Error {
	minSeconds := strconv.Itoa(int(minimum.Seconds()))
	return &Error{Kind: KindInvalid, Code: CodeProviderExpirationBelowMinimum,
		Message:    "transaction.expirationTime " + strconv.Itoa(int(expiration.Seconds())) + " is below the provider minimum of " + minSeconds + " seconds",
		Violations: []Violation{{Field: "transaction.expirationTime", Message: "is below the provider minimum of " + minSeconds + " seconds"}},
		Details:    map[string]any{"minimumExpirationTime": int(minimum.Seconds())}}
}

// validate checks one splits[] item, named f in violations, which it adds to vs.
func (r SplitRequest) validate(f string, vs *violations) Split {
	req, missing := requiredViolations(prefixed(f, r.Missing))
	*vs = append(*vs, req...)
	s := Split{PixKeyType: r.PixKeyType, PixKeySent: r.PixKey, Name: r.Name, Document: r.Document, Type: SplitType(r.Type), Immediate: r.Immediate}
	if !missing[f+".pixKey"] {
		s.PixKey = r.checkKey(f, vs)
	}
	if !missing[f+".pixKeyType"] && !validSplitKeyType(r.PixKeyType) {
		vs.add(f+".pixKeyType", "must be one of EMAIL, PHONE, CPF, CNPJ, RANDOM")
	}
	if !missing[f+".name"] && (strings.TrimSpace(r.Name) == "" || utf8.RuneCountInString(r.Name) > maxSplitText) {
		vs.add(f+".name", "is required, at most 255 characters")
	}
	if !missing[f+".document"] && !ValidDocument(r.Document) {
		vs.add(f+".document", "must be a CPF (11 digits) or CNPJ (14 digits), digits only, with valid check digits")
	}
	if !missing[f+".value"] {
		s.Value = r.checkValue(f, s.Type, vs)
	}
	if !missing[f+".type"] && s.Type != SplitFixed && s.Type != SplitPercentage {
		vs.add(f+".type", "must be FIXED or PERCENTAGE")
	}
	return s
}

// checkKey checks pixKey against pixKeyType and returns it as the DICT knows
// it ("" when it is not valid).
func (r SplitRequest) checkKey(f string, vs *violations) string {
	if r.PixKey == "" || utf8.RuneCountInString(r.PixKey) > maxSplitText {
		vs.add(f+".pixKey", "is required, at most 255 characters")
	} else if key, ok := splitKey(r.PixKeyType, r.PixKey); ok {
		return key
	} else if validSplitKeyType(r.PixKeyType) {
		vs.add(f+".pixKey", "does not match pixKeyType "+r.PixKeyType)
	}
	return ""
}

// checkValue checks value and returns it in centavos (FIXED) or hundredths of
// a percent (PERCENTAGE); 0 when it is not valid.
func (r SplitRequest) checkValue(f string, t SplitType, vs *violations) int64 {
	v, err := ParseDecimal(r.Value)
	switch {
	case err != nil || v < 1:
		vs.add(f+".value", "must be at least 0.01 with at most 2 decimals")
	case t == SplitPercentage && v > 100_00:
		vs.add(f+".value", "must be at most 100 (percent)")
	default:
		return int64(v)
	}
	return 0
}

// splitKey checks a split's key against its type and returns it as the DICT
// knows it. PHONE accepts "+55…" and the cash-out form without +55.
func splitKey(typ, key string) (string, bool) {
	switch typ {
	case "CPF":
		return key, len(key) == 11 && ValidCPF(key)
	case "CNPJ":
		return key, len(key) == 14 && ValidCNPJ(key)
	case "EMAIL":
		return parseCashOutKey(CashOutKeyEmail, key)
	case "PHONE":
		if strings.HasPrefix(key, "+") {
			t, k, ok := ParseDICTKey(key)
			return k, ok && t == KeyTypePhone
		}
		return parseCashOutKey(CashOutKeyPhone, key)
	case "RANDOM":
		return parseCashOutKey(CashOutKeyRandom, key)
	}
	return "", false
}

func validSplitKeyType(t string) bool { return slices.Contains(splitKeyTypes, t) }

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

// QueuedSplit is a non-immediate split waiting for the account's split schedule.
type QueuedSplit struct {
	ChargeTransactionID int64
	Index               int
	Split               Split
	Amount              Cents
	QueuedAt            time.Time
}
