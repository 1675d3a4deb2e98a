package pix

import (
	"regexp"
	"time"
)

// Alphanumerics is the alphabet of the random part of end-to-end ids.
const Alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

var endToEndPattern = regexp.MustCompile(`^[ED][0-9A-Z]{8}\d{12}[A-Za-z0-9]{11}$`)

// NewEndToEndID builds an end-to-end id in the Central Bank form (DOMAIN.md A2):
// prefix ('E' for a payment, 'D' for a return) + the 8-character ISPB of the
// generating participant + the UTC minute yyyyMMddHHmm + 11 alphanumerics, 32
// characters in all. random must hold at least 11 characters of Alphanumerics.
func NewEndToEndID(prefix byte, ispb string, at time.Time, random string) string {
	return string(prefix) + ispb + at.UTC().Format("200601021504") + random[:11]
}

// ValidEndToEndID reports whether s has the Central Bank form of an end-to-end
// id (prefix E) or return id (prefix D) with a real date.
func ValidEndToEndID(s string) bool {
	if !endToEndPattern.MatchString(s) {
		return false
	}
	_, err := time.Parse("200601021504", s[9:21])
	return err == nil
}

var uuidV4 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)

// IsUUIDv4 reports whether s is a UUID version 4 (RFC 9562 variant) in the
// canonical 8-4-4-4-12 hyphenated form, in either case.
func IsUUIDv4(s string) bool { return uuidV4.MatchString(s) }
