package pix

import (
	"slices"
	"strings"
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
	markChildren(missing, "details", "keyType", "name", "document", "key")
	if !missing["externalId"] {
		vs.text("externalId", r.ExternalID, maxExternalIDLength, true)
	}
	vs.text("description", r.Description, maxDescription, false)
	kt := CashOutKeyType(r.KeyType)
	if !missing["details.keyType"] && !validCashOutKeyType(kt) {
		vs.add("details.keyType", "must be one of DOCUMENT, EMAIL, PHONE, RANDOM")
	}
	if !missing["details.name"] {
		vs.text("details.name", r.Name, maxHolderName, true)
	}
	if !missing["details.document"] && !isDocumentShape(r.Document) {
		vs.add("details.document", "must be a CPF (11 digits) or CNPJ (14 digits), digits only")
	}
	if !missing["details.key"] && r.Key == "" {
		vs.add("details.key", "must not be empty")
	}
	// Layers 2 and 3, the amount and the key, are judged too: when they are
	// the only problem the answer carries their specific code, otherwise every
	// problem goes in one HTTP_ERROR list.
	var amountErr, keyErr *Error
	amount, err := ParseDecimal(r.Value)
	if !missing["value"] && (err != nil || amount < 1) {
		amountErr = invalidCashOutAmount(err)
	}
	key, ok := parseCashOutKey(kt, r.Key)
	if !ok && validCashOutKeyType(kt) && !missing["details.key"] && r.Key != "" {
		keyErr = &Error{Kind: KindInvalid, Code: CodePixInvalidPixKey,
			Message:    "details.key does not match details.keyType " + string(kt) + ": " + cashOutKeyRule[kt],
			Violations: []Violation{{Field: "details.key", Message: "does not match keyType " + string(kt) + ": " + cashOutKeyRule[kt]}}}
	}
	if err := layeredError(vs, amountErr, keyErr); err != nil {
		return CashOut{}, err
	}
	return CashOut{Amount: amount, ExternalID: r.ExternalID, Description: r.Description, Key: key, KeySent: r.Key, KeyType: kt, Name: r.Name, Document: r.Document}, nil
}

// invalidCashOutAmount is the error of a cash-out value below 0.01 or with
// more than 2 decimals; parseErr is ParseDecimal's error, if any.
func invalidCashOutAmount(parseErr error) *Error {
	msg := "value must be at least 0.01 with at most 2 decimals"
	if parseErr != nil {
		msg += " (" + parseErr.Error() + ")"
	}
	return &Error{Kind: KindInvalid, Code: CodePixInvalidAmount, Message: msg,
		Violations: []Violation{{Field: "value", Message: "must be at least 0.01 with at most 2 decimals"}}}
}

var cashOutKeyRule = map[CashOutKeyType]string{
	CashOutKeyDocument: "11 digits (CPF) or 14 digits (CNPJ), digits only, with valid check digits",
	CashOutKeyEmail:    "a valid email address",
	CashOutKeyPhone:    "area code plus number, 10 or 11 digits, without +55",
	CashOutKeyRandom:   "a UUID, with or without hyphens",
}

func validCashOutKeyType(t CashOutKeyType) bool { return slices.Contains(cashOutKeyTypes, t) }

// CashOutKeyType is details.keyType of a cash-out. Spec "POST /api/pix/cash-out".
type CashOutKeyType string

// Cash-out key types.
const (
	CashOutKeyDocument CashOutKeyType = "DOCUMENT"
	CashOutKeyEmail    CashOutKeyType = "EMAIL"
	CashOutKeyPhone    CashOutKeyType = "PHONE"
	CashOutKeyRandom   CashOutKeyType = "RANDOM"
)

// CashOutKeyFor is how a cash-out names the DICT key key of type t (spec
// "POST /api/pix/cash-out", formats of details.key): a CPF or CNPJ as
// DOCUMENT, a phone without +55, an EVP as RANDOM, an e-mail as it is.
func CashOutKeyFor(t KeyType, key string) (string, CashOutKeyType) {
	switch t {
	case KeyTypeCPF, KeyTypeCNPJ:
		return key, CashOutKeyDocument
	case KeyTypePhone:
		return strings.TrimPrefix(key, "+55"), CashOutKeyPhone
	case KeyTypeEVP:
		return key, CashOutKeyRandom
	}
	return key, CashOutKeyType(t)
}

// cashOutKeyTypes lists the valid details.keyType values.
var cashOutKeyTypes = []CashOutKeyType{CashOutKeyDocument, CashOutKeyEmail, CashOutKeyPhone, CashOutKeyRandom}

// parseCashOutKey checks details.key against details.keyType (spec "POST
// /api/pix/cash-out", formats of details.key: DOCUMENT 11 or 14 digits, digits
// only, with valid check digits; EMAIL a valid address; PHONE area code plus
// number, 10 or 11 digits, without +55; RANDOM a UUID with or without hyphens)
// and returns the key as the DICT knows it: phones as "+55…", random keys
// hyphenated and lowercase, emails lowercase.
func parseCashOutKey(t CashOutKeyType, key string) (string, bool) {
	switch t {
	case CashOutKeyDocument:
		if len(key) == 11 && ValidCPF(key) || len(key) == 14 && ValidCNPJ(key) {
			return key, true
		}
	case CashOutKeyEmail:
		k := strings.ToLower(key)
		if len(k) <= maxKeyLength && emailKey.MatchString(k) {
			return k, true
		}
	case CashOutKeyPhone:
		if digits.MatchString(key) && (len(key) == 10 || len(key) == 11) && key[0] != '0' && key[1] != '0' {
			return "+55" + key, true
		}
	case CashOutKeyRandom:
		k := strings.ToLower(key)
		if evpBare.MatchString(k) {
			k = k[0:8] + "-" + k[8:12] + "-" + k[12:16] + "-" + k[16:20] + "-" + k[20:]
		}
		if evpKey.MatchString(k) {
			return k, true
		}
	}
	return "", false
}
