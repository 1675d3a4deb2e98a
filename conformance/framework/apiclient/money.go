package apiclient

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Decimal2 is a JSON number with at most two decimal places and no exponent.
var Decimal2 = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]{1,2})?$`)

// Cents converts money written as decimal text (a json.Number or a string such
// as "1234.5" or "-0.01") into integer centavos, without floating point. It
// rejects more than two decimal places, exponents and anything else that is not
// a plain decimal.
func Cents(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return 0, fmt.Errorf("money %v (%T): want decimal text (json.Number or string); decode with UseNumber", v, v)
	}
	if !Decimal2.MatchString(s) {
		return 0, fmt.Errorf("money %q: want a decimal with at most 2 decimal places", s)
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("money %q: %w", s, err)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// FormatCents renders centavos as decimal text with two places, e.g. 123456
// as "1234.56".
func FormatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign = "-"
		c = -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

// NumberText returns the decimal text of a numeric Go value, for comparing
// expectations with json.Number fields.
func NumberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// SameNumber reports whether two decimal texts denote the same number.
func SameNumber(a, b string) bool {
	ra, ok1 := new(big.Rat).SetString(a)
	rb, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

// iso8601Layouts are the ISO 8601 forms ParseISO8601 accepts.
var iso8601Layouts = []string{
	time.RFC3339, // fractional seconds are accepted when parsing
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02",
}

// ParseISO8601 parses the ISO 8601 forms found in APIs: RFC 3339 date-times
// with optional fractional seconds, offsets with or without a colon, local
// date-times without an offset, and calendar dates.
func ParseISO8601(s string) (time.Time, error) {
	for _, l := range iso8601Layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date or date-time", s)
}
