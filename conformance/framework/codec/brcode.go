package codec

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The suite's own reader of BR Codes (the EMV QR "copia e cola" text of PIX
// charges), written from the Central Bank's BR Code manual and EMVCo MPM as
// summarised in design/DOMAIN.md A1, independently of any encoder under test:
// a TLV parser with the nested templates 26 and 62, the CRC-16/CCITT-FALSE
// check, and the BeValidBRCode matcher.

// BR Code field values the matcher requires.
const (
	// BRCodeGUI is the globally unique identifier of PIX in template 26.
	BRCodeGUI = "br.gov.bcb.pix"
	// BRCodeCurrencyBRL is field 53 for the real (ISO 4217 numeric 986).
	BRCodeCurrencyBRL = "986"
	// BRCodeCountryBR is field 58.
	BRCodeCountryBR = "BR"
	// BRCodeDynamicPOI is field 01 of a single-use (dynamic) code.
	BRCodeDynamicPOI = "12"
)

// BR Code length limits the matcher enforces.
const (
	// brCodeMaxMerchantName bounds field 59.
	brCodeMaxMerchantName = 25
	// brCodeMaxMerchantCity bounds field 60.
	brCodeMaxMerchantCity = 15
)

// ErrBRCodeCRC is wrapped by the error ParseBRCode returns when field 63 does
// not hold the CRC of the rest of the code.
var ErrBRCodeCRC = errors.New("CRC mismatch")

// BRCodeField is one TLV field: a two-digit ID and its value. Templates (26,
// 62) also carry their sub-fields.
type BRCodeField struct {
	// ID is the two-digit field ID.
	ID string
	// Value is the field's value as written.
	Value string
	// Sub holds the sub-fields of a template (26 and 62), in order.
	Sub []BRCodeField
}

// BRCode is a parsed BR Code. The named fields are those a PIX charge uses;
// empty means absent. Fields keeps every top-level field in order.
type BRCode struct {
	// Raw is the text that was parsed.
	Raw string
	// Fields are the top-level fields in order, 63 last.
	Fields []BRCodeField
	// PayloadFormat is field 00 ("01").
	PayloadFormat string
	// PointOfInitiation is field 01: "12" single use (dynamic), "11" reusable.
	PointOfInitiation string
	// GUI is sub-field 00 of template 26.
	GUI string
	// Key is sub-field 01 of template 26, the DICT key of a static code.
	Key string
	// Info is sub-field 02 of template 26, free text for the payer.
	Info string
	// URL is sub-field 25 of template 26, the location of a dynamic code.
	URL string
	// MCC is field 52.
	MCC string
	// Currency is field 53.
	Currency string
	// Amount is field 54.
	Amount string
	// Country is field 58.
	Country string
	// MerchantName is field 59.
	MerchantName string
	// MerchantCity is field 60.
	MerchantCity string
	// TxID is sub-field 05 (reference label) of template 62.
	TxID string
	// CRC is field 63 as written (4 hex digits).
	CRC string
	// HasTemplate26 and HasTemplate62 report whether those templates are present.
	HasTemplate26, HasTemplate62 bool
}

// Dynamic reports whether the code is a dynamic one: point of initiation 12
// or a location URL in 26-25.
func (c *BRCode) Dynamic() bool {
	return c.PointOfInitiation == BRCodeDynamicPOI || c.URL != ""
}

// CRC16CCITTFalse is CRC-16/CCITT-FALSE: polynomial 0x1021, initial value
// 0xFFFF, no reflection, no final XOR. Its check value for "123456789" is
// 0x29B1. It reads a byte at a time through crcTable.
func CRC16CCITTFalse(b []byte) uint16 { return crc16(b) }

func crc16[T string | []byte](b T) uint16 {
	crc := uint16(0xFFFF)
	for i := 0; i < len(b); i++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b[i]]
	}
	return crc
}

// crcTable[i] is the CRC register after shifting the byte i through it bit
// by bit from zero: the polynomial's definition, once per byte value.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// BRCodeCRC returns the CRC a BR Code ending in field 63 must carry: the
// CRC-16/CCITT-FALSE of everything up to and including "6304", as 4 uppercase
// hex digits. payload is the code without the 4 CRC digits.
func BRCodeCRC(payload string) string {
	return fmt.Sprintf("%04X", crc16(payload))
}

// parseTLV splits s into TLV fields. Lengths count bytes, which are
// characters for the ASCII text BR Codes must be.
func parseTLV(s, where string) ([]BRCodeField, error) {
	var out []BRCodeField
	for i := 0; i < len(s); {
		if len(s)-i < 4 {
			return nil, fmt.Errorf("%s: %d trailing bytes at offset %d are too short for an ID and a length", where, len(s)-i, i)
		}
		id, lenText := s[i:i+2], s[i+2:i+4]
		if !isDigits(id) {
			return nil, fmt.Errorf("%s: field ID %q at offset %d is not two digits", where, id, i)
		}
		if !isDigits(lenText) {
			return nil, fmt.Errorf("%s: length %q of field %s at offset %d is not two digits", where, lenText, id, i)
		}
		n, _ := strconv.Atoi(lenText)
		if n == 0 {
			return nil, fmt.Errorf("%s: field %s at offset %d has length 00", where, id, i)
		}
		start := i + 4
		if start+n > len(s) {
			return nil, fmt.Errorf("%s: field %s at offset %d declares %d bytes but only %d remain", where, id, i, n, len(s)-start)
		}
		out = append(out, BRCodeField{ID: id, Value: s[start : start+n]})
		i = start + n
	}
	return out, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ParseBRCode parses a BR Code: the top-level TLV fields, templates 26 and 62
// into their sub-fields, and the CRC in field 63, which must be the last field
// with length 04. Structural faults (a malformed or truncated field, a
// repeated ID, 00 not first, 63 not last) return a nil code and an error. A
// CRC that does not match returns the parsed code together with an error
// wrapping ErrBRCodeCRC; the CRC digits are compared without regard to case
// (the matcher BeValidBRCode requires uppercase).
func ParseBRCode(s string) (*BRCode, error) {
	fields, err := parseTLV(s, "BR Code")
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, errors.New("BR Code: empty")
	}
	if fields[0].ID != "00" {
		return nil, fmt.Errorf("BR Code: the first field is %s, want 00 (payload format indicator)", fields[0].ID)
	}
	last := fields[len(fields)-1]
	if last.ID != "63" {
		return nil, fmt.Errorf("BR Code: the last field is %s, want 63 (CRC)", last.ID)
	}
	if len(last.Value) != 4 || !isHex(last.Value) {
		return nil, fmt.Errorf("BR Code: field 63 is %q, want 4 hex digits", last.Value)
	}
	c := &BRCode{Raw: s, CRC: last.Value}
	seen := map[string]bool{}
	for i := range fields {
		f := &fields[i]
		if seen[f.ID] {
			return nil, fmt.Errorf("BR Code: field %s appears twice", f.ID)
		}
		seen[f.ID] = true
		switch f.ID {
		case "26", "62":
			sub, err := parseTLV(f.Value, "template "+f.ID)
			if err != nil {
				return nil, fmt.Errorf("BR Code: %w", err)
			}
			f.Sub = sub
		}
		c.set(f)
	}
	c.Fields = fields
	if want := BRCodeCRC(s[:len(s)-4]); !strings.EqualFold(want, c.CRC) {
		return c, fmt.Errorf("BR Code: %w: field 63 is %s, the CRC of the code is %s", ErrBRCodeCRC, c.CRC, want)
	}
	return c, nil
}

// set reads one top-level field (its template's sub-fields parsed) into c.
func (c *BRCode) set(f *BRCodeField) {
	switch f.ID {
	case "00":
		c.PayloadFormat = f.Value
	case "01":
		c.PointOfInitiation = f.Value
	case "26":
		c.HasTemplate26 = true
		for _, sf := range f.Sub {
			switch sf.ID {
			case "00":
				c.GUI = sf.Value
			case "01":
				c.Key = sf.Value
			case "02":
				c.Info = sf.Value
			case "25":
				c.URL = sf.Value
			}
		}
	case "52":
		c.MCC = f.Value
	case "53":
		c.Currency = f.Value
	case "54":
		c.Amount = f.Value
	case "58":
		c.Country = f.Value
	case "59":
		c.MerchantName = f.Value
	case "60":
		c.MerchantCity = f.Value
	case "62":
		c.HasTemplate62 = true
		for _, sf := range f.Sub {
			if sf.ID == "05" {
				c.TxID = sf.Value
			}
		}
	}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case '0' <= ch && ch <= '9', 'a' <= ch && ch <= 'f', 'A' <= ch && ch <= 'F':
		default:
			return false
		}
	}
	return true
}

// brCodeAmount is field 54: a decimal with a point, at most 13 characters.
var brCodeAmount = regexp.MustCompile(`^[0-9]+(\.[0-9]{1,2})?$`)

// BRCodeProblems lists what makes s an invalid PIX BR Code, or nil when it is
// valid. See BeValidBRCode for the rules.
func BRCodeProblems(s string) []string {
	var p []string
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			p = append(p, fmt.Sprintf("byte %d (0x%02x) is not printable ASCII", i, s[i]))
			break
		}
	}
	if !strings.HasPrefix(s, "000201") {
		p = append(p, `does not start with "000201" (payload format indicator 01)`)
	}
	c, err := ParseBRCode(s)
	if c == nil {
		return append(p, err.Error())
	}
	if err != nil {
		p = append(p, err.Error())
	}
	if c.CRC != strings.ToUpper(c.CRC) {
		p = append(p, fmt.Sprintf("CRC %q is not uppercase hex", c.CRC))
	}
	p = append(p, c.locationProblems()...)
	return append(p, c.fieldProblems()...)
}

// locationProblems lists what is wrong with template 26: the GUI, and a key
// or a location.
func (c *BRCode) locationProblems() []string {
	var p []string
	if !c.HasTemplate26 {
		p = append(p, "template 26 (merchant account information) is absent")
	} else {
		if c.GUI != BRCodeGUI {
			p = append(p, fmt.Sprintf("26-00 (GUI) is %q, want %q", c.GUI, BRCodeGUI))
		}
		if c.Key == "" && c.URL == "" {
			p = append(p, "template 26 has neither a key (01) nor a location URL (25)")
		}
	}
	return p
}

// LocationURLProblems lists what is wrong with a dynamic code's location by
// the Central Bank's BR Code manual: a code that marks itself single-use
// (point of initiation 12) or carries a location has a location URL in
// 26-25, written without a scheme, a host followed by a path. The contract
// asks only for an "EMV copy-and-paste code", static or dynamic, so
// BRCodeProblems does not apply these rules; a check of a sandbox's or the
// reference's dynamic form does.
func (c *BRCode) LocationURLProblems() []string {
	var p []string
	if c.Dynamic() {
		switch u := c.URL; {
		case u == "":
			p = append(p, "dynamic code (point of initiation 12) without a location URL in 26-25")
		case strings.Contains(u, "://") || strings.HasPrefix(strings.ToLower(u), "http"):
			p = append(p, fmt.Sprintf("26-25 %q carries a scheme; the location is written without one", u))
		case !strings.Contains(u, "/") || strings.HasPrefix(u, "/"):
			p = append(p, fmt.Sprintf("26-25 %q is not a host followed by a path", u))
		}
	}
	return p
}

// fieldProblems lists what is wrong with fields 52 to 60.
func (c *BRCode) fieldProblems() []string {
	var p []string
	if len(c.MCC) != 4 || !isDigits(c.MCC) {
		p = append(p, fmt.Sprintf("52 (merchant category code) is %q, want 4 digits", c.MCC))
	}
	if c.Currency != BRCodeCurrencyBRL {
		p = append(p, fmt.Sprintf("53 (currency) is %q, want %q", c.Currency, BRCodeCurrencyBRL))
	}
	if c.Amount != "" && (len(c.Amount) > 13 || !brCodeAmount.MatchString(c.Amount)) {
		p = append(p, fmt.Sprintf("54 (amount) %q is not a decimal of at most 13 characters with a point", c.Amount))
	}
	if c.Country != BRCodeCountryBR {
		p = append(p, fmt.Sprintf("58 (country) is %q, want %q", c.Country, BRCodeCountryBR))
	}
	if n := len(c.MerchantName); n == 0 || n > brCodeMaxMerchantName {
		p = append(p, fmt.Sprintf("59 (merchant name) %q has %d characters, want 1 to %d", c.MerchantName, n, brCodeMaxMerchantName))
	}
	if n := len(c.MerchantCity); n == 0 || n > brCodeMaxMerchantCity {
		p = append(p, fmt.Sprintf("60 (merchant city) %q has %d characters, want 1 to %d", c.MerchantCity, n, brCodeMaxMerchantCity))
	}
	return p
}
