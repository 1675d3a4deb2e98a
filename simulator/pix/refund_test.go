package pix

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

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
