package sandboxapi

import (
	"net/http"
	"strconv"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// paymentRequest is a payer's payment: the charge by pixCode, txid or
// transactionId (or, for pix-in, the key), the amount, and the payer.
type paymentRequest struct {
	PixCode       *string            `json:"pixCode"`
	TxID          *string            `json:"txid"`
	TransactionID *string            `json:"transactionId"`
	Key           *string            `json:"key"`
	Amount        *strictjson.Number `json:"amount"`
	Payer         *struct {
		Name     *string `json:"name"`
		Document *string `json:"document"`
		ISPB     *string `json:"ispb"`
	} `json:"payer"`
}

type paymentResponse struct {
	EndToEndID    string     `json:"endToEndId"`
	TransactionID string     `json:"transactionId"`
	Amount        wire.Money `json:"amount"`
	FeeAmount     wire.Money `json:"feeAmount"`
	FinalAmount   wire.Money `json:"finalAmount"`
}

func (r paymentRequest) toDomain() pix.Payment {
	p := pix.Payment{PixCode: text(r.PixCode), TxID: text(r.TxID), TransactionID: text(r.TransactionID), Key: text(r.Key)}
	if r.Amount != nil {
		p.Amount = r.Amount.String()
	}
	if r.Payer != nil {
		p.PayerName, p.PayerDocument, p.PayerISPB = text(r.Payer.Name), text(r.Payer.Document), text(r.Payer.ISPB)
	}
	return p
}

func newPaymentResponse(res pix.PaymentResult) paymentResponse {
	return paymentResponse{EndToEndID: res.EndToEndID, TransactionID: strconv.FormatInt(res.TransactionID, 10), Amount: wire.Money(res.Amount),
		FeeAmount: wire.Money(res.Fee), FinalAmount: wire.Money(res.Amount - res.Fee)}
}

// handlePayment pays a charge as the payer's bank would.
func (cp *ControlPlane) handlePayment(r *http.Request) (any, error) {
	var req paymentRequest
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	res, err := cp.sb(r.Context()).Pay(r.Context(), req.toDomain())
	if err != nil {
		return nil, err
	}
	return newPaymentResponse(res), nil
}

// handlePixIn credits the sandbox account holding a key.
func (cp *ControlPlane) handlePixIn(r *http.Request) (any, error) {
	var req paymentRequest
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Key == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "key", Message: "is required: a key of a sandbox account"})
	}
	res, err := cp.sb(r.Context()).PixIn(r.Context(), req.toDomain())
	if err != nil {
		return nil, err
	}
	return newPaymentResponse(res), nil
}
