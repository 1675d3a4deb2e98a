package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// transferRequest is the body of POST /dict/pix.
type transferRequest struct {
	PixKey           *string            `json:"pixKey"`
	CreditorDocument *string            `json:"creditorDocument"`
	Priority         *string            `json:"priority"`
	Description      *string            `json:"description"`
	Expiration       *strictjson.Number `json:"expiration"`
	Payment          *transferPayment   `json:"payment"`
	IspbDeny         []string           `json:"ispbDeny"`
	TxID             *string            `json:"txId"`
}

type transferPayment struct {
	Currency *string            `json:"currency"`
	Amount   *strictjson.Number `json:"amount"`
}

// transferResponse is spec "Resources > PIX transfer (DICT route) response".
type transferResponse struct {
	EndToEndID string                  `json:"endToEndId"`
	EventDate  string                  `json:"eventDate"`
	ID         int64                   `json:"id"`
	Payment    transferResponsePayment `json:"payment"`
	Type       string                  `json:"type"`
}

type transferResponsePayment struct {
	Amount   brlNumber `json:"amount"`
	Currency string    `json:"currency"`
}

func (r transferRequest) toDomain(idempotencyKey string) pix.TransferRequest {
	in := pix.TransferRequest{IdempotencyKey: idempotencyKey, IspbDeny: r.IspbDeny}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if r.PixKey == nil {
		in.Missing = append(in.Missing, "pixKey")
	}
	in.PixKey, in.CreditorDocument, in.Priority, in.Description = deref(r.PixKey), deref(r.CreditorDocument), deref(r.Priority), deref(r.Description)
	if r.Expiration != nil {
		in.Expiration = r.Expiration.String()
	}
	in.TxID = deref(r.TxID)
	switch {
	case r.Payment == nil:
		in.Missing = append(in.Missing, "payment")
	default:
		if r.Payment.Amount == nil {
			in.Missing = append(in.Missing, "payment.amount")
		} else {
			in.Amount = r.Payment.Amount.String()
		}
		if r.Payment.Currency == nil {
			in.Missing = append(in.Missing, "payment.currency")
		} else {
			in.Currency = *r.Payment.Currency
		}
	}
	return in
}

// handleTransferCreate handles "POST /dict/pix". The response is the transfer as
// accepted (type PENDING; endToEndId a provisional identifier, Gap G-29); a
// repeated request with the same x-idempotency-key gets that same response, with
// the header Idempotent-Replayed: true.
func (s *Server) handleTransferCreate(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpTransfer)
	if err != nil {
		return nil, err
	}
	key := r.Header.Get("x-idempotency-key")
	if !pix.IsUUIDv4(key) { // rule 1, before the body: without a key nothing else matters
		return nil, pix.TransferRequest{IdempotencyKey: key}.ValidateKey()
	}
	var req transferRequest
	if err := decodeValidated(r, &req, pix.CodeInvalidRequest, func() error { _, err := req.toDomain(key).Validate(); return err }); err != nil {
		return nil, err
	}
	t, replayed, err := s.svcOf(r).CreateTransfer(r.Context(), accountOf(r), req.toDomain(key), sc)
	if err != nil {
		return nil, err
	}
	if replayed {
		setHeader(r, "Idempotent-Replayed", "true")
	}
	return transferResponse{
		EndToEndID: provisionalEndToEndID(t), EventDate: formatTime(t.CreatedAt), ID: t.ID,
		Payment: transferResponsePayment{Amount: brlNumber(t.Amount), Currency: "BRL"}, Type: "PENDING",
	}, nil
}

// provisionalEndToEndID identifies a transfer before settlement: the spec says the
// real end-to-end id is delivered in the webhook at settlement, so the response
// carries the transaction's UUID without hyphens (32 characters, never starting
// with E).
func provisionalEndToEndID(t pix.Transaction) string {
	b := make([]byte, 0, 32)
	for i := 0; i < len(t.UUID); i++ {
		if t.UUID[i] != '-' {
			b = append(b, t.UUID[i])
		}
	}
	return string(b)
}
