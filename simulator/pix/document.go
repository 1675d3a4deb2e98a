package pix

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Weights of the mod-11 check digits (DOMAIN.md A3). The CPF uses 10..2 for
// the first digit and 11..2 for the second; the CNPJ uses the sequences below.
var (
	cpfWeights1  = []int{10, 9, 8, 7, 6, 5, 4, 3, 2}
	cpfWeights2  = []int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2}
	cnpjWeights1 = []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
	cnpjWeights2 = []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}
)

// ValidCPF reports whether s is a valid CPF: exactly 11 ASCII digits, no
// punctuation, whose last two digits are the mod-11 check digits of the first
// nine. Strings of one repeated digit (00000000000, 11111111111, …) satisfy the
// arithmetic but are rejected, as the Receita Federal never issues them.
func ValidCPF(s string) bool {
	if len(s) != 11 || !allDigits(s) || allEqual(s) {
		return false
	}
	return s[9] == checkDigit(s[:9], cpfWeights1) && s[10] == checkDigit(s[:10], cpfWeights2)
}

// ValidCNPJ reports whether s is a valid CNPJ: exactly 14 ASCII digits, no
// punctuation, whose last two digits are the mod-11 check digits of the first
// twelve (weights 5,4,3,2,9,8,7,6,5,4,3,2 and 6,5,4,3,2,9,8,7,6,5,4,3,2).
// Strings of one repeated digit are rejected. Alphanumeric CNPJs (IN RFB
// 2.229/2024) are not accepted, because the spec defines the CNPJ as digits.
func ValidCNPJ(s string) bool {
	if len(s) != 14 || !allDigits(s) || allEqual(s) {
		return false
	}
	return s[12] == checkDigit(s[:12], cnpjWeights1) && s[13] == checkDigit(s[:13], cnpjWeights2)
}

// ValidDocument reports whether s is a valid CPF (11 digits) or a valid CNPJ
// (14 digits). Any other length is invalid.
func ValidDocument(s string) bool {
	switch len(s) {
	case 11:
		return ValidCPF(s)
	case 14:
		return ValidCNPJ(s)
	default:
		return false
	}
}

// CPFCheckDigits appends the two check digits to base9, the first nine digits
// of a CPF, and returns the full 11-digit document, which satisfies ValidCPF.
// It returns an error when base9 is not exactly nine ASCII digits or when the
// result would be one repeated digit (any base of nine equal digits).
func CPFCheckDigits(base9 string) (string, error) {
	return withCheckDigits("CPF", base9, cpfWeights1, cpfWeights2)
}

// CNPJCheckDigits appends the two check digits to base12, the first twelve
// digits of a CNPJ (8-digit root and 4-digit branch), and returns the full
// 14-digit document, which satisfies ValidCNPJ. It returns an error when base12
// is not exactly twelve ASCII digits or when the result would be one repeated
// digit (00000000000000).
func CNPJCheckDigits(base12 string) (string, error) {
	return withCheckDigits("CNPJ", base12, cnpjWeights1, cnpjWeights2)
}

// withCheckDigits appends to base, len(w1) digits of a document of the given
// kind, its two mod-11 check digits under the weights w1 and w2.
func withCheckDigits(kind, base string, w1, w2 []int) (string, error) {
	if len(base) != len(w1) || !allDigits(base) {
		return "", fmt.Errorf("pix: %s base %q must be exactly %d digits", kind, base, len(w1))
	}
	s := base + string(checkDigit(base, w1))
	s += string(checkDigit(s, w2))
	if allEqual(s) {
		return "", fmt.Errorf("pix: %s base %q yields the repeated-digit %s %s", kind, base, kind, s)
	}
	return s, nil
}

// MaskDocument hides most of a CPF or CNPJ for logs and display, keeping only
// the middle digits, as Brazilian receipts usually do:
//
//	CPF  (11 ASCII digits) 52998224725    -> ***.982.247-**
//	CNPJ (14 ASCII digits) 60746948000112 -> **.746.948/0001-**
//
// That is "***." + d[3:6] + "." + d[6:9] + "-**" for a CPF and
// "**." + d[2:5] + "." + d[5:8] + "/" + d[8:12] + "-**" for a CNPJ. The shape
// decides, not the check digits: any 11- or 14-digit string is masked this way.
// Anything else is replaced entirely by "*", one per character (rune) of s, so
// no part of a malformed document leaks.
func MaskDocument(s string) string {
	if allDigits(s) {
		switch len(s) {
		case 11:
			return "***." + s[3:6] + "." + s[6:9] + "-**"
		case 14:
			return "**." + s[2:5] + "." + s[5:8] + "/" + s[8:12] + "-**"
		}
	}
	return strings.Repeat("*", utf8.RuneCountInString(s))
}

// checkDigit returns the mod-11 check digit of the ASCII digits in s under
// weights (len(weights) == len(s)): r = Σ d·w mod 11; the digit is 0 when
// r < 2 and 11 − r otherwise.
func checkDigit(s string, weights []int) byte {
	sum := 0
	for i, w := range weights {
		sum += int(s[i]-'0') * w
	}
	r := sum % 11
	if r < 2 {
		return '0'
	}
	return byte('0' + 11 - r)
}

// allDigits reports whether s is non-empty and made only of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// allEqual reports whether every byte of s equals the first.
func allEqual(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return false
		}
	}
	return true
}

// isDocumentShape reports whether s has the shape of a CPF or CNPJ: 11 or 14 digits.
func isDocumentShape(s string) bool { return (len(s) == 11 || len(s) == 14) && allDigits(s) }
