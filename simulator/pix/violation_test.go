package pix

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefghij..."},
		{"0" + strings.Repeat("\uFFFD", 21), 60, "0" + strings.Repeat("\uFFFD", 19) + "..."}, // 3-byte characters: 58 bytes, not 60
		{"ééé", 3, "é..."},
		{"é", 0, "..."},
	} {
		if got := Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	if got := ClipMark("ééé", 3, "…[cut]"); got != "é…[cut]" {
		t.Errorf("ClipMark(ééé, 3, …[cut]) = %q, want %q", got, "é…[cut]")
	}
	if got := ClipMark("éé", 4, "…"); got != "éé" {
		t.Errorf("ClipMark(éé, 4, …) = %q, want it whole", got)
	}
}

func TestQuoteASCII(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"boom", `"boom"`},
		{`say "hi"`, `"say ?hi?"`},
		{"tab\there\x00", `"tab?here?"`},
		{"ação", `"a??o"`}, // one '?' a character, not a byte
		{"\xff", `"?"`},    // an invalid byte
		{strings.Repeat("x", 64), `"` + strings.Repeat("x", 64) + `"`},
		{strings.Repeat("x", 65), `"` + strings.Repeat("x", 64) + `..."`},
		{strings.Repeat("x", 63) + "é", `"` + strings.Repeat("x", 63) + `..."`},   // 65 bytes: cut before é, not inside it
		{strings.Repeat("x", 62) + "éé", `"` + strings.Repeat("x", 62) + `?..."`}, // the second é cut whole
	} {
		if got := QuoteASCII(tt.s); got != tt.want {
			t.Errorf("QuoteASCII(%q) = %s, want %s", tt.s, got, tt.want)
		}
	}
}

// FuzzClip: the cut is a prefix of s of at most n bytes, and valid UTF-8 in
// gives valid UTF-8 out.
func FuzzClip(f *testing.F) {
	f.Add("0\uFFFD\uFFFD\uFFFD", 3)
	f.Add("plain text", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got := Clip(s, n)
		if len(s) <= n {
			if got != s {
				t.Fatalf("Clip(%q, %d) = %q: a short text is kept whole", s, n, got)
			}
			return
		}
		cut, ok := strings.CutSuffix(got, "...")
		if !ok || len(cut) > n || !strings.HasPrefix(s, cut) {
			t.Fatalf("Clip(%q, %d) = %q: want a prefix of at most %d bytes and the mark", s, n, got, n)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clip(%q, %d) = %q split a character", s, n, got)
		}
	})
}
