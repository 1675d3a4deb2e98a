package brcode

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a PIX BR Code (EMV QR Code Merchant Presented Mode, "copia e cola").
type Code struct {
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
	GUI          = "br.gov.bcb.pix" // 26-00, the PIX globally unique identifier
	NoTxID       = "***"            // 62-05 when the code carries no txid
	maxName      = 25
	maxCity      = 15
	maxTxID      = 25
	maxKey       = 77 // the API's `chave` maxLength
	maxPostal    = 10
	maxAmount    = 13
	defaultName  = "PIXSANDBOX"
	defaultCity  = "SAO PAULO"
	defaultMCC   = "0000"
	currencyBRL  = "986"
	countryBR    = "BR"
	templateMax  = 99
	dynamicPOI   = "12"
	reusablePOI  = "11"
	header       = "000201"
	crcFieldHead = "6304"
)

// NewDynamic returns the BR Code of a dynamic (single use) charge whose payload
// is served at location. A leading "https://" is removed (the BR Code carries the
// location without scheme). Name and city are folded to printable ASCII (Portuguese
// accents stripped, any other non-ASCII or control character removed), trimmed and
// truncated to 25 and 15 characters; an empty result becomes "PIXSANDBOX" or
// "SAO PAULO". Case is kept. The txid is "***" and there is no amount: for a dynamic
// code the payload fetched from the location is authoritative.
func NewDynamic(location, merchantName, merchantCity string) Code {
	if len(location) >= len("https://") && strings.EqualFold(location[:len("https://")], "https://") {
		location = location[len("https://"):]
	}
	return Code{
		PointOfInitiation: dynamicPOI,
		URL:               location,
		MCC:               defaultMCC,
		Currency:          currencyBRL,
		Country:           countryBR,
		MerchantName:      foldField(merchantName, maxName, defaultName),
		MerchantCity:      foldField(merchantCity, maxCity, defaultCity),
		TxID:              NoTxID,
	}
}

// Encode validates c and returns the BR Code text: fields in ID order, then field 63
// with the CRC16 of everything before it (including "6304") as 4 uppercase hex digits.
// Empty MCC, Currency, Country and TxID take their defaults ("0000", "986", "BR", "***").
func (c Code) Encode() (string, error) {
	c = c.withDefaults()
	if err := c.validate(true); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(header)
	writeTLV(&b, "01", c.PointOfInitiation)
	var mai strings.Builder
	writeTLV(&mai, "00", GUI)
	writeTLV(&mai, "01", c.Key)
	writeTLV(&mai, "02", c.Info)
	writeTLV(&mai, "25", c.URL)
	writeTLV(&b, "26", mai.String())
	writeTLV(&b, "52", c.MCC)
	writeTLV(&b, "53", c.Currency)
	writeTLV(&b, "54", c.Amount)
	writeTLV(&b, "58", c.Country)
	writeTLV(&b, "59", c.MerchantName)
	writeTLV(&b, "60", c.MerchantCity)
	writeTLV(&b, "61", c.PostalCode)
	writeTLV(&b, "62", "05"+lengthDigits(c.TxID)+c.TxID)
	b.WriteString(crcFieldHead)
	s := b.String()
	return s + fmt.Sprintf("%04X", CRC16([]byte(s))), nil
}

func (c Code) withDefaults() Code {
	if c.MCC == "" {
		c.MCC = defaultMCC
	}
	if c.Currency == "" {
		c.Currency = currencyBRL
	}
	if c.Country == "" {
		c.Country = countryBR
	}
	if c.TxID == "" {
		c.TxID = NoTxID
	}
	return c
}

// validate checks every field of c, in field order after the byte-level
// checks. strictTxID applies Encode's txid rule ("***" or 1 to 25 letters and
// digits) instead of the parser's looser one.
func (c Code) validate(strictTxID bool) error {
	for _, check := range [...]func() error{c.checkBytes, c.checkMerchantAccount, c.checkTransaction, c.checkMerchant} {
		if err := check(); err != nil {
			return err
		}
	}
	return c.checkTxID(strictTxID)
}

// checkBytes checks that every value is printable ASCII and fits a TLV length.
func (c Code) checkBytes() error {
	for _, f := range [...]struct{ id, value string }{
		{"01", c.PointOfInitiation}, {"26-01", c.Key}, {"26-02", c.Info}, {"26-25", c.URL},
		{"52", c.MCC}, {"53", c.Currency}, {"54", c.Amount}, {"58", c.Country},
		{"59", c.MerchantName}, {"60", c.MerchantCity}, {"61", c.PostalCode}, {"62-05", c.TxID},
	} {
		if i := nonPrintable(f.value); i >= 0 {
			return fmt.Errorf("field %s: byte 0x%02X at position %d is not printable ASCII", f.id, f.value[i], i)
		}
		if len(f.value) > templateMax {
			return fmt.Errorf("field %s: value has %d characters, at most %d", f.id, len(f.value), templateMax)
		}
	}
	return nil
}

// checkMerchantAccount checks fields 01 and 26: the point of initiation, and
// exactly one of a key or a URL in a template of at most 99 characters.
func (c Code) checkMerchantAccount() error {
	switch c.PointOfInitiation {
	case "", dynamicPOI, reusablePOI:
	default:
		return fmt.Errorf("field 01: point of initiation %q, want 11 (reusable) or 12 (single use)", c.PointOfInitiation)
	}
	switch {
	case c.Key == "" && c.URL == "":
		return errors.New("field 26: neither a key (26-01) nor a URL (26-25)")
	case c.Key != "" && c.URL != "":
		return errors.New("field 26: both a key (26-01) and a URL (26-25)")
	case len(c.Key) > maxKey:
		return fmt.Errorf("field 26-01: key has %d characters, at most %d", len(c.Key), maxKey)
	}
	if n := tlvSize(GUI) + tlvSize(c.Key) + tlvSize(c.Info) + tlvSize(c.URL); n > templateMax {
		return fmt.Errorf("field 26: template would have %d characters, at most %d (shorten the key, info or URL)", n, templateMax)
	}
	return nil
}

// checkTransaction checks fields 52, 53, 54 and 58.
func (c Code) checkTransaction() error {
	if len(c.MCC) != 4 || !isDigits(c.MCC) {
		return fmt.Errorf("field 52: merchant category code %q, want 4 digits", c.MCC)
	}
	if c.Currency != currencyBRL {
		return fmt.Errorf("field 53: currency %q, want 986 (BRL)", c.Currency)
	}
	if c.Amount != "" {
		if err := checkAmount(c.Amount); err != nil {
			return err
		}
	}
	if c.Country != countryBR {
		return fmt.Errorf("field 58: country %q, want BR", c.Country)
	}
	return nil
}

// checkMerchant checks fields 59, 60 and 61.
func (c Code) checkMerchant() error {
	if err := checkText("59", "merchant name", c.MerchantName, maxName); err != nil {
		return err
	}
	if err := checkText("60", "merchant city", c.MerchantCity, maxCity); err != nil {
		return err
	}
	if len(c.PostalCode) > maxPostal {
		return fmt.Errorf("field 61: postal code has %d characters, at most %d", len(c.PostalCode), maxPostal)
	}
	return nil
}

// checkTxID checks field 62-05; strict is Encode's rule.
func (c Code) checkTxID(strict bool) error {
	if c.TxID == NoTxID {
		return nil
	}
	switch {
	case c.TxID == "" || len(c.TxID) > maxTxID:
		return fmt.Errorf("field 62-05: txid has %d characters, want *** or 1 to %d", len(c.TxID), maxTxID)
	case strict && !isAlnum(c.TxID):
		return fmt.Errorf("field 62-05: txid %q, want *** or only letters and digits", c.TxID)
	}
	return nil
}

// checkAmount accepts 1 to 13 characters: digits, optionally '.' and one or two
// decimals, greater than zero (a code without a fixed amount omits field 54).
func checkAmount(a string) error {
	whole, frac, dot := strings.Cut(a, ".")
	switch {
	case len(a) > maxAmount:
		return fmt.Errorf("field 54: amount %q has %d characters, at most %d", a, len(a), maxAmount)
	case whole == "" || !isDigits(whole) || (dot && (frac == "" || len(frac) > 2 || !isDigits(frac))):
		return fmt.Errorf("field 54: amount %q, want digits with '.' and up to 2 decimals, e.g. 10.00", a)
	case strings.Trim(whole+frac, "0") == "":
		return errors.New("field 54: amount is zero; omit the field when there is no fixed amount")
	}
	return nil
}

func checkText(id, what, v string, max int) error {
	switch {
	case v == "":
		return fmt.Errorf("field %s: %s is empty", id, what)
	case len(v) > max:
		return fmt.Errorf("field %s: %s has %d characters, at most %d", id, what, len(v), max)
	}
	return nil
}

func writeTLV(b *strings.Builder, id, v string) {
	if v == "" {
		return
	}
	b.WriteString(id)
	b.WriteString(lengthDigits(v))
	b.WriteString(v)
}

// lengthDigits renders the 2-digit length of v; callers have checked len(v) <= 99.
func lengthDigits(v string) string {
	return string([]byte{'0' + byte(len(v)/10), '0' + byte(len(v)%10)})
}

func tlvSize(v string) int {
	if v == "" {
		return 0
	}
	return 4 + len(v)
}
