package brcode

import "strings"

// nonPrintable returns the offset of the first byte of s outside printable
// ASCII (0x20-0x7E), or -1.
func nonPrintable(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			return i
		}
	}
	return -1
}

// isDigits, isHex and isAlnum report whether s is non-empty and made only of
// ASCII digits, hex digits, or letters and digits.
func isDigits(s string) bool { return allBytes(s, isDigit) }
func isHex(s string) bool {
	return allBytes(s, func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' })
}
func isAlnum(s string) bool {
	return allBytes(s, func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' })
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// allBytes reports whether s is non-empty and every byte satisfies in.
func allBytes(s string, in func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !in(s[i]) {
			return false
		}
	}
	return s != ""
}

// asciiFold maps the accented letters of Portuguese (and ä ë ï ö ü ñ) to ASCII.
var asciiFold = func() map[rune]byte {
	m := map[rune]byte{}
	for _, g := range [...]struct {
		to   byte
		from string
	}{
		{'a', "áàâãä"}, {'A', "ÁÀÂÃÄ"}, {'e', "éèêë"}, {'E', "ÉÈÊË"},
		{'i', "íìîï"}, {'I', "ÍÌÎÏ"}, {'o', "óòôõö"}, {'O', "ÓÒÔÕÖ"},
		{'u', "úùûü"}, {'U', "ÚÙÛÜ"}, {'c', "ç"}, {'C', "Ç"}, {'n', "ñ"}, {'N', "Ñ"},
	} {
		for _, r := range g.from {
			m[r] = g.to
		}
	}
	return m
}()

// foldField folds s to printable ASCII (accents stripped by asciiFold, any
// other character outside 0x20-0x7E removed), trims spaces, truncates to max and
// returns def when nothing is left. Case is kept.
func foldField(s string, max int, def string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 0x20 && r <= 0x7E:
			b = append(b, byte(r))
		case asciiFold[r] != 0:
			b = append(b, asciiFold[r])
		}
	}
	out := strings.TrimSpace(string(b))
	if len(out) > max {
		out = strings.TrimSpace(out[:max])
	}
	if out == "" {
		return def
	}
	return out
}
