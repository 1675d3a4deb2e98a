package pix

import (
	"testing"
	"time"
)

func TestEndToEndID(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 5, 59, 0, time.FixedZone("BRT", -3*3600))
	id := NewEndToEndID('E', "13140088", at, "AbC123xyz09ZZZ")
	if id != "E1314008820260302120"+"5AbC123xyz09" || len(id) != 32 || !ValidEndToEndID(id) {
		t.Fatalf("NewEndToEndID = %q (len %d)", id, len(id))
	}
	for _, bad := range []string{"", "X1314008820260302120" + "5AbC123xyz09", "E1314008820261302120" + "5AbC123xyz09", id[:31], id + "a", "E13140088202603021205AbC123xyz0!"} {
		if ValidEndToEndID(bad) {
			t.Errorf("ValidEndToEndID(%q) = true", bad)
		}
	}
	if !ValidEndToEndID("E9040088820210128000800123873170") || !ValidEndToEndID("D12345678202009091000abcde123456") {
		t.Error("the Open Finance and Central Bank examples must be valid")
	}
}

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

func TestIsUUIDv4(t *testing.T) {
	for s, want := range map[string]bool{
		"2b28bc5f-714d-4515-9a30-06854d5df38c":   true,
		"2B28BC5F-714D-4515-9A30-06854D5DF38C":   true,
		"6ba7b810-9dad-11d1-80b4-00c04fd430c8":   false, // v1
		"2b28bc5f-714d-4515-7a30-06854d5df38c":   false, // variant
		"2b28bc5f714d45159a3006854d5df38c":       false, // no hyphens
		"{2b28bc5f-714d-4515-9a30-06854d5df38c}": false,
		"":                                       false,
	} {
		if got := IsUUIDv4(s); got != want {
			t.Errorf("IsUUIDv4(%q) = %v, want %v", s, got, want)
		}
	}
}
