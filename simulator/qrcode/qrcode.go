package qrcode

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/boombuler/barcode/qr"
)

const (
	// QuietZone is the white border around the symbol, in modules.
	QuietZone = 4
	// DefaultSize is the width and height in pixels of the images Base64PNG makes.
	// Any text that fits in a QR code fits in it with at least 1 pixel per module
	// (version 40 is 177 modules, 185 with the quiet zone).
	DefaultSize = 256
	// MaxSize bounds the size PNG accepts, so a caller-supplied size cannot make
	// it allocate without limit.
	MaxSize = 4096
)

// palette is white (index 0, the zero value of a new image) and black.
var palette = color.Palette{color.White, color.Black}

// PNG returns a size×size PNG of text as a QR code at error correction level M
// with its quiet zone. It fails when text is empty, does not fit in a QR code, or
// when size is not in [1, MaxSize] or leaves less than one pixel per module
// (the symbol plus 2×QuietZone modules must fit in size).
func PNG(text string, size int) ([]byte, error) {
	img, err := render(text, size)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("qrcode: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// Base64PNG returns the standard base64 encoding (with padding, no "data:"
// prefix) of PNG(text, DefaultSize).
func Base64PNG(text string) (string, error) {
	b, err := PNG(text, DefaultSize)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// render draws the symbol of text centred on a size×size image, a whole number of
// pixels per module.
func render(text string, size int) (*image.Paletted, error) {
	if text == "" {
		return nil, errors.New("qrcode: empty text")
	}
	if size < 1 || size > MaxSize {
		return nil, fmt.Errorf("qrcode: size %d px, want 1 to %d", size, MaxSize)
	}
	code, err := qr.Encode(text, qr.M, qr.Auto)
	if err != nil {
		// The library's message quotes the whole text; report its length instead.
		return nil, fmt.Errorf("qrcode: %d bytes of text do not fit in a QR code at error correction level M", len(text))
	}
	b := code.Bounds()
	modules := b.Dx()
	scale := size / (modules + 2*QuietZone)
	if scale < 1 {
		return nil, fmt.Errorf("qrcode: size %d px is too small for a %d-module symbol and its quiet zone (at least %d px)",
			size, modules, modules+2*QuietZone)
	}
	offset := (size - modules*scale) / 2
	img := image.NewPaletted(image.Rect(0, 0, size, size), palette)
	for my := 0; my < modules; my++ {
		for mx := 0; mx < modules; mx++ {
			if !dark(code.At(b.Min.X+mx, b.Min.Y+my)) {
				continue
			}
			for py := offset + my*scale; py < offset+(my+1)*scale; py++ {
				row := img.Pix[py*img.Stride:]
				for px := offset + mx*scale; px < offset+(mx+1)*scale; px++ {
					row[px] = 1
				}
			}
		}
	}
	return img, nil
}

func dark(c color.Color) bool {
	y := color.GrayModel.Convert(c).(color.Gray).Y
	return y < 0x80
}
