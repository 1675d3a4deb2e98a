package pix

import (
	"regexp"
	"strings"
)

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
