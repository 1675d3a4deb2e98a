// Package qrcode renders text, such as a PIX BR Code, as a QR code PNG image.
//
// Codes use error correction level M (about 15% of the symbol can be lost) and keep
// the 4-module quiet zone the QR standard requires around the symbol. The image is
// square, two-colour (black on white, 1-bit palette) and the symbol is drawn with a
// whole number of pixels per module, centred, so scanners see sharp edges; pixels
// left over by the rounding widen the quiet zone.
//
// The symbol itself is built by github.com/boombuler/barcode/qr. It was chosen
// because it has no dependencies of its own, is released with version tags and
// still maintained (v1.1.0, 2025), and only its small qr package and the two
// packages that one needs are compiled in. The other encoders available were older
// and untagged (github.com/skip2/go-qrcode, last changed 2020), last released in
// 2018 (rsc.io/qr), or not published on the module proxy
// (github.com/yeqown/go-qrcode/v2). Text is stored in byte mode as its UTF-8 bytes
// with no ECI header, which is what payer apps expect of a BR Code (ASCII only);
// all-digit or upper-case-alphanumeric text uses the denser numeric and
// alphanumeric modes.
package qrcode
