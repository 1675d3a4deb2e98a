package brcode

import (
	"errors"
	"fmt"
	"strings"
)

// requiredFields are the top-level fields every code must carry.
var requiredFields = [...]string{"26", "52", "53", "58", "59", "60"}

// Parse parses and validates a BR Code. It checks, in this order: the code
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
func Parse(s string) (Code, error) {
	var c Code
	if err := checkFrame(s); err != nil {
		return c, err
	}
	fields, err := visitFields(s, "", func(f tlv) error { return c.setField(f, len(s)) })
	if err != nil {
		return c, err
	}
	if err := checkFieldSet(fields); err != nil {
		return c, err
	}
	if c.TxID == "" {
		c.TxID = NoTxID
	}
	if err := c.validate(false); err != nil {
		return c, err
	}
	return c, nil
}

// checkFrame checks what can be checked before the TLV structure is read: the
// header, the shape of the CRC field, printable ASCII and the CRC itself.
func checkFrame(s string) error {
	if s == "" {
		return errors.New("empty code")
	}
	if !strings.HasPrefix(s, header) {
		return errors.New("field 00: the code must start with 000201")
	}
	if len(s) < len(header)+8 || s[len(s)-8:len(s)-4] != crcFieldHead || !isHex(s[len(s)-4:]) {
		return errors.New("field 63: the code must end with 6304 and 4 hex digits of CRC")
	}
	if i := nonPrintable(s); i >= 0 {
		return fmt.Errorf("byte 0x%02X at offset %d is not printable ASCII", s[i], i)
	}
	got := s[len(s)-4:]
	if want := fmt.Sprintf("%04X", CRC16([]byte(s[:len(s)-4]))); strings.ToUpper(got) != want {
		return fmt.Errorf("crc: got %s, want %s", got, want)
	}
	return nil
}

// setField checks one top-level field of a code of total characters and
// stores its value in c.
func (c *Code) setField(f tlv, total int) error {
	switch {
	case f.id == "63" && f.end != total:
		return fmt.Errorf("field 63: must be the last field, %d characters follow it", total-f.end)
	case f.value == "" && knownField(f.id):
		return fmt.Errorf("field %s: empty value", f.id)
	}
	switch f.id {
	case "00":
		if f.value != "01" {
			return fmt.Errorf("field 00: payload format indicator %q, want 01", f.value)
		}
	case "01":
		c.PointOfInitiation = f.value
	case "26":
		return c.parseMerchantAccount(f.value)
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
		return c.parseAdditionalData(f.value)
	}
	return nil
}

// checkFieldSet checks that the CRC is the last field, 4 characters long, and
// that every required field is present.
func checkFieldSet(fields []tlv) error {
	switch last := fields[len(fields)-1]; {
	case last.id != "63":
		return errors.New("field 63: the CRC is not the last field")
	case len(last.value) != 4:
		return fmt.Errorf("field 63: length %02d, want 04", len(last.value))
	}
	present := make(map[string]bool, len(fields))
	for _, f := range fields {
		present[f.id] = true
	}
	for _, id := range requiredFields {
		if !present[id] {
			return fmt.Errorf("field %s: missing (%s)", id, fieldName(id))
		}
	}
	return nil
}

func (c *Code) parseMerchantAccount(v string) error {
	gui := false
	_, err := visitFields(v, "26", func(f tlv) error {
		switch f.id {
		case "00", "01", "02", "25":
			if f.value == "" {
				return fmt.Errorf("field 26-%s: empty value", f.id)
			}
		}
		switch f.id {
		case "00":
			if !strings.EqualFold(f.value, GUI) {
				return fmt.Errorf("field 26: gui %q, want %s", f.value, GUI)
			}
			gui = true
		case "01":
			c.Key = f.value
		case "02":
			c.Info = f.value
		case "25":
			c.URL = f.value
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !gui {
		return fmt.Errorf("field 26: gui (26-00) missing, want %s", GUI)
	}
	return nil
}

func (c *Code) parseAdditionalData(v string) error {
	_, err := visitFields(v, "62", func(f tlv) error {
		if f.id == "05" {
			if f.value == "" {
				return errors.New("field 62-05: empty value")
			}
			c.TxID = f.value
		}
		return nil
	})
	return err
}

// tlv is one field of a TLV run; end is the offset just past its value.
type tlv struct {
	id, value string
	end       int
}

// visitFields splits s into TLV fields and calls visit on each in order,
// stopping at the first error; a field that appears a second time is an error
// before visit sees it. parent names the enclosing template in errors ("" at
// the top level).
func visitFields(s, parent string, visit func(tlv) error) ([]tlv, error) {
	fields, err := splitTLV(s, parent)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.id] {
			return nil, fmt.Errorf("%s: appears more than once", fieldLabel(parent, f.id))
		}
		seen[f.id] = true
		if err := visit(f); err != nil {
			return nil, err
		}
	}
	return fields, nil
}

// fieldLabel names field id of template parent in errors: "field 52", "field 26-01".
func fieldLabel(parent, id string) string {
	if parent == "" {
		return "field " + id
	}
	return "field " + parent + "-" + id
}

// splitTLV splits s into TLV fields. parent names the enclosing template in errors
// ("" at the top level).
func splitTLV(s, parent string) ([]tlv, error) {
	where := "code"
	if parent != "" {
		where = "field " + parent
	}
	var out []tlv
	for i := 0; i < len(s); {
		if len(s)-i < 4 {
			return nil, fmt.Errorf("%s: %d stray characters at offset %d, too short for a field", where, len(s)-i, i)
		}
		id, ln := s[i:i+2], s[i+2:i+4]
		if !isDigits(id) {
			return nil, fmt.Errorf("%s: field ID %q at offset %d is not two digits", where, id, i)
		}
		if !isDigits(ln) {
			return nil, fmt.Errorf("%s: length %q is not two digits", fieldLabel(parent, id), ln)
		}
		n := int(ln[0]-'0')*10 + int(ln[1]-'0')
		start := i + 4
		if start+n > len(s) {
			return nil, fmt.Errorf("%s: length %d runs past the end of the %s (%d characters left)", fieldLabel(parent, id), n, where, len(s)-start)
		}
		out = append(out, tlv{id: id, value: s[start : start+n], end: start + n})
		i = start + n
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no fields", where)
	}
	return out, nil
}

func knownField(id string) bool {
	switch id {
	case "00", "01", "26", "52", "53", "54", "58", "59", "60", "61", "62", "63":
		return true
	}
	return false
}

func fieldName(id string) string {
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
