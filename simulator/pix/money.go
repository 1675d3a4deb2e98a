package pix

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Cents is an amount of BRL in centavos. It is the only money type in the domain:
// money is never held in a float.
type Cents int64

// MaxCents bounds every amount the simulator accepts: ten digits of reais (the
// Central Bank's `\d{1,10}\.\d{2}` pattern), far below int64 overflow.
const MaxCents Cents = 9_999_999_999_99

var (
	// errAmountSyntax reports text that is not a plain decimal number.
	errAmountSyntax = errors.New("not a decimal number")
	// errAmountPrecision reports more than two decimal places.
	errAmountPrecision = errors.New("more than 2 decimal places")
	// errAmountExactDecimals reports a string amount without exactly two decimal places.
	errAmountExactDecimals = errors.New("must have exactly 2 decimal places")
	// errAmountRange reports a negative amount or one above MaxCents.
	errAmountRange = errors.New("out of range")
)

// ParseDecimal parses a non-negative decimal with at most two fractional digits
// ("10", "10.5", "10.50"), as JSON number text. Exponents ("1e2") are accepted when
// they denote a value with at most two decimals, because a JSON encoder may emit them.
// Spec "What the service does", number conventions: standard routes use JSON numbers
// with up to 2 decimal places.
func ParseDecimal(s string) (Cents, error) {
	mant, exp, err := splitExponent(s)
	if err != nil {
		return 0, err
	}
	if strings.HasPrefix(mant, "-") {
		if isZeroDecimal(mant[1:]) {
			mant = mant[1:]
		} else {
			return 0, errAmountRange
		}
	}
	intPart, frac, ok := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || (ok && (frac == "" || !allDigits(frac))) {
		return 0, errAmountSyntax
	}
	// Shift the decimal point by the exponent.
	digits := intPart + frac
	point := len(intPart) + exp
	if point < 0 {
		digits = strings.Repeat("0", -point) + digits
		point = 0
	}
	for len(digits) < point {
		digits += "0"
	}
	whole, fraction := digits[:point], digits[point:]
	fraction = strings.TrimRight(fraction, "0")
	if len(fraction) > 2 {
		return 0, errAmountPrecision
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 10 {
		return 0, errAmountRange
	}
	for len(fraction) < 2 {
		fraction += "0"
	}
	v, err := strconv.ParseInt(whole+fraction, 10, 64)
	if err != nil {
		return 0, errAmountRange
	}
	if Cents(v) > MaxCents {
		return 0, errAmountRange
	}
	return Cents(v), nil
}

// ParseDecimal2 parses a non-negative decimal string with exactly two fractional
// digits ("10.50"), the Central Bank pattern `\d{1,10}\.\d{2}`.
// Spec "What the service does", number conventions: the Central Bank-compatible
// charge and refund routes use strings with exactly 2 decimal places.
func ParseDecimal2(s string) (Cents, error) {
	intPart, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 2 {
		if ok && allDigits(intPart) && allDigits(frac) && intPart != "" && frac != "" {
			return 0, errAmountExactDecimals
		}
		if !ok && intPart != "" && allDigits(intPart) {
			return 0, errAmountExactDecimals
		}
		return 0, errAmountSyntax
	}
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return 0, errAmountSyntax
	}
	if len(intPart) > 10 {
		return 0, errAmountRange
	}
	v, err := strconv.ParseInt(intPart+frac, 10, 64)
	if err != nil {
		return 0, errAmountRange
	}
	return Cents(v), nil
}

// Decimal2 renders c with exactly two decimals ("10.50", "-3.07").
func (c Cents) Decimal2() string {
	neg := c < 0
	u := uint64(c)
	if neg {
		u = uint64(-(c + 1)) + 1 // safe for math.MinInt64
	}
	s := strconv.FormatUint(u/100, 10) + "." + twoDigits(u%100)
	if neg {
		return "-" + s
	}
	return s
}

// String renders c like Decimal2, for logs and messages.
func (c Cents) String() string { return c.Decimal2() }

// Add returns c+d, reporting false when the sum overflows int64.
func (c Cents) Add(d Cents) (Cents, bool) {
	if (d > 0 && c > math.MaxInt64-d) || (d < 0 && c < math.MinInt64-d) {
		return 0, false
	}
	return c + d, true
}

func twoDigits(v uint64) string {
	if v < 10 {
		return "0" + strconv.FormatUint(v, 10)
	}
	return strconv.FormatUint(v, 10)
}

func splitExponent(s string) (mant string, exp int, err error) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s, 0, nil
	}
	e := s[i+1:]
	if len(e) == 0 || len(e) > 4 {
		return "", 0, errAmountSyntax
	}
	n, convErr := strconv.Atoi(strings.TrimPrefix(e, "+"))
	if convErr != nil || strings.HasPrefix(e, "+-") || strings.HasPrefix(e, "-+") {
		return "", 0, errAmountSyntax
	}
	if n > 20 || n < -20 {
		return "", 0, errAmountRange
	}
	return s[:i], n, nil
}

func isZeroDecimal(s string) bool {
	return strings.Trim(s, "0.") == "" && s != ""
}
