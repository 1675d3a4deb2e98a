package pix

import (
	"strings"
	"testing"
)

func TestParseDICTKey(t *testing.T) {
	tests := []struct {
		in   string
		typ  KeyType
		norm string
		ok   bool
	}{
		{"52998224725", KeyTypeCPF, "52998224725", true},
		{"52998224724", KeyTypeCPF, "52998224724", false},
		{"60746948000112", KeyTypeCNPJ, "60746948000112", true},
		{"+5511987654321", KeyTypePhone, "+5511987654321", true},
		{"+551187654321", KeyTypePhone, "+551187654321", true},
		{"+1415555123", KeyTypePhone, "+1415555123", false},
		{"pix@bcb.gov.br", KeyTypeEmail, "pix@bcb.gov.br", true},
		{"Pix@BCB.gov.br", KeyTypeEmail, "pix@bcb.gov.br", true},
		{"pix@@bcb.gov.br", KeyTypeEmail, "", false},
		{"123E4567-E89B-12D3-A456-426655440000", KeyTypeEVP, "123e4567-e89b-12d3-a456-426655440000", true},
		{"123e4567e89b12d3a456426655440000", "", "", false},
		{"", "", "", false},
		{strings.Repeat("a", 70) + "@x.com.br", "", "", false},
	}
	for _, tt := range tests {
		typ, norm, ok := ParseDICTKey(tt.in)
		if ok != tt.ok || (ok && (typ != tt.typ || norm != tt.norm)) {
			t.Errorf("ParseDICTKey(%q) = %s, %q, %v; want %s, %q, %v", tt.in, typ, norm, ok, tt.typ, tt.norm, tt.ok)
		}
	}
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
