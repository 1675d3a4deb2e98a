package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/brcode"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/qrcode"
)

// handleQRCode answers POST /_sandbox/qrcode {"pixCode"}: the QR code
// image (base64 PNG, as a cash-in charge's qrCodeImage) of a BR Code whose
// fields and CRC are valid, e.g. a cob's pixCopiaECola, which the Central
// Bank route returns without an image.
func (cp *ControlPlane) handleQRCode(r *http.Request) (any, error) {
	var req struct {
		PixCode *string `json:"pixCode"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.PixCode == nil || *req.PixCode == "" {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixCode", Message: "is required: a BR Code (copia e cola)"})
	}
	if _, err := brcode.Parse(*req.PixCode); err != nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixCode", Message: "is not a valid BR Code: " + err.Error()})
	}
	img, err := qrcode.Base64PNG(*req.PixCode)
	if err != nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixCode", Message: "cannot be drawn as a QR code: " + err.Error()})
	}
	return struct {
		QrCodeImage string `json:"qrCodeImage"`
	}{img}, nil
}
