package pix

import (
	"errors"
	"fmt"
	"strings"
)

// BR Code (the PIX "copia e cola" text, an EMV QR Code in Merchant Presented Mode).
//
// The payload is a run of TLV fields: a 2-digit ID, a 2-digit decimal length and the
// value. Fields 26 (PIX merchant account) and 62 (additional data) are templates of
// nested TLV fields. Field 00 comes first and field 63 (the CRC) last.
//
// Only printable ASCII is emitted and accepted, so a TLV length counts bytes and
// characters alike. Name and city are folded to ASCII by NewDynamicBRCode; unlike
// some generators, their case is kept ("Fulano de Tal" stays as written), because
// the Central Bank's examples keep it and uppercasing is not a rule of the standard.

// BRCode is a PIX BR Code (EMV QR Code Merchant Presented Mode, "copia e cola").
type BRCode struct {
	PointOfInitiation string // 01: "12" dynamic single use, "11" reusable, "" omitted
	Key               string // 26-01: DICT key (static codes)
	Info              string // 26-02: free text for the payer (static codes)
	URL               string // 26-25: location without scheme (dynamic codes)
	MCC               string // 52: merchant category code; "" encodes as "0000"
	Currency          string // 53: ISO 4217 numeric; "" encodes as "986" (the only one accepted)
	Amount            string // 54: decimal with '.', "" omitted (dynamic codes omit it)
	Country           string // 58: "" encodes as "BR" (the only one accepted)
	MerchantName      string // 59: 1 to 25 characters
	MerchantCity      string // 60: 1 to 15 characters
	PostalCode        string // 61: optional, at most 10 characters
	TxID              string // 62-05: "***" when none (dynamic codes always "***"); "" encodes as "***"
}

// BR Code constants.
const (
	BRCodeGUI          = "br.gov.bcb.pix" // 26-00, the PIX globally unique identifier
	BRCodeNoTxID       = "***"            // 62-05 when the code carries no txid
	brcodeMaxName      = 25
	brcodeMaxCity      = 15
	brcodeMaxTxID      = 25
	brcodeMaxKey       = 77 // the API's `chave` maxLength
	brcodeMaxPostal    = 10
	brcodeMaxAmount    = 13
	brcodeDefaultName  = "PIXSANDBOX"
	brcodeDefaultCity  = "SAO PAULO"
	brcodeDefaultMCC   = "0000"
	brcodeCurrencyBRL  = "986"
	brcodeCountry      = "BR"
	brcodeTemplateMax  = 99
	brcodeDynamicPOI   = "12"
	brcodeReusablePOI  = "11"
	brcodeHeader       = "000201"
	brcodeCRCFieldHead = "6304"
)

// NewDynamicBRCode returns the BR Code of a dynamic (single use) charge whose payload
// is served at location. A leading "https://" is removed (the BR Code carries the
// location without scheme). Name and city are folded to printable ASCII (Portuguese
// accents stripped, any other non-ASCII or control character removed), trimmed and
// truncated to 25 and 15 characters; an empty result becomes "PIXSANDBOX" or
// "SAO PAULO". Case is kept. The txid is "***" and there is no amount: for a dynamic
// code the payload fetched from the location is authoritative.
func NewDynamicBRCode(location, merchantName, merchantCity string) BRCode {
	if len(location) >= len("https://") && strings.EqualFold(location[:len("https://")], "https://") {
		location = location[len("https://"):]
	}
	return BRCode{
		PointOfInitiation: brcodeDynamicPOI,
		URL:               location,
		MCC:               brcodeDefaultMCC,
		Currency:          brcodeCurrencyBRL,
		Country:           brcodeCountry,
		MerchantName:      brcodeFoldField(merchantName, brcodeMaxName, brcodeDefaultName),
		MerchantCity:      brcodeFoldField(merchantCity, brcodeMaxCity, brcodeDefaultCity),
		TxID:              BRCodeNoTxID,
	}
}

// Encode validates c and returns the BR Code text: fields in ID order, then field 63
// with the CRC16 of everything before it (including "6304") as 4 uppercase hex digits.
// Empty MCC, Currency, Country and TxID take their defaults ("0000", "986", "BR", "***").
func (c BRCode) Encode() (string, error) {
	c = c.withDefaults()
	if err := c.validate(true); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(brcodeHeader)
	brcodeWriteTLV(&b, "01", c.PointOfInitiation)
	var mai strings.Builder
	brcodeWriteTLV(&mai, "00", BRCodeGUI)
	brcodeWriteTLV(&mai, "01", c.Key)
	brcodeWriteTLV(&mai, "02", c.Info)
	brcodeWriteTLV(&mai, "25", c.URL)
	brcodeWriteTLV(&b, "26", mai.String())
	brcodeWriteTLV(&b, "52", c.MCC)
	brcodeWriteTLV(&b, "53", c.Currency)
	brcodeWriteTLV(&b, "54", c.Amount)
	brcodeWriteTLV(&b, "58", c.Country)
	brcodeWriteTLV(&b, "59", c.MerchantName)
	brcodeWriteTLV(&b, "60", c.MerchantCity)
	brcodeWriteTLV(&b, "61", c.PostalCode)
	brcodeWriteTLV(&b, "62", "05"+brcodeLen(c.TxID)+c.TxID)
	b.WriteString(brcodeCRCFieldHead)
	s := b.String()
	return s + fmt.Sprintf("%04X", CRC16([]byte(s))), nil
}

// ParseBRCode parses and validates a BR Code. It checks, in this order: the code
// starts with "000201"; it ends with "6304" and 4 hex digits; every byte is printable
// ASCII; the CRC matches (its hex digits may be in either case); the TLV structure is
// sound, with field 63 last and nothing after it, and no field repeated; field 26
// carries the PIX GUI (any case) and exactly one of a key (01) or a URL (25); fields
// 52, 53, 58, 59 and 60 are present; and every known field's value is valid.
// Unknown fields and templates (such as 80, Pix Automático) and unknown sub-fields
// are skipped. A code without field 62 or without 62-05 gets TxID "***". The txid is
// checked more loosely than Encode checks it (1 to 25 printable characters), since
// older generators put dashes in it. The errors are plain, name the field and say
// what is wrong, e.g. "crc: got 1D3E, want 1D3D".
func ParseBRCode(s string) (BRCode, error) {
	var c BRCode
	if s == "" {
		return c, errors.New("empty code")
	}
	if !strings.HasPrefix(s, brcodeHeader) {
		return c, errors.New("field 00: the code must start with 000201")
	}
	if len(s) < len(brcodeHeader)+8 || s[len(s)-8:len(s)-4] != brcodeCRCFieldHead || !brcodeIsHex(s[len(s)-4:]) {
		return c, errors.New("field 63: the code must end with 6304 and 4 hex digits of CRC")
	}
	if i := brcodeNonPrintable(s); i >= 0 {
		return c, fmt.Errorf("byte 0x%02X at offset %d is not printable ASCII", s[i], i)
	}
	got := s[len(s)-4:]
	if want := fmt.Sprintf("%04X", CRC16([]byte(s[:len(s)-4]))); strings.ToUpper(got) != want {
		return c, fmt.Errorf("crc: got %s, want %s", got, want)
	}

	fields, err := brcodeSplit(s, "")
	if err != nil {
		return c, err
	}
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		if seen[f.id] {
			return c, fmt.Errorf("field %s: appears more than once", f.id)
		}
		seen[f.id] = true
		if f.id == "63" && i != len(fields)-1 {
			return c, fmt.Errorf("field 63: must be the last field, %d characters follow it", len(s)-f.end)
		}
		if f.value == "" && brcodeKnownField(f.id) {
			return c, fmt.Errorf("field %s: empty value", f.id)
		}
		switch f.id {
		case "00":
			if f.value != "01" {
				return c, fmt.Errorf("field 00: payload format indicator %q, want 01", f.value)
			}
		case "01":
			c.PointOfInitiation = f.value
		case "26":
			if err := c.parseMerchantAccount(f.value); err != nil {
				return c, err
			}
		case "52":
			c.MCC = f.value
		case "53":
			c.Currency = f.value
		case "54":
			c.Amount = f.value
		case "58":
			c.Country = f.value
		case "59":
			c.MerchantName = f.value
		case "60":
			c.MerchantCity = f.value
		case "61":
			c.PostalCode = f.value
		case "62":
			if err := c.parseAdditionalData(f.value); err != nil {
				return c, err
			}
		}
	}
	switch last := fields[len(fields)-1]; {
	case last.id != "63":
		return c, errors.New("field 63: the CRC is not the last field")
	case len(last.value) != 4:
		return c, fmt.Errorf("field 63: length %02d, want 04", len(last.value))
	}
	for _, id := range [...]string{"26", "52", "53", "58", "59", "60"} {
		if !seen[id] {
			return c, fmt.Errorf("field %s: missing (%s)", id, brcodeFieldName(id))
		}
	}
	if c.TxID == "" {
		c.TxID = BRCodeNoTxID
	}
	if err := c.validate(false); err != nil {
		return c, err
	}
	return c, nil
}

// CRC16 returns the CRC-16/CCITT-FALSE of b (poly 0x1021, init 0xFFFF, no reflection,
// no final xor), the BR Code checksum. The check value of "123456789" is 0x29B1.
func CRC16(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

func (c BRCode) withDefaults() BRCode {
	if c.MCC == "" {
		c.MCC = brcodeDefaultMCC
	}
	if c.Currency == "" {
		c.Currency = brcodeCurrencyBRL
	}
	if c.Country == "" {
		c.Country = brcodeCountry
	}
	if c.TxID == "" {
		c.TxID = BRCodeNoTxID
	}
	return c
}

// validate checks every field of c. strictTxID applies Encode's txid rule
// ("***" or 1 to 25 letters and digits) instead of the parser's looser one.
func (c BRCode) validate(strictTxID bool) error {
	for _, f := range [...]struct{ id, value string }{
		{"01", c.PointOfInitiation}, {"26-01", c.Key}, {"26-02", c.Info}, {"26-25", c.URL},
		{"52", c.MCC}, {"53", c.Currency}, {"54", c.Amount}, {"58", c.Country},
		{"59", c.MerchantName}, {"60", c.MerchantCity}, {"61", c.PostalCode}, {"62-05", c.TxID},
	} {
		if i := brcodeNonPrintable(f.value); i >= 0 {
			return fmt.Errorf("field %s: byte 0x%02X at position %d is not printable ASCII", f.id, f.value[i], i)
		}
		if len(f.value) > brcodeTemplateMax {
			return fmt.Errorf("field %s: value has %d characters, at most %d", f.id, len(f.value), brcodeTemplateMax)
		}
	}
	switch c.PointOfInitiation {
	case "", brcodeDynamicPOI, brcodeReusablePOI:
	default:
		return fmt.Errorf("field 01: point of initiation %q, want 11 (reusable) or 12 (single use)", c.PointOfInitiation)
	}
	switch {
	case c.Key == "" && c.URL == "":
		return errors.New("field 26: neither a key (26-01) nor a URL (26-25)")
	case c.Key != "" && c.URL != "":
		return errors.New("field 26: both a key (26-01) and a URL (26-25)")
	case len(c.Key) > brcodeMaxKey:
		return fmt.Errorf("field 26-01: key has %d characters, at most %d", len(c.Key), brcodeMaxKey)
	}
	if n := brcodeTLVLen(BRCodeGUI) + brcodeTLVLen(c.Key) + brcodeTLVLen(c.Info) + brcodeTLVLen(c.URL); n > brcodeTemplateMax {
		return fmt.Errorf("field 26: template would have %d characters, at most %d (shorten the key, info or URL)", n, brcodeTemplateMax)
	}
	if len(c.MCC) != 4 || !brcodeIsDigits(c.MCC) {
		return fmt.Errorf("field 52: merchant category code %q, want 4 digits", c.MCC)
	}
	if c.Currency != brcodeCurrencyBRL {
		return fmt.Errorf("field 53: currency %q, want 986 (BRL)", c.Currency)
	}
	if c.Amount != "" {
		if err := brcodeCheckAmount(c.Amount); err != nil {
			return err
		}
	}
	if c.Country != brcodeCountry {
		return fmt.Errorf("field 58: country %q, want BR", c.Country)
	}
	if err := brcodeCheckText("59", "merchant name", c.MerchantName, brcodeMaxName); err != nil {
		return err
	}
	if err := brcodeCheckText("60", "merchant city", c.MerchantCity, brcodeMaxCity); err != nil {
		return err
	}
	if len(c.PostalCode) > brcodeMaxPostal {
		return fmt.Errorf("field 61: postal code has %d characters, at most %d", len(c.PostalCode), brcodeMaxPostal)
	}
	if c.TxID != BRCodeNoTxID {
		switch {
		case c.TxID == "" || len(c.TxID) > brcodeMaxTxID:
			return fmt.Errorf("field 62-05: txid has %d characters, want *** or 1 to %d", len(c.TxID), brcodeMaxTxID)
		case strictTxID && !brcodeIsAlnum(c.TxID):
			return fmt.Errorf("field 62-05: txid %q, want *** or only letters and digits", c.TxID)
		}
	}
	return nil
}

func (c *BRCode) parseMerchantAccount(v string) error {
	subs, err := brcodeSplit(v, "26")
	if err != nil {
		return err
	}
	gui := false
	seen := map[string]bool{}
	for _, f := range subs {
		if seen[f.id] {
			return fmt.Errorf("field 26-%s: appears more than once", f.id)
		}
		seen[f.id] = true
		switch f.id {
		case "00", "01", "02", "25":
			if f.value == "" {
				return fmt.Errorf("field 26-%s: empty value", f.id)
			}
		}
		switch f.id {
		case "00":
			if !strings.EqualFold(f.value, BRCodeGUI) {
				return fmt.Errorf("field 26: gui %q, want %s", f.value, BRCodeGUI)
			}
			gui = true
		case "01":
			c.Key = f.value
		case "02":
			c.Info = f.value
		case "25":
			c.URL = f.value
		}
	}
	if !gui {
		return fmt.Errorf("field 26: gui (26-00) missing, want %s", BRCodeGUI)
	}
	return nil
}

func (c *BRCode) parseAdditionalData(v string) error {
	subs, err := brcodeSplit(v, "62")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, f := range subs {
		if seen[f.id] {
			return fmt.Errorf("field 62-%s: appears more than once", f.id)
		}
		seen[f.id] = true
		if f.id == "05" {
			if f.value == "" {
				return errors.New("field 62-05: empty value")
			}
			c.TxID = f.value
		}
	}
	return nil
}

// brcodeTLV is one field of a TLV run; end is the offset just past its value.
type brcodeTLV struct {
	id, value string
	end       int
}

// brcodeSplit splits s into TLV fields. parent names the enclosing template in errors
// ("" at the top level).
func brcodeSplit(s, parent string) ([]brcodeTLV, error) {
	name := func(id string) string {
		if parent == "" {
			return "field " + id
		}
		return "field " + parent + "-" + id
	}
	where := "code"
	if parent != "" {
		where = "field " + parent
	}
	var out []brcodeTLV
	for i := 0; i < len(s); {
		if len(s)-i < 4 {
			return nil, fmt.Errorf("%s: %d stray characters at offset %d, too short for a field", where, len(s)-i, i)
		}
		id, ln := s[i:i+2], s[i+2:i+4]
		if !brcodeIsDigits(id) {
			return nil, fmt.Errorf("%s: field ID %q at offset %d is not two digits", where, id, i)
		}
		if !brcodeIsDigits(ln) {
			return nil, fmt.Errorf("%s: length %q is not two digits", name(id), ln)
		}
		n := int(ln[0]-'0')*10 + int(ln[1]-'0')
		start := i + 4
		if start+n > len(s) {
			return nil, fmt.Errorf("%s: length %d runs past the end of the %s (%d characters left)", name(id), n, where, len(s)-start)
		}
		out = append(out, brcodeTLV{id: id, value: s[start : start+n], end: start + n})
		i = start + n
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no fields", where)
	}
	return out, nil
}

func brcodeKnownField(id string) bool {
	switch id {
	case "00", "01", "26", "52", "53", "54", "58", "59", "60", "61", "62", "63":
		return true
	}
	return false
}

func brcodeFieldName(id string) string {
	switch id {
	case "26":
		return "merchant account information"
	case "52":
		return "merchant category code"
	case "53":
		return "transaction currency"
	case "58":
		return "country code"
	case "59":
		return "merchant name"
	case "60":
		return "merchant city"
	}
	return "field " + id
}

// brcodeCheckAmount accepts 1 to 13 characters: digits, optionally '.' and one or two
// decimals, greater than zero (a code without a fixed amount omits field 54).
func brcodeCheckAmount(a string) error {
	whole, frac, dot := strings.Cut(a, ".")
	switch {
	case len(a) > brcodeMaxAmount:
		return fmt.Errorf("field 54: amount %q has %d characters, at most %d", a, len(a), brcodeMaxAmount)
	case whole == "" || !brcodeIsDigits(whole) || (dot && (frac == "" || len(frac) > 2 || !brcodeIsDigits(frac))):
		return fmt.Errorf("field 54: amount %q, want digits with '.' and up to 2 decimals, e.g. 10.00", a)
	case strings.Trim(whole+frac, "0") == "":
		return errors.New("field 54: amount is zero; omit the field when there is no fixed amount")
	}
	return nil
}

func brcodeCheckText(id, what, v string, max int) error {
	switch {
	case v == "":
		return fmt.Errorf("field %s: %s is empty", id, what)
	case len(v) > max:
		return fmt.Errorf("field %s: %s has %d characters, at most %d", id, what, len(v), max)
	}
	return nil
}

func brcodeWriteTLV(b *strings.Builder, id, v string) {
	if v == "" {
		return
	}
	b.WriteString(id)
	b.WriteString(brcodeLen(v))
	b.WriteString(v)
}

// brcodeLen renders the 2-digit length of v; callers have checked len(v) <= 99.
func brcodeLen(v string) string {
	return string([]byte{'0' + byte(len(v)/10), '0' + byte(len(v)%10)})
}

func brcodeTLVLen(v string) int {
	if v == "" {
		return 0
	}
	return 4 + len(v)
}

// brcodeNonPrintable returns the offset of the first byte of s outside printable
// ASCII (0x20-0x7E), or -1.
func brcodeNonPrintable(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7E {
			return i
		}
	}
	return -1
}

func brcodeIsDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func brcodeIsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func brcodeIsAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// brcodeFold maps the accented letters of Portuguese (and ä ë ï ö ü ñ) to ASCII.
var brcodeFold = func() map[rune]byte {
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

// brcodeFoldField folds s to printable ASCII (accents stripped by brcodeFold, any
// other character outside 0x20-0x7E removed), trims spaces, truncates to max and
// returns def when nothing is left. Case is kept.
func brcodeFoldField(s string, max int, def string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 0x20 && r <= 0x7E:
			b = append(b, byte(r))
		case brcodeFold[r] != 0:
			b = append(b, brcodeFold[r])
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
