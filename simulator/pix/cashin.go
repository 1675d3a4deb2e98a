package pix

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Cash-in limits. Spec "Endpoints > POST /api/pix/cash-in" and "Limits".
const (
	MinCashInExpiration     = 30 * time.Second
	MaxCashInExpiration     = 604800 * time.Second
	DefaultCashInExpiration = 86400 * time.Second
	MaxAdditionalInfo       = 10
	MaxSplits               = 10
	MaxSplitText            = 255
)

// SplitType says how a split's value is read.
type SplitType string

// Split types.
const (
	SplitFixed      SplitType = "FIXED"      // BRL, up to 2 decimals
	SplitPercentage SplitType = "PERCENTAGE" // percent of the gross amount (10 means 10%)
)

// SplitKeyTypes are the valid splits[].pixKeyType values.
var SplitKeyTypes = []string{"EMAIL", "PHONE", "CPF", "CNPJ", "RANDOM"}

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
		if missing[parent] {
			for _, child := range []string{".value", ".description", ".externalId", ".fullName", ".document"} {
				missing[parent+child] = true
			}
		}
	}
	out := CashIn{Description: r.Description, ExternalID: r.ExternalID, Expiration: DefaultCashInExpiration,
		GenerateQrCode: r.GenerateQrCode, PayerName: r.PayerName, PayerDocument: r.PayerDocument, AdditionalInfo: r.AdditionalInfo}
	text := func(field, v string, max int, required bool) {
		switch n := utf8.RuneCountInString(v); {
		case missing[field]:
		case required && strings.TrimSpace(v) == "":
			vs = append(vs, Violation{Field: field, Message: "must not be empty"})
		case n > max:
			vs = append(vs, Violation{Field: field, Message: "must be at most " + strconv.Itoa(max) + " characters"})
		}
	}
	text("transaction.description", r.Description, 140, true)
	text("transaction.externalId", r.ExternalID, MaxExternalIDLength, true)
	if r.ExpirationTime != "" {
		n, err := strconv.ParseInt(r.ExpirationTime, 10, 64)
		if err != nil || n < 30 || n > 604800 {
			vs = append(vs, Violation{Field: "transaction.expirationTime", Message: "must be a whole number of seconds from 30 to 604800"})
		} else {
			out.Expiration = time.Duration(n) * time.Second
		}
	}
	text("payer.fullName", r.PayerName, 100, true)
	if !missing["payer.document"] && !ValidDocument(r.PayerDocument) {
		vs = append(vs, Violation{Field: "payer.document", Message: "must be a CPF (11 digits) or CNPJ (14 digits), digits only, with valid check digits"})
	}
	if len(r.AdditionalInfo) > MaxAdditionalInfo {
		vs = append(vs, Violation{Field: "additionalInfo", Message: "must have at most 10 keys"})
	}
	if len(r.Splits) > MaxSplits {
		vs = append(vs, Violation{Field: "splits", Message: "must have at most 10 items"})
	}
	for i, sr := range r.Splits {
		s, svs := sr.validate("splits[" + strconv.Itoa(i) + "]")
		vs = append(vs, svs...)
		out.Splits = append(out.Splits, s)
	}
	amount, amountErr := ParseDecimal(r.Value)
	if len(vs) == 0 && amountErr == nil && amount >= 1 {
		var sum Cents
		for _, s := range out.Splits {
			sum += s.Amount(amount)
		}
		if sum > amount {
			vs = append(vs, Violation{Field: "splits", Message: "must sum to at most the transaction amount " + amount.Decimal2() + ", not " + sum.Decimal2()})
		}
	}
	badAmount := !missing["transaction.value"] && (amountErr != nil || amount < 1)
	amountViolation := Violation{Field: "transaction.value", Message: "must be at least 0.01 with at most 2 decimals"}
	if len(vs) > 0 {
		if badAmount { // every problem at once; the amount's own code only when it is the only one
			vs = append(vs, amountViolation)
		}
		return CashIn{}, Invalid(CodeHTTPError, vs...)
	}
	if badAmount {
		return CashIn{}, &Error{Kind: KindInvalid, Code: CodePixInvalidAmount, Message: "transaction.value must be at least 0.01 with at most 2 decimals",
			Violations: []Violation{amountViolation}}
	}
	out.Amount = amount
	if out.Expiration < minExpiration {
		return CashIn{}, &Error{Kind: KindInvalid, Code: CodeProviderExpirationBelowMinimum,
			Message:    "transaction.expirationTime " + strconv.Itoa(int(out.Expiration.Seconds())) + " is below the provider minimum of " + strconv.Itoa(int(minExpiration.Seconds())) + " seconds",
			Violations: []Violation{{Field: "transaction.expirationTime", Message: "is below the provider minimum of " + strconv.Itoa(int(minExpiration.Seconds())) + " seconds"}},
			Details:    map[string]any{"minimumExpirationTime": int(minExpiration.Seconds())}}
	}
	return out, nil
}

func (r SplitRequest) validate(f string) (Split, []Violation) {
	vs, missing := requiredViolations(prefixed(f, r.Missing))
	s := Split{PixKeyType: r.PixKeyType, PixKeySent: r.PixKey, Name: r.Name, Document: r.Document, Type: SplitType(r.Type), Immediate: r.Immediate}
	if !missing[f+".pixKey"] {
		if r.PixKey == "" || utf8.RuneCountInString(r.PixKey) > MaxSplitText {
			vs = append(vs, Violation{Field: f + ".pixKey", Message: "is required, at most 255 characters"})
		} else if key, ok := splitKey(r.PixKeyType, r.PixKey); ok {
			s.PixKey = key
		} else if validSplitKeyType(r.PixKeyType) {
			vs = append(vs, Violation{Field: f + ".pixKey", Message: "does not match pixKeyType " + r.PixKeyType})
		}
	}
	if !missing[f+".pixKeyType"] && !validSplitKeyType(r.PixKeyType) {
		vs = append(vs, Violation{Field: f + ".pixKeyType", Message: "must be one of EMAIL, PHONE, CPF, CNPJ, RANDOM"})
	}
	if !missing[f+".name"] && (strings.TrimSpace(r.Name) == "" || utf8.RuneCountInString(r.Name) > MaxSplitText) {
		vs = append(vs, Violation{Field: f + ".name", Message: "is required, at most 255 characters"})
	}
	if !missing[f+".document"] && !ValidDocument(r.Document) {
		vs = append(vs, Violation{Field: f + ".document", Message: "must be a CPF (11 digits) or CNPJ (14 digits), digits only, with valid check digits"})
	}
	if !missing[f+".value"] {
		v, err := ParseDecimal(r.Value)
		switch {
		case err != nil || v < 1:
			vs = append(vs, Violation{Field: f + ".value", Message: "must be at least 0.01 with at most 2 decimals"})
		case s.Type == SplitPercentage && v > 100_00:
			vs = append(vs, Violation{Field: f + ".value", Message: "must be at most 100 (percent)"})
		default:
			s.Value = int64(v) // centavos, or hundredths of a percent
		}
	}
	if !missing[f+".type"] && s.Type != SplitFixed && s.Type != SplitPercentage {
		vs = append(vs, Violation{Field: f + ".type", Message: "must be FIXED or PERCENTAGE"})
	}
	return s, vs
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
		return ParseCashOutKey(CashOutKeyEmail, key)
	case "PHONE":
		if strings.HasPrefix(key, "+") {
			t, k, ok := ParseDICTKey(key)
			return k, ok && t == KeyTypePhone
		}
		return ParseCashOutKey(CashOutKeyPhone, key)
	case "RANDOM":
		return ParseCashOutKey(CashOutKeyRandom, key)
	}
	return "", false
}

func validSplitKeyType(t string) bool {
	for _, k := range SplitKeyTypes {
		if k == t {
			return true
		}
	}
	return false
}

func prefixed(prefix string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = prefix + "." + f
	}
	return out
}
