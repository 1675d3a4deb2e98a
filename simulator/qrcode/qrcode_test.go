package qrcode

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/boombuler/barcode/qr"
	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
)

// A dynamic PIX BR Code (the worked example of the design notes, CRC 7EC0).
const dynamicBRCode = "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63047EC0"

// text512 is 512 characters (the API's pixCopiaECola maxLength) cycling through
// printable ASCII, '\' and '~' included.
func text512() string {
	var b strings.Builder
	for i := 0; b.Len() < 512; i++ {
		b.WriteByte(byte(0x20 + i%95))
	}
	return b.String()
}

// decode reads a PNG and returns the text of the QR code in it, through an
// independent decoder.
func decode(t *testing.T, b []byte) (string, image.Image) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png.Decode: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatalf("NewBinaryBitmapFromImage: %v", err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText(), img
}

func checkPNG(t *testing.T, b []byte, size int) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no PNG signature: % x", b[:min(8, len(b))])
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png.DecodeConfig: %v", err)
	}
	if cfg.Width != size || cfg.Height != size {
		t.Fatalf("PNG is %dx%d, want %dx%d", cfg.Width, cfg.Height, size, size)
	}
}

// checkQuietZone checks that the border of at least QuietZone modules is white and
// that the top-left finder pattern starts right inside it.
func checkQuietZone(t *testing.T, img image.Image, text string, size int) {
	t.Helper()
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		t.Fatal(err)
	}
	modules := code.Bounds().Dx()
	scale := size / (modules + 2*QuietZone)
	offset := (size - modules*scale) / 2
	if offset < QuietZone*scale {
		t.Fatalf("offset %d px < quiet zone %d px", offset, QuietZone*scale)
	}
	isDark := func(x, y int) bool { return dark(img.At(x, y)) }
	end := offset + modules*scale // just past the symbol
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			inside := x >= offset && x < end && y >= offset && y < end
			if !inside && isDark(x, y) {
				t.Fatalf("pixel (%d,%d) outside the symbol [%d,%d) is dark", x, y, offset, end)
			}
		}
	}
	if !isDark(offset, offset) || !isDark(offset+scale-1, offset+scale-1) {
		t.Fatalf("the finder pattern does not start at (%d,%d)", offset, offset)
	}
}

func TestPNGDecodesBack(t *testing.T) {
	tests := []struct {
		name string
		text string
		size int
	}{
		{"BR Code at 256 px", dynamicBRCode, 256},
		{"BR Code at 512 px", dynamicBRCode, 512},
		{"BR Code, size not a multiple of the modules", dynamicBRCode, 301},
		{"512 characters at 256 px", text512(), 256},
		{"512 characters at 1000 px", text512(), 1000},
		{"digits only", "12345678901234567890", 200},
		{"upper-case alphanumeric", "PIX SANDBOX $%*+-./:", 200},
		{"UTF-8", "São Paulo, Conceição", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := PNG(tt.text, tt.size)
			if err != nil {
				t.Fatalf("PNG: %v", err)
			}
			checkPNG(t, b, tt.size)
			got, img := decode(t, b)
			if got != tt.text {
				t.Fatalf("decoded\n%q\nwant\n%q", got, tt.text)
			}
			checkQuietZone(t, img, tt.text, tt.size)
		})
	}
}

func TestBase64PNG(t *testing.T) {
	for _, text := range []string{dynamicBRCode, text512()} {
		s, err := Base64PNG(text)
		if err != nil {
			t.Fatalf("Base64PNG: %v", err)
		}
		if strings.HasPrefix(s, "data:") {
			t.Fatalf("Base64PNG has a data: prefix")
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("not standard base64: %v", err)
		}
		checkPNG(t, b, DefaultSize)
		if got, _ := decode(t, b); got != text {
			t.Fatalf("decoded %q, want %q", got, text)
		}
		again, err := Base64PNG(text)
		if err != nil || again != s {
			t.Fatalf("Base64PNG is not deterministic")
		}
	}
}

func TestPNGLargestText(t *testing.T) {
	// Version 40 at level M holds 2331 bytes: 1 pixel per module at DefaultSize.
	text := strings.Repeat("pix", 777)
	s, err := Base64PNG(text)
	if err != nil {
		t.Fatalf("Base64PNG of %d bytes: %v", len(text), err)
	}
	b, _ := base64.StdEncoding.DecodeString(s)
	checkPNG(t, b, DefaultSize)
	if got, _ := decode(t, b); got != text {
		t.Fatalf("decoded text differs")
	}
}

func TestPNGErrors(t *testing.T) {
	tests := []struct {
		name, text string
		size       int
		want       string
	}{
		{"empty text", "", 256, "qrcode: empty text"},
		{"zero size", "x", 0, "qrcode: size 0 px, want 1 to 4096"},
		{"negative size", "x", -1, "qrcode: size -1 px, want 1 to 4096"},
		{"size too large", "x", MaxSize + 1, "qrcode: size 4097 px, want 1 to 4096"},
		{"too small for the symbol", dynamicBRCode, 40, "qrcode: size 40 px is too small for a 53-module symbol and its quiet zone (at least 61 px)"},
		{"text too long", strings.Repeat("x", 2332), 256, "qrcode: 2332 bytes of text do not fit in a QR code at error correction level M"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := PNG(tt.text, tt.size)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("PNG = %d bytes, %v; want error %q", len(b), err, tt.want)
			}
		})
	}
}
