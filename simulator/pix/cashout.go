package pix

import (
	"strings"
	"unicode/utf8"
)

// CashOutRequest is a cash-out as requested (spec "Endpoints > POST
// /api/pix/cash-out"). Missing lists the required fields the request lacked
// (the transport knows presence); Value is the JSON number's text.
type CashOutRequest struct {
	Value       string
	ExternalID  string
	Description string
	Key         string
	KeyType     string
	Name        string
	Document    string
	Missing     []string
}

// CashOut is a validated cash-out.
type CashOut struct {
	Amount      Cents
	ExternalID  string
	Description string
	Key         string // as the DICT knows it
	KeySent     string // details.key exactly as the client sent it
	KeyType     CashOutKeyType
	Name        string
	Document    string
}

// MaxExternalIDLength bounds externalId (Gap G-25: the spec gives no length).
const MaxExternalIDLength = 255

// Validate applies the field rules and reports every problem at once (Gap
// G-21): body validation (required fields, lengths, keyType, document of 11 or
// 14 digits), the amount (below 0.01 or more than 2 decimals) and the key
// against its type. When the only problem is the amount the code is
// CodePixInvalidAmount; when it is the key, CodePixInvalidPixKey; otherwise
// CodeHTTPError with one violation per invalid field.
//
// The document's check digits are not verified here: the settling bank does it
// (settlement fails with INVALID_TAX_ID).
func (r CashOutRequest) Validate() (CashOut, error) {
	vs, missing := requiredViolations(r.Missing)
	if !missing["externalId"] {
		switch {
		case strings.TrimSpace(r.ExternalID) == "":
			vs = append(vs, Violation{Field: "externalId", Message: "must not be empty"})
		case utf8.RuneCountInString(r.ExternalID) > MaxExternalIDLength:
			vs = append(vs, Violation{Field: "externalId", Message: "must be at most 255 characters"})
		}
	}
	if utf8.RuneCountInString(r.Description) > 140 {
		vs = append(vs, Violation{Field: "description", Message: "must be at most 140 characters"})
	}
	kt := CashOutKeyType(r.KeyType)
	if !missing["details.keyType"] && !missing["details"] && !validCashOutKeyType(kt) {
		vs = append(vs, Violation{Field: "details.keyType", Message: "must be one of DOCUMENT, EMAIL, PHONE, RANDOM"})
	}
	if !missing["details.name"] && !missing["details"] {
		switch n := utf8.RuneCountInString(r.Name); {
		case strings.TrimSpace(r.Name) == "":
			vs = append(vs, Violation{Field: "details.name", Message: "must not be empty"})
		case n > 100:
			vs = append(vs, Violation{Field: "details.name", Message: "must be at most 100 characters"})
		}
	}
	if !missing["details.document"] && !missing["details"] && !isDocumentShape(r.Document) {
		vs = append(vs, Violation{Field: "details.document", Message: "must be a CPF (11 digits) or CNPJ (14 digits), digits only"})
	}
	if !missing["details.key"] && !missing["details"] && r.Key == "" {
		vs = append(vs, Violation{Field: "details.key", Message: "must not be empty"})
	}
	// Layers 2 and 3, the amount and the key, are judged too: when they are
	// the only problem the answer carries their specific code, otherwise every
	// problem goes in one HTTP_ERROR list.
	var valueErrs []*Error
	amount, err := ParseDecimal(r.Value)
	if !missing["value"] && (err != nil || amount < 1) {
		msg := "value must be at least 0.01 with at most 2 decimals"
		if err != nil {
			msg += " (" + err.Error() + ")"
		}
		valueErrs = append(valueErrs, &Error{Kind: KindInvalid, Code: CodePixInvalidAmount, Message: msg,
			Violations: []Violation{{Field: "value", Message: "must be at least 0.01 with at most 2 decimals"}}})
	}
	key, ok := ParseCashOutKey(kt, r.Key)
	if !ok && validCashOutKeyType(kt) && !missing["details.key"] && !missing["details"] && r.Key != "" {
		valueErrs = append(valueErrs, &Error{Kind: KindInvalid, Code: CodePixInvalidPixKey,
			Message:    "details.key does not match details.keyType " + string(kt) + ": " + cashOutKeyRule[kt],
			Violations: []Violation{{Field: "details.key", Message: "does not match keyType " + string(kt) + ": " + cashOutKeyRule[kt]}}})
	}
	if len(vs) == 0 && len(valueErrs) == 1 {
		return CashOut{}, valueErrs[0]
	}
	for _, e := range valueErrs {
		vs = append(vs, e.Violations...)
	}
	if len(vs) > 0 {
		return CashOut{}, Invalid(CodeHTTPError, vs...)
	}
	return CashOut{Amount: amount, ExternalID: r.ExternalID, Description: r.Description, Key: key, KeySent: r.Key, KeyType: kt, Name: r.Name, Document: r.Document}, nil
}

var cashOutKeyRule = map[CashOutKeyType]string{
	CashOutKeyDocument: "11 digits (CPF) or 14 digits (CNPJ), digits only, with valid check digits",
	CashOutKeyEmail:    "a valid email address",
	CashOutKeyPhone:    "area code plus number, 10 or 11 digits, without +55",
	CashOutKeyRandom:   "a UUID, with or without hyphens",
}

func validCashOutKeyType(t CashOutKeyType) bool {
	for _, k := range CashOutKeyTypes {
		if k == t {
			return true
		}
	}
	return false
}

// isDocumentShape reports whether s has the shape of a CPF or CNPJ: 11 or 14 digits.
func isDocumentShape(s string) bool { return (len(s) == 11 || len(s) == 14) && allDigits(s) }
