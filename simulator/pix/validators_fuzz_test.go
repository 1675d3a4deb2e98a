package pix

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// alnum reports whether s is made only of ASCII letters and digits and has
// between lo and hi bytes.
func alnum(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// FuzzParseDICTKey checks the DICT key parser: it never panics, an accepted key
// has a known type, at most maxKeyLength bytes and a canonical form that parses
// to itself with the same type.
func FuzzParseDICTKey(f *testing.F) {
	for _, s := range []string{"52998224725", "60746948000112", "+5511987654321", "Pix@BCB.gov.br",
		"123e4567-E89B-12d3-a456-426614174000", "11111111111", "+55119", "a@b", "@", "", "+", "5299822472a",
		strings.Repeat("a", 70) + "@b.com", "x@" + strings.Repeat("a", 62) + ".com", "ä@b.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, key, ok := ParseDICTKey(s)
		if !ok {
			return
		}
		if key == "" || len(key) > maxKeyLength {
			t.Fatalf("ParseDICTKey(%q) accepted %q of %d bytes", s, key, len(key))
		}
		switch typ {
		case KeyTypeCPF, KeyTypeCNPJ:
			if !ValidDocument(key) || key != s {
				t.Fatalf("ParseDICTKey(%q) = %s %q", s, typ, key)
			}
		case KeyTypeEmail, KeyTypePhone, KeyTypeEVP:
		default:
			t.Fatalf("ParseDICTKey(%q) = unknown type %q", s, typ)
		}
		typ2, key2, ok2 := ParseDICTKey(key)
		if !ok2 || typ2 != typ || key2 != key {
			t.Fatalf("canonical %q of %q re-parses as %q %q %v", key, s, typ2, key2, ok2)
		}
	})
}

// FuzzParseCashOutKey checks details.key against every details.keyType: it
// never panics, and an accepted key is a DICT key in its canonical form.
func FuzzParseCashOutKey(f *testing.F) {
	for _, s := range []struct{ typ, key string }{
		{"DOCUMENT", "52998224725"}, {"DOCUMENT", "60746948000112"}, {"EMAIL", "Pix@BCB.gov.br"},
		{"PHONE", "11987654321"}, {"PHONE", "0198765432"}, {"RANDOM", "123E4567E89B12D3A456426614174000"},
		{"RANDOM", "123e4567-e89b-12d3-a456-426614174000"}, {"CPF", "52998224725"}, {"", ""}, {"PHONE", "1"},
	} {
		f.Add(s.typ, s.key)
	}
	f.Fuzz(func(t *testing.T, typ, s string) {
		key, ok := parseCashOutKey(CashOutKeyType(typ), s)
		if !ok {
			return
		}
		dt, dk, dok := ParseDICTKey(key)
		if !dok || dk != key {
			t.Fatalf("parseCashOutKey(%s, %q) = %q, which the DICT parses as %q %q %v", typ, s, key, dt, dk, dok)
		}
	})
}

// FuzzValidEndToEndID checks the end-to-end id validator against its
// definition and NewEndToEndID: an accepted id is 32 characters, has a real
// minute and is rebuilt identically from its parts.
func FuzzValidEndToEndID(f *testing.F) {
	for _, s := range []string{"E13140088202603021200abcdefghijk", "D1314008820260302120012345678901",
		"E13140088202613021200abcdefghijk", "E1314008820260302120", "X13140088202603021200abcdefghijk", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidEndToEndID(s) {
			return
		}
		if len(s) != 32 || (s[0] != 'E' && s[0] != 'D') || !ValidE2EPath(s) {
			t.Fatalf("ValidEndToEndID(%q) = true", s)
		}
		at, err := time.Parse("200601021504", s[9:21])
		if err != nil {
			t.Fatalf("ValidEndToEndID(%q) = true with date %q: %v", s, s[9:21], err)
		}
		if got := NewEndToEndID(s[0], s[1:9], at, s[21:]); got != s {
			t.Fatalf("NewEndToEndID from the parts of %q = %q", s, got)
		}
	})
}

// FuzzValidTxID checks the cob txid validator: 26 to 35 ASCII alphanumerics.
func FuzzValidTxID(f *testing.F) {
	for _, s := range []string{"abcdefghijklmnopqrstuvwxyz0", "short", strings.Repeat("a", 35), strings.Repeat("a", 36),
		"abcdefghijklmnopqrstuvwxyz-", "abcdefghijklmnopqrstuvwxyzé", "abcdefghijklmnopqrstuvwxyz\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidTxID(s), alnum(s, 26, 35); got != want {
			t.Fatalf("ValidTxID(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzValidRefundID checks the refund id validator: 1 to 35 ASCII alphanumerics.
func FuzzValidRefundID(f *testing.F) {
	for _, s := range []string{"r1", "", strings.Repeat("Z", 35), strings.Repeat("Z", 36), "a/b", "a b", "a\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidRefundID(s), alnum(s, 1, 35); got != want {
			t.Fatalf("ValidRefundID(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzValidE2EPath checks the refund route's e2eid validator: exactly 32 ASCII
// alphanumerics.
func FuzzValidE2EPath(f *testing.F) {
	for _, s := range []string{"E13140088202603021200abcdefghijk", "E13140088202603021200abcdefghij", "E13140088202603021200abcdefghijk\n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidE2EPath(s), alnum(s, 32, 32); got != want {
			t.Fatalf("ValidE2EPath(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzValidateRefundBody checks the Central Bank refund body validator: it
// never panics; a refusal is a validation error naming only valor, natureza or
// descricao; an acceptance has an amount of at least one cent and a nature that
// may be sent.
func FuzzValidateRefundBody(f *testing.F) {
	f.Add("1.00", true, "", "")
	f.Add("0.00", true, "RETIRADA", "d")
	f.Add("1", true, "MED_FRAUDE", strings.Repeat("é", 141))
	f.Add("", false, "x", "")
	f.Add("99999999999999999999.99", true, "ORIGINAL", "")
	f.Fuzz(func(t *testing.T, valor string, hasValor bool, natureza, descricao string) {
		amount, nature, err := ValidateRefundBody(valor, hasValor, natureza, descricao)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindInvalid || len(e.Violations) == 0 {
				t.Fatalf("error %v is not a validation error", err)
			}
			for _, v := range e.Violations {
				if v.Field != "valor" && v.Field != "natureza" && v.Field != "descricao" {
					t.Fatalf("violation names field %q", v.Field)
				}
			}
			return
		}
		if !hasValor || amount < 1 || amount > MaxCents {
			t.Fatalf("accepted valor %q (%v) as %d", valor, hasValor, int64(amount))
		}
		if nature != NatureOriginal && nature != NatureRetirada {
			t.Fatalf("accepted natureza %q as %q", natureza, nature)
		}
		if utf8.RuneCountInString(descricao) > 140 {
			t.Fatalf("accepted descricao of %d characters", utf8.RuneCountInString(descricao))
		}
	})
}
