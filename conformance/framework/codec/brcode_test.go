package codec

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Worked examples of design/DOMAIN.md A1, each verified there with three
// independent implementations.
const (
	// brCodeManualStatic is the BCB manual's static example (EVP key, no amount).
	brCodeManualStatic = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
	// brCodeStaticAmount is static with amount 10.00 and txid PEDIDO123.
	brCodeStaticAmount = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62130509PEDIDO1236304902A"
	// brCodeDynamic is dynamic (POI 12) with a location URL.
	brCodeDynamic = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"
	// brCodeAutomatico is the BCB API 2.9.0 example: dynamic plus Pix Automático (template 80).
	brCodeAutomatico = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa35319489063047741"
)

// sealBRCode appends "6304" and the CRC to a code's fields, to build test
// codes that differ from a valid one in a single rule.
func sealBRCode(fields string) string {
	payload := fields + "6304"
	return payload + BRCodeCRC(payload)
}

// tlv writes one TLV field.
func tlv(id, value string) string {
	n := len(value)
	return id + string(rune('0'+n/10)) + string(rune('0'+n%10)) + value
}

// dynamicFields returns the fields of a dynamic code before 63, with the
// location, merchant name and city given.
func dynamicFields(url, name, city string) string {
	return tlv("00", "01") + tlv("01", "12") + tlv("26", tlv("00", BRCodeGUI)+tlv("25", url)) +
		tlv("52", "0000") + tlv("53", "986") + tlv("58", "BR") + tlv("59", name) + tlv("60", city) + tlv("62", tlv("05", "***"))
}

func TestCRC16CCITTFalse_CheckValue(t *testing.T) {
	if got := CRC16CCITTFalse([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16CCITTFalse(\"123456789\") = %04X, want 29B1", got)
	}
	if got := BRCodeCRC("123456789"); got != "29B1" {
		t.Fatalf("BRCodeCRC = %q, want 29B1", got)
	}
	if got := BRCodeCRC(""); got != "FFFF" {
		t.Fatalf("BRCodeCRC(\"\") = %q, want the initial value FFFF", got)
	}
}

func TestParseBRCode_WorkedExamples(t *testing.T) {
	tests := []struct {
		name string
		code string
		want BRCode
	}{
		{"manual static 1D3D", brCodeManualStatic, BRCode{
			PayloadFormat: "01", GUI: BRCodeGUI, Key: "123e4567-e12b-12d1-a456-426655440000", MCC: "0000", Currency: "986",
			Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***", CRC: "1D3D",
		}},
		{"static with amount 902A", brCodeStaticAmount, BRCode{
			PayloadFormat: "01", GUI: BRCodeGUI, Key: "123e4567-e12b-12d1-a456-426655440000", MCC: "0000", Currency: "986",
			Amount: "10.00", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "PEDIDO123", CRC: "902A",
		}},
		{"dynamic 7EC0", brCodeDynamic, BRCode{
			PayloadFormat: "01", PointOfInitiation: "12", GUI: BRCodeGUI, URL: "pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***", CRC: "7EC0",
		}},
		{"dynamic with template 80 7741", brCodeAutomatico, BRCode{
			PayloadFormat: "01", PointOfInitiation: "12", GUI: BRCodeGUI, URL: "pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441",
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***", CRC: "7741",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseBRCode(tt.code)
			if err != nil {
				t.Fatalf("ParseBRCode: %v", err)
			}
			got := *c
			got.Raw, got.Fields, got.HasTemplate26, got.HasTemplate62 = "", nil, false, false
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseBRCode:\n got %+v\nwant %+v", got, tt.want)
			}
			if !c.HasTemplate26 || !c.HasTemplate62 {
				t.Errorf("templates 26 and 62 not both seen: %+v", c)
			}
			if last := c.Fields[len(c.Fields)-1]; last.ID != "63" {
				t.Errorf("last field %s, want 63", last.ID)
			}
			if p := BRCodeProblems(tt.code); p != nil {
				t.Errorf("BRCodeProblems = %q, want none", p)
			}
		})
	}
}

func TestParseBRCode_Dynamic(t *testing.T) {
	for code, want := range map[string]bool{brCodeManualStatic: false, brCodeStaticAmount: false, brCodeDynamic: true, brCodeAutomatico: true} {
		c, err := ParseBRCode(code)
		if err != nil {
			t.Fatal(err)
		}
		if c.Dynamic() != want {
			t.Errorf("Dynamic() of %s = %v, want %v", c.CRC, c.Dynamic(), want)
		}
	}
}

func TestParseBRCode_Corrupted(t *testing.T) {
	// One character of the merchant name changed: the structure holds, the CRC does not.
	corrupted := strings.Replace(brCodeManualStatic, "Fulano", "Fulana", 1)
	c, err := ParseBRCode(corrupted)
	if !errors.Is(err, ErrBRCodeCRC) {
		t.Fatalf("ParseBRCode(corrupted) error = %v, want ErrBRCodeCRC", err)
	}
	if c == nil || c.MerchantName != "Fulana de Tal" || c.CRC != "1D3D" {
		t.Fatalf("ParseBRCode(corrupted) = %+v, want the parsed fields with the CRC mismatch", c)
	}
	if p := BRCodeProblems(corrupted); len(p) == 0 || !strings.Contains(strings.Join(p, "; "), "CRC mismatch") {
		t.Fatalf("BRCodeProblems(corrupted) = %q, want a CRC mismatch", p)
	}

	// The CRC digits themselves changed.
	wrongCRC := brCodeDynamic[:len(brCodeDynamic)-4] + "7EC1"
	if _, err := ParseBRCode(wrongCRC); !errors.Is(err, ErrBRCodeCRC) {
		t.Fatalf("ParseBRCode(wrong CRC) error = %v, want ErrBRCodeCRC", err)
	}
}

func TestParseBRCode_Structure(t *testing.T) {
	tests := map[string]string{
		"empty":                 "",
		"truncated field":       brCodeManualStatic[:30],
		"no CRC":                strings.TrimSuffix(brCodeManualStatic, "63041D3D"),
		"CRC not last":          brCodeManualStatic + "0000",
		"CRC of 3 digits":       strings.TrimSuffix(brCodeManualStatic, "63041D3D") + "6303ABC",
		"CRC not hex":           strings.TrimSuffix(brCodeManualStatic, "1D3D") + "1D3G",
		"length not digits":     "00A201" + brCodeManualStatic[6:],
		"00 not first":          sealBRCode(tlv("52", "0000") + tlv("00", "01")),
		"repeated field":        sealBRCode(tlv("00", "01") + tlv("53", "986") + tlv("53", "986")),
		"template 26 truncated": sealBRCode(tlv("00", "01") + tlv("26", "0014br.gov.bcb.pi")),
		"length 00":             sealBRCode(tlv("00", "01") + "5900"),
	}
	for name, code := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := ParseBRCode(code)
			if err == nil || c != nil {
				t.Fatalf("ParseBRCode = %+v, %v; want a structural error and no code", c, err)
			}
			if errors.Is(err, ErrBRCodeCRC) {
				t.Fatalf("error %v is a CRC mismatch, want a structural error", err)
			}
		})
	}
}

// TestBRCodeProblems: the rules of BeValidBRCode, which reports these problems.
func TestBRCodeProblems(t *testing.T) {
	valid := []string{brCodeManualStatic, brCodeStaticAmount, brCodeDynamic, brCodeAutomatico,
		sealBRCode(dynamicFields("qr.example.test/qr/v2/0123456789abcdef", "Conta Conformidade", "SAO PAULO"))}
	for _, code := range valid {
		if p := BRCodeProblems(code); len(p) != 0 {
			t.Errorf("BRCodeProblems of %s: %q", code, p)
		}
	}

	lowerCRC := brCodeManualStatic[:len(brCodeManualStatic)-4] + "1d3d"
	if _, err := ParseBRCode(lowerCRC); err != nil {
		t.Fatalf("ParseBRCode accepts a lowercase CRC, got %v", err)
	}
	invalid := map[string]struct{ code, problem string }{
		"lowercase CRC":      {lowerCRC, "not uppercase"},
		"corrupted":          {strings.Replace(brCodeDynamic, "BRASILIA", "BRASILIO", 1), "CRC mismatch"},
		"wrong GUI":          {sealBRCode(strings.Replace(dynamicFields("pix.example.com/qr/v2/1", "N", "C"), BRCodeGUI, "br.gov.bcb.pox", 1)), "GUI"},
		"currency 840":       {sealBRCode(strings.Replace(dynamicFields("pix.example.com/qr/v2/1", "N", "C"), "5303986", "5303840", 1)), "53 (currency)"},
		"country US":         {sealBRCode(strings.Replace(dynamicFields("pix.example.com/qr/v2/1", "N", "C"), "5802BR", "5802US", 1)), "58 (country)"},
		"name of 26":         {sealBRCode(dynamicFields("pix.example.com/qr/v2/1", strings.Repeat("N", 26), "C")), "59 (merchant name)"},
		"city of 16":         {sealBRCode(dynamicFields("pix.example.com/qr/v2/1", "N", strings.Repeat("C", 16))), "60 (merchant city)"},
		"not ASCII":          {sealBRCode(dynamicFields("pix.example.com/qr/v2/1", "N", "SÃO PAULO")), "not printable ASCII"},
		"payload format 02":  {sealBRCode(strings.Replace(dynamicFields("pix.example.com/qr/v2/1", "N", "C"), "000201", "000202", 1)), "000201"},
		"amount with comma":  {sealBRCode(strings.Replace(dynamicFields("pix.example.com/qr/v2/1", "N", "C"), "5303986", "5303986540510,00", 1)), "54 (amount)"},
		"no template 26":     {sealBRCode(tlv("00", "01") + tlv("52", "0000") + tlv("53", "986") + tlv("58", "BR") + tlv("59", "N") + tlv("60", "C")), "template 26"},
		"structurally wrong": {brCodeManualStatic[:40], "BR Code"},
	}
	for name, tt := range invalid {
		t.Run(name, func(t *testing.T) {
			p := BRCodeProblems(tt.code)
			if len(p) == 0 {
				t.Fatalf("BRCodeProblems found nothing wrong with %s", tt.code)
			}
			if msg := strings.Join(p, "\n"); !strings.Contains(msg, tt.problem) {
				t.Errorf("the problems do not mention %q:\n%s", tt.problem, msg)
			}
		})
	}
}

// TestBRCode_LocationURLProblems: the Central Bank's rules of a dynamic
// code's location apply apart from BRCodeProblems, which the contract's
// "static or dynamic" code does not hold to them.
func TestBRCode_LocationURLProblems(t *testing.T) {
	for name, tt := range map[string]struct{ code, problem string }{
		"URL with a scheme": {sealBRCode(dynamicFields("https://pix.example.com/qr/v2/1", "Fulano de Tal", "BRASILIA")), "scheme"},
		"dynamic no URL": {sealBRCode(tlv("00", "01") + tlv("01", "12") + tlv("26", tlv("00", BRCodeGUI)+tlv("01", "a@b.example")) +
			tlv("52", "0000") + tlv("53", "986") + tlv("58", "BR") + tlv("59", "N") + tlv("60", "C")), "without a location"},
		"URL without a path": {sealBRCode(dynamicFields("pix.example.com", "N", "C")), "host followed by a path"},
	} {
		t.Run(name, func(t *testing.T) {
			if p := BRCodeProblems(tt.code); len(p) != 0 {
				t.Errorf("BRCodeProblems holds the contract's code to the dynamic rules: %q", p)
			}
			c, err := ParseBRCode(tt.code)
			if err != nil {
				t.Fatal(err)
			}
			if msg := strings.Join(c.LocationURLProblems(), "\n"); !strings.Contains(msg, tt.problem) {
				t.Errorf("LocationURLProblems = %q, want one mentioning %q", msg, tt.problem)
			}
		})
	}
	for _, code := range []string{brCodeManualStatic, brCodeDynamic, brCodeAutomatico} {
		c, err := ParseBRCode(code)
		if err != nil {
			t.Fatal(err)
		}
		if p := c.LocationURLProblems(); len(p) != 0 {
			t.Errorf("LocationURLProblems of %s: %q", code, p)
		}
	}
}

// crc16Definition is CRC-16/CCITT-FALSE bit by bit, as its definition
// reads: the oracle of the table-driven CRC16CCITTFalse.
func crc16Definition(b []byte) uint16 {
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

func FuzzCRC16CCITTFalse_MatchesDefinition(f *testing.F) {
	f.Add([]byte("123456789"))
	f.Add([]byte{0x00, 0xFF, 0x80, 0x7F})
	f.Fuzz(func(t *testing.T, b []byte) {
		want := crc16Definition(b)
		if got := CRC16CCITTFalse(b); got != want {
			t.Fatalf("CRC16CCITTFalse(%x) = %04X, the definition gives %04X", b, got, want)
		}
		if got, wantText := BRCodeCRC(string(b)), fmt.Sprintf("%04X", want); got != wantText {
			t.Fatalf("BRCodeCRC(%q) = %s, want %s", b, got, wantText)
		}
	})
}
