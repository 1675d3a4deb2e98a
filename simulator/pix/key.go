package pix

import (
	"regexp"
	"strings"
)

var (
	emailKey = regexp.MustCompile(`^[a-z0-9.!#$&'*+/=?^_` + "`" + `{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$`)
	phoneKey = regexp.MustCompile(`^\+55[1-9][0-9]\d{8,9}$`)
	evpKey   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	evpBare  = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
	digits   = regexp.MustCompile(`^\d+$`)
)

// maxKeyLength is the longest DICT key (Central Bank `Key` maxLength 77).
const maxKeyLength = 77

// ParseDICTKey detects the type of a DICT key as POST /dict/pix receives it
// (spec: CPF 11 digits, CNPJ 14 digits, email, phone "+55" area code and number,
// or EVP) and returns it in the directory's canonical form (email and EVP in
// lower case). CPF
// and CNPJ must have valid check digits.
func ParseDICTKey(key string) (KeyType, string, bool) {
	if key == "" || len(key) > maxKeyLength {
		return "", "", false
	}
	switch {
	case digits.MatchString(key) && len(key) == 11:
		return KeyTypeCPF, key, ValidCPF(key)
	case digits.MatchString(key) && len(key) == 14:
		return KeyTypeCNPJ, key, ValidCNPJ(key)
	case strings.HasPrefix(key, "+"):
		return KeyTypePhone, key, phoneKey.MatchString(key)
	case strings.Contains(key, "@"):
		k := strings.ToLower(key) // DICT keeps email keys in lower case
		return KeyTypeEmail, k, emailKey.MatchString(k)
	case evpKey.MatchString(key):
		return KeyTypeEVP, strings.ToLower(key), true
	}
	return "", "", false
}

// CashOutKeyType is details.keyType of a cash-out. Spec "POST /api/pix/cash-out".
type CashOutKeyType string

// Cash-out key types.
const (
	CashOutKeyDocument CashOutKeyType = "DOCUMENT"
	CashOutKeyEmail    CashOutKeyType = "EMAIL"
	CashOutKeyPhone    CashOutKeyType = "PHONE"
	CashOutKeyRandom   CashOutKeyType = "RANDOM"
)

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
