package brcode

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The worked examples of the design notes (DOMAIN.md A1), each checked there by
// independent implementations.
const (
	exampleBCBStatic    = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
	exampleStaticAmount = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62130509PEDIDO1236304902A"
	exampleDynamic      = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"
	exampleAutomatico   = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/94ed2badcbc04c15b0bb7fa35319489063047741"
	examplePixUtils     = "00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069"
	examplePixcode      = "00020101021226720014br.gov.bcb.pix2550bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd4415204000053039865406123.455802BR5913Fulano de Tal6008BRASILIA62190515RP12345678-2019630445C8"
)

// withCRC replaces the CRC of a code (whose last 4 characters are the CRC)
// with the right one, so tests can build invalid structures behind a valid CRC.
func withCRC(s string) string {
	body := s[:len(s)-4]
	return body + fmt.Sprintf("%04X", CRC16([]byte(body)))
}

func TestCRC16CheckValue(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16(123456789) = %04X, want 29B1", got)
	}
	if got := CRC16(nil); got != 0xFFFF {
		t.Fatalf("CRC16(nil) = %04X, want FFFF", got)
	}
}

// crc16Bitwise is the CRC by its definition: each bit of b, first to last,
// shifted into the register, which takes the polynomial when a 1 leaves it.
func crc16Bitwise(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, c := range b {
		for i := 7; i >= 0; i-- {
			out := crc>>15 ^ uint16(c>>i)&1
			crc <<= 1
			if out != 0 {
				crc ^= 0x1021
			}
		}
	}
	return crc
}

func TestCRC16_MatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if got, want := CRC16(b), crc16Bitwise(b); got != want {
			t.Fatalf("CRC16(% x) = %04X, want %04X", b, got, want)
		}
	}
}

func BenchmarkCRC16(b *testing.B) {
	code := []byte(strings.Repeat("00020101021226850014br.gov.bcb.pix2563", 5))
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			CRC16(code)
		}
	})
	b.Run("bitwise", func(b *testing.B) {
		for b.Loop() {
			crc16Bitwise(code)
		}
	})
}

func TestParseWorkedExamples(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		want     Code
		reencode bool
	}{
		{
			name: "BCB manual static", code: exampleBCBStatic, reencode: true,
			want: Code{Key: "123e4567-e12b-12d1-a456-426655440000", MCC: "0000", Currency: "986",
				Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***"},
		},
		{
			name: "static with amount and txid", code: exampleStaticAmount, reencode: true,
			want: Code{Key: "123e4567-e12b-12d1-a456-426655440000", MCC: "0000", Currency: "986",
				Amount: "10.00", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "PEDIDO123"},
		},
		{
			name: "dynamic", code: exampleDynamic, reencode: true,
			want: Code{PointOfInitiation: "12", URL: "pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
				MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***"},
		},
		{
			// Field 80 (Pix Automático) is skipped; re-encoding would drop it.
			name: "BCB 2.9.0 with field 80", code: exampleAutomatico,
			want: Code{PointOfInitiation: "12", URL: "pix.example.com/qr/v2/8b3da2f39a4140d1a91abd93113bd441",
				MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", TxID: "***"},
		},
		{
			name: "pix-utils README static", code: examplePixUtils, reencode: true,
			want: Code{Key: "nubank@thalesog.com", Info: "Gerado por Pix-Utils", MCC: "0000", Currency: "986",
				Amount: "1.00", Country: "BR", MerchantName: "Thales Ogliari", MerchantCity: "Sao Paulo", TxID: "***"},
		},
		{
			// The txid has a dash: the parser accepts it, Encode would not.
			name: "pixcode README dynamic with amount and txid", code: examplePixcode,
			want: Code{PointOfInitiation: "12", URL: "bx.com.br/pix/8b3da2f3-9a41-40d1-a91a-bd93113bd441",
				MCC: "0000", Currency: "986", Amount: "123.45", Country: "BR", MerchantName: "Fulano de Tal",
				MerchantCity: "BRASILIA", TxID: "RP12345678-2019"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.code)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !tt.reencode {
				return
			}
			enc, err := got.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if enc != tt.code {
				t.Fatalf("Encode =\n%s\nwant\n%s", enc, tt.code)
			}
		})
	}
}

func TestEncodeRejectsDashedTxID(t *testing.T) {
	c, err := Parse(examplePixcode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Encode(); err == nil || !strings.Contains(err.Error(), "field 62-05") {
		t.Fatalf("Encode error = %v, want a field 62-05 error", err)
	}
}

func TestNewDynamicMatchesExample(t *testing.T) {
	for _, loc := range []string{
		"pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
		"https://pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
		"HTTPS://pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25",
	} {
		got, err := NewDynamic(loc, "Fulano de Tal", "BRASILIA").Encode()
		if err != nil {
			t.Fatalf("%s: Encode: %v", loc, err)
		}
		if got != exampleDynamic {
			t.Fatalf("%s: Encode =\n%s\nwant\n%s", loc, got, exampleDynamic)
		}
	}
}

func TestNewDynamicFolding(t *testing.T) {
	tests := []struct {
		name, inName, inCity, wantName, wantCity string
	}{
		{"accents", "João Conceição", "São Paulo", "Joao Conceicao", "Sao Paulo"},
		{"uppercase accents kept upper", "JOÃO CONCEIÇÃO", "SÃO PAULO", "JOAO CONCEICAO", "SAO PAULO"},
		{"all Portuguese letters", "áàâãäéèêëíìîïóòôõöúùûüçñ", "ÁÀÂÃÄÉÈÊË", "aaaaaeeeeiiiiooooouuuucn", "AAAAAEEEE"},
		{"more upper", "ÍÌÎÏÓÒÔÕÖÚÙÛÜÇÑ", "x", "IIIIOOOOOUUUUCN", "x"},
		{"name truncated to 25", "Empresa de Pagamentos Instantaneos Ltda", "Rio de Janeiro", "Empresa de Pagamentos Ins", "Rio de Janeiro"},
		{"city truncated to 15", "Loja", "Santa Barbara d'Oeste", "Loja", "Santa Barbara d"},
		{"truncation trims a trailing space", "Padaria do Bairro Central X", "Sao Jose dos Campos", "Padaria do Bairro Central", "Sao Jose dos Ca"},
		{"empty gets defaults", "", "", "PIXSANDBOX", "SAO PAULO"},
		{"only unfoldable gets defaults", "日本語 ", "\x00\t\n", "PIXSANDBOX", "SAO PAULO"},
		{"control and other non-ASCII removed", "A\tB\u00a0C€D\x7f", " Belém ", "ABCD", "Belem"},
		{"invalid UTF-8 removed", "Ana\xff\xfeMaria", "Recife", "AnaMaria", "Recife"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewDynamic("pix.example.com/qr/v2/abc", tt.inName, tt.inCity)
			if c.MerchantName != tt.wantName || c.MerchantCity != tt.wantCity {
				t.Fatalf("name, city = %q, %q; want %q, %q", c.MerchantName, c.MerchantCity, tt.wantName, tt.wantCity)
			}
			enc, err := c.Encode()
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			back, err := Parse(enc)
			if err != nil || back != c {
				t.Fatalf("Parse(Encode) = %+v, %v; want %+v", back, err, c)
			}
		})
	}
}

func TestParseOneCharacterChangeBreaksCRC(t *testing.T) {
	for i := 0; i < len(exampleBCBStatic)-4; i++ {
		b := []byte(exampleBCBStatic)
		if b[i] == 'x' {
			b[i] = 'y'
		} else {
			b[i] = 'x'
		}
		if _, err := Parse(string(b)); err == nil {
			t.Fatalf("changing offset %d (%q) was accepted", i, exampleBCBStatic[i])
		}
	}
	// A change inside a value is reported as a CRC mismatch, naming both values.
	bad := strings.Replace(exampleBCBStatic, "Fulano", "Fulana", 1)
	_, err := Parse(bad)
	want := fmt.Sprintf("crc: got 1D3D, want %04X", CRC16([]byte(bad[:len(bad)-4])))
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	// A wrong CRC digit.
	_, err = Parse(exampleBCBStatic[:len(exampleBCBStatic)-1] + "E")
	if err == nil || err.Error() != "crc: got 1D3E, want 1D3D" {
		t.Fatalf("error = %v, want crc: got 1D3E, want 1D3D", err)
	}
}

func TestParseLowercaseCRC(t *testing.T) {
	lower := exampleBCBStatic[:len(exampleBCBStatic)-4] + "1d3d"
	c, err := Parse(lower)
	if err != nil {
		t.Fatalf("lowercase valid CRC: %v", err)
	}
	// Encode always emits uppercase.
	if enc, err := c.Encode(); err != nil || enc != exampleBCBStatic {
		t.Fatalf("Encode = %q, %v; want %q", enc, err, exampleBCBStatic)
	}
	_, err = Parse(exampleBCBStatic[:len(exampleBCBStatic)-4] + "1d3e")
	if err == nil || err.Error() != "crc: got 1d3e, want 1D3D" {
		t.Fatalf("error = %v, want crc: got 1d3e, want 1D3D", err)
	}
}

func TestParseErrors(t *testing.T) {
	const (
		head    = "000201"
		mai     = "26580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000"
		tail    = "5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***"
		crcHead = "6304"
	)
	build := func(parts ...string) string { return withCRC(strings.Join(parts, "") + crcHead + "0000") }
	tests := []struct {
		name, code, want string
	}{
		{"empty", "", "empty code"},
		{"no header", "0102" + exampleBCBStatic[6:], "field 00: the code must start with 000201"},
		{"no CRC field", exampleBCBStatic[:len(exampleBCBStatic)-8], "field 63: the code must end with 6304 and 4 hex digits of CRC"},
		{"non-hex CRC", exampleBCBStatic[:len(exampleBCBStatic)-1] + "G", "field 63: the code must end with 6304 and 4 hex digits of CRC"},
		{"trailing data", exampleBCBStatic + "\n", "field 63: the code must end with 6304 and 4 hex digits of CRC"},
		{"trailing field after CRC", build(head, mai, tail, "63041D3D", "9900"), "field 63: must be the last field, 12 characters follow it"},
		{"non-ASCII", build(head, mai, "5204000053039865802BR5914Fulano de Tál6008BRASILIA"), "byte 0xC3 at offset 104 is not printable ASCII"},
		{"wrong GUI", build(head, "26580014br.gov.bcb.pox0136123e4567-e12b-12d1-a456-426655440000", tail), `field 26: gui "br.gov.bcb.pox", want br.gov.bcb.pix`},
		{"missing GUI", build(head, "26400136123e4567-e12b-12d1-a456-426655440000", tail), "field 26: gui (26-00) missing, want br.gov.bcb.pix"},
		{"missing 26", build(head, tail), "field 26: missing (merchant account information)"},
		{"missing 59", build(head, mai, "5204000053039865802BR6008BRASILIA"), "field 59: missing (merchant name)"},
		{"missing 60", build(head, mai, "5204000053039865802BR5913Fulano de Tal"), "field 60: missing (merchant city)"},
		{"missing 52", build(head, mai, "53039865802BR5913Fulano de Tal6008BRASILIA"), "field 52: missing (merchant category code)"},
		{"missing 53", build(head, mai, "520400005802BR5913Fulano de Tal6008BRASILIA"), "field 53: missing (transaction currency)"},
		{"missing 58", build(head, mai, "5204000053039865913Fulano de Tal6008BRASILIA"), "field 58: missing (country code)"},
		{"name too long", build(head, mai, "5204000053039865802BR5926ABCDEFGHIJKLMNOPQRSTUVWXYZ6008BRASILIA"), "field 59: merchant name has 26 characters, at most 25"},
		{"city too long", build(head, mai, "5204000053039865802BR5901A6016ABCDEFGHIJKLMNOP"), "field 60: merchant city has 16 characters, at most 15"},
		{"length past the end", build(head, mai, "5204000053039865802BR5913Fulano de Tal6099BRASILIA"), "field 60: length 99 runs past the end of the code (16 characters left)"},
		{"length not digits", build(head, mai, "52x4"), `field 52: length "x4" is not two digits`},
		{"ID not digits", build(head, mai, "A204"), `code: field ID "A2" at offset 68 is not two digits`},
		{"duplicate field", build(head, mai, tail, "5802BR"), "field 58: appears more than once"},
		{"wrong currency", build(head, mai, "5204000053038405802BR5913Fulano de Tal6008BRASILIA"), `field 53: currency "840", want 986 (BRL)`},
		{"wrong country", build(head, mai, "5204000053039865802US5913Fulano de Tal6008BRASILIA"), `field 58: country "US", want BR`},
		{"bad MCC", build(head, mai, "520300053039865802BR5913Fulano de Tal6008BRASILIA"), `field 52: merchant category code "000", want 4 digits`},
		{"bad amount", build(head, mai, tail, "54041,00"), `field 54: amount "1,00", want digits with '.' and up to 2 decimals, e.g. 10.00`},
		{"zero amount", build(head, mai, tail, "54040.00"), "field 54: amount is zero; omit the field when there is no fixed amount"},
		{"bad POI", build(head, "010213", mai, tail), `field 01: point of initiation "13", want 11 (reusable) or 12 (single use)`},
		{"key and URL", build(head, "26700014br.gov.bcb.pix0119nubank@thalesog.com2525pix.example.com/qr/v2/abc", tail), "field 26: both a key (26-01) and a URL (26-25)"},
		{"neither key nor URL", build(head, "26180014br.gov.bcb.pix", tail), "field 26: neither a key (26-01) nor a URL (26-25)"},
		{"empty value", build(head, mai, tail, "6100"), "field 61: empty value"},
		{"empty sub-field", build(head, "26220014br.gov.bcb.pix0100", tail), "field 26-01: empty value"},
		{"sub-field past the end", build(head, "26170014br.gov.bcb.pi", tail), "field 26-00: length 14 runs past the end of the field 26 (13 characters left)"},
		{"txid too long", build(head, mai, "5204000053039865802BR5913Fulano de Tal6008BRASILIA62300526ABCDEFGHIJKLMNOPQRSTUVWXYZ"), "field 62-05: txid has 26 characters, want *** or 1 to 25"},
		{"CRC field longer", withCRC(head + mai + tail + "6312ABCD63040000"), "field 63: length 12, want 04"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.code)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tt.code, c, tt.want)
			}
			if err.Error() != tt.want {
				t.Fatalf("Parse(%q) error =\n%q\nwant\n%q", tt.code, err.Error(), tt.want)
			}
		})
	}
}

func TestParseLenient(t *testing.T) {
	// Field 62 absent, GUI in uppercase, an unknown sub-field in 26 (FSS, 03) and
	// an unknown top-level template: accepted, TxID "***".
	code := withCRC("000201" + "26670014BR.GOV.BCB.PIX0136123e4567-e12b-12d1-a456-4266554400000305ABCDE" +
		"5204000053039865802BR5913Fulano de Tal6008BRASILIA" + "6105012346410ABCDEFGHIJ" + "63040000")
	c, err := Parse(code)
	if err != nil {
		t.Fatal(err)
	}
	want := Code{Key: "123e4567-e12b-12d1-a456-426655440000", MCC: "0000", Currency: "986", Country: "BR",
		MerchantName: "Fulano de Tal", MerchantCity: "BRASILIA", PostalCode: "01234", TxID: "***"}
	if c != want {
		t.Fatalf("Parse = %+v, want %+v", c, want)
	}
}

func TestEncodeErrors(t *testing.T) {
	ok := Code{Key: "k", MerchantName: "N", MerchantCity: "C"}
	if s, err := ok.Encode(); err != nil || !strings.HasPrefix(s, "000201") {
		t.Fatalf("minimal static code: %q, %v", s, err)
	}
	tests := []struct {
		name string
		mod  func(*Code)
		want string
	}{
		{"no key or URL", func(c *Code) { c.Key = "" }, "field 26: neither a key (26-01) nor a URL (26-25)"},
		{"key and URL", func(c *Code) { c.URL = "x" }, "field 26: both a key (26-01) and a URL (26-25)"},
		{"key too long", func(c *Code) { c.Key = strings.Repeat("k", 78) }, "field 26-01: key has 78 characters, at most 77"},
		{"template too long", func(c *Code) { c.Key = strings.Repeat("k", 70); c.Info = "123456" }, "field 26: template would have 102 characters, at most 99 (shorten the key, info or URL)"},
		{"value over 99", func(c *Code) { c.Info = strings.Repeat("i", 100) }, "field 26-02: value has 100 characters, at most 99"},
		{"empty name", func(c *Code) { c.MerchantName = "" }, "field 59: merchant name is empty"},
		{"long name", func(c *Code) { c.MerchantName = strings.Repeat("n", 26) }, "field 59: merchant name has 26 characters, at most 25"},
		{"empty city", func(c *Code) { c.MerchantCity = "" }, "field 60: merchant city is empty"},
		{"long city", func(c *Code) { c.MerchantCity = strings.Repeat("c", 16) }, "field 60: merchant city has 16 characters, at most 15"},
		{"non-ASCII name", func(c *Code) { c.MerchantName = "São" }, "field 59: byte 0xC3 at position 1 is not printable ASCII"},
		{"control in city", func(c *Code) { c.MerchantCity = "a\nb" }, "field 60: byte 0x0A at position 1 is not printable ASCII"},
		{"txid dash", func(c *Code) { c.TxID = "A-1" }, `field 62-05: txid "A-1", want *** or only letters and digits`},
		{"txid too long", func(c *Code) { c.TxID = strings.Repeat("t", 26) }, "field 62-05: txid has 26 characters, want *** or 1 to 25"},
		{"amount three decimals", func(c *Code) { c.Amount = "1.005" }, `field 54: amount "1.005", want digits with '.' and up to 2 decimals, e.g. 10.00`},
		{"amount too long", func(c *Code) { c.Amount = "12345678901.00" }, `field 54: amount "12345678901.00" has 14 characters, at most 13`},
		{"amount zero", func(c *Code) { c.Amount = "0" }, "field 54: amount is zero; omit the field when there is no fixed amount"},
		{"postal code", func(c *Code) { c.PostalCode = "01234-567-89" }, "field 61: postal code has 12 characters, at most 10"},
		{"currency", func(c *Code) { c.Currency = "840" }, `field 53: currency "840", want 986 (BRL)`},
		{"POI", func(c *Code) { c.PointOfInitiation = "1" }, `field 01: point of initiation "1", want 11 (reusable) or 12 (single use)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mod(&c)
			s, err := c.Encode()
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Encode = %q, %v; want error %q", s, err, tt.want)
			}
		})
	}
}

func TestEncodeRoundTripAllFields(t *testing.T) {
	c := Code{PointOfInitiation: "11", Key: "+5561999999999", Info: "pedido 42", MCC: "5812", Currency: "986",
		Amount: "1234567890.99", Country: "BR", MerchantName: "Restaurante Bom Sabor", MerchantCity: "Salvador",
		PostalCode: "40000000", TxID: "Pedido42"}
	s, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(s)
	if err != nil || back != c {
		t.Fatalf("Parse(%q) = %+v, %v; want %+v", s, back, err, c)
	}
}

// FuzzRoundTrip: a dynamic code built from any location, name and city either
// fails to encode or parses back to the same fields with a 4-digit uppercase CRC.
func FuzzRoundTrip(f *testing.F) {
	f.Add("pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25", "Fulano de Tal", "BRASILIA")
	f.Add("https://pix.example.com/qr/v2/cobv/abc", "João Conceição", "São Paulo")
	f.Add("", "", "")
	f.Add(strings.Repeat("a", 77), strings.Repeat("é", 30), "Florianópolis SC")
	f.Add("x\x00y", "\xff", "\t")
	f.Fuzz(func(t *testing.T, location, name, city string) {
		c := NewDynamic(location, name, city)
		if len(c.MerchantName) == 0 || len(c.MerchantName) > 25 || len(c.MerchantCity) == 0 || len(c.MerchantCity) > 15 {
			t.Fatalf("name %q, city %q out of bounds", c.MerchantName, c.MerchantCity)
		}
		if nonPrintable(c.MerchantName) >= 0 || nonPrintable(c.MerchantCity) >= 0 {
			t.Fatalf("name %q or city %q not printable ASCII", c.MerchantName, c.MerchantCity)
		}
		s, err := c.Encode()
		if err != nil {
			return
		}
		back, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if back != c {
			t.Fatalf("Parse(Encode) = %+v, want %+v", back, c)
		}
		crc := s[len(s)-4:]
		if crc != strings.ToUpper(crc) || !isHex(crc) || crc != fmt.Sprintf("%04X", CRC16([]byte(s[:len(s)-4]))) {
			t.Fatalf("CRC %q of %q", crc, s)
		}
	})
}

// FuzzParse: the parser never panics; a code it accepts that Encode also
// accepts re-encodes to a code that parses to the same fields.
func FuzzParse(f *testing.F) {
	for _, s := range []string{exampleBCBStatic, exampleStaticAmount, exampleDynamic, exampleAutomatico, examplePixUtils, examplePixcode, "", "000201", "0002016304FFFF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inputs := []string{s}
		if len(s) >= 4 {
			// The same text with its last 4 characters replaced by the right CRC, so
			// mutations reach the structural checks behind the CRC check.
			inputs = append(inputs, withCRC(s))
		}
		for _, in := range inputs {
			c, err := Parse(in)
			if err != nil {
				continue
			}
			enc, err := c.Encode()
			if err != nil {
				continue
			}
			back, err := Parse(enc)
			if err != nil || back != c {
				t.Fatalf("Parse(Encode(Parse(%q))) = %+v, %v; want %+v", in, back, err, c)
			}
		}
	})
}
