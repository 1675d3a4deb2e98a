package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/qrcode"
)

// Control plane for PIX in: a payer paying charges, and PIX received by key.
func (s *Server) sandboxPixInRoutes() []*Route {
	return []*Route{
		{Name: "sandbox.payments.create", Method: http.MethodPost, Path: "/_sandbox/payments", Success: http.StatusCreated, Handle: s.handleSandboxPayment},
		{Name: "sandbox.pixin.create", Method: http.MethodPost, Path: "/_sandbox/pix-in", Success: http.StatusCreated, Handle: s.handleSandboxPixIn},
		{Name: "sandbox.qrcode.create", Method: http.MethodPost, Path: "/_sandbox/qrcode", Success: http.StatusOK, Handle: s.handleSandboxQRCode},
	}
}

// handleSandboxQRCode answers POST /_sandbox/qrcode {"pixCode"}: the QR code
// image (base64 PNG, as a cash-in charge's qrCodeImage) of a BR Code whose
// fields and CRC are valid, e.g. a cob's pixCopiaECola, which the Central
// Bank route returns without an image.
func (s *Server) handleSandboxQRCode(r *http.Request) (any, error) {
	var req struct {
		PixCode *string `json:"pixCode"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.PixCode == nil || *req.PixCode == "" {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "pixCode", Message: "is required: a BR Code (copia e cola)"})
	}
	if _, err := pix.ParseBRCode(*req.PixCode); err != nil {
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

// paymentRequest is a payer's payment: the charge by pixCode, txid or
// transactionId (or, for pix-in, the key), the amount, and the payer.
type paymentRequest struct {
	PixCode       *string `json:"pixCode"`
	TxID          *string `json:"txid"`
	TransactionID *string `json:"transactionId"`
	Key           *string `json:"key"`
	Amount        *Number `json:"amount"`
	Payer         *struct {
		Name     *string `json:"name"`
		Document *string `json:"document"`
		ISPB     *string `json:"ispb"`
	} `json:"payer"`
}

type paymentResponse struct {
	EndToEndID    string    `json:"endToEndId"`
	TransactionID string    `json:"transactionId"`
	Amount        brlNumber `json:"amount"`
	FeeAmount     brlNumber `json:"feeAmount"`
	FinalAmount   brlNumber `json:"finalAmount"`
}

func (r paymentRequest) toDomain() pix.Payment {
	v := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	p := pix.Payment{PixCode: v(r.PixCode), TxID: v(r.TxID), TransactionID: v(r.TransactionID), Key: v(r.Key)}
	if r.Amount != nil {
		p.Amount = r.Amount.String()
	}
	if r.Payer != nil {
		p.PayerName, p.PayerDocument, p.PayerISPB = v(r.Payer.Name), v(r.Payer.Document), v(r.Payer.ISPB)
	}
	return p
}

func newPaymentResponse(res pix.PaymentResult) paymentResponse {
	return paymentResponse{EndToEndID: res.EndToEndID, TransactionID: itoa(res.TransactionID), Amount: brlNumber(res.Amount),
		FeeAmount: brlNumber(res.Fee), FinalAmount: brlNumber(res.Amount - res.Fee)}
}

// handleSandboxPayment pays a charge as the payer's bank would.
func (s *Server) handleSandboxPayment(r *http.Request) (any, error) {
	var req paymentRequest
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	res, err := s.sandbox.Pay(r.Context(), req.toDomain())
	if err != nil {
		return nil, err
	}
	return newPaymentResponse(res), nil
}

// handleSandboxPixIn credits the sandbox account holding a key.
func (s *Server) handleSandboxPixIn(r *http.Request) (any, error) {
	var req paymentRequest
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Key == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "key", Message: "is required: a key of a sandbox account"})
	}
	res, err := s.sandbox.PixIn(r.Context(), req.toDomain())
	if err != nil {
		return nil, err
	}
	return newPaymentResponse(res), nil
}
