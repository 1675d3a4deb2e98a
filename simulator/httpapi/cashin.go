package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/qrcode"
)

// cashInRequest is the body of POST /api/pix/cash-in.
type cashInRequest struct {
	Transaction *struct {
		Value          *strictjson.Number `json:"value"`
		Description    *string            `json:"description"`
		ExternalID     *string            `json:"externalId"`
		ExpirationTime *strictjson.Number `json:"expirationTime"`
		GenerateQrCode *bool              `json:"generateQrCode"`
	} `json:"transaction"`
	Payer *struct {
		FullName *string `json:"fullName"`
		Document *string `json:"document"`
	} `json:"payer"`
	AdditionalInfo map[string]string `json:"additionalInfo"`
	Splits         []struct {
		PixKey     *string            `json:"pixKey"`
		PixKeyType *string            `json:"pixKeyType"`
		Name       *string            `json:"name"`
		Document   *string            `json:"document"`
		Type       *string            `json:"type"`
		Value      *strictjson.Number `json:"value"`
		Immediate  *bool              `json:"immediate"`
	} `json:"splits"`
}

// cashInResponse is spec "Resources > Cash-in charge (response)".
type cashInResponse struct {
	TransactionID  string `json:"transactionId"`
	CorrelationID  string `json:"correlationId"`
	ExternalID     string `json:"externalId"`
	Status         string `json:"status"`
	PixCode        string `json:"pixCode"`
	GenerateTime   string `json:"generateTime"`
	ExpirationDate string `json:"expirationDate"`
	QrCodeImage    string `json:"qrCodeImage,omitempty"`
}

func (r cashInRequest) toDomain() pix.CashInRequest {
	in := pix.CashInRequest{AdditionalInfo: r.AdditionalInfo}
	req := func(p *string, field string) string {
		if p == nil {
			in.Missing = append(in.Missing, field)
			return ""
		}
		return *p
	}
	if t := r.Transaction; t == nil {
		in.Missing = append(in.Missing, "transaction")
	} else {
		if t.Value == nil {
			in.Missing = append(in.Missing, "transaction.value")
		} else {
			in.Value = t.Value.String()
		}
		in.Description = req(t.Description, "transaction.description")
		in.ExternalID = req(t.ExternalID, "transaction.externalId")
		if t.ExpirationTime != nil {
			in.ExpirationTime = t.ExpirationTime.String()
		}
		in.GenerateQrCode = t.GenerateQrCode != nil && *t.GenerateQrCode
	}
	if p := r.Payer; p == nil {
		in.Missing = append(in.Missing, "payer")
	} else {
		in.PayerName = req(p.FullName, "payer.fullName")
		in.PayerDocument = req(p.Document, "payer.document")
	}
	for _, sp := range r.Splits {
		var out pix.SplitRequest
		sreq := func(p *string, field string) string {
			if p == nil {
				out.Missing = append(out.Missing, field)
				return ""
			}
			return *p
		}
		out.PixKey, out.PixKeyType, out.Name = sreq(sp.PixKey, "pixKey"), sreq(sp.PixKeyType, "pixKeyType"), sreq(sp.Name, "name")
		out.Document, out.Type = sreq(sp.Document, "document"), sreq(sp.Type, "type")
		if sp.Value == nil {
			out.Missing = append(out.Missing, "value")
		} else {
			out.Value = sp.Value.String()
		}
		out.Immediate = sp.Immediate != nil && *sp.Immediate
		in.Splits = append(in.Splits, out)
	}
	return in
}

// handleCashInCreate handles "POST /api/pix/cash-in".
func (s *Server) handleCashInCreate(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpCashIn)
	if err != nil {
		return nil, err
	}
	var req cashInRequest
	if err := decodeValidated(r, &req, pix.CodeHTTPError, func() error { _, err := req.toDomain().Validate(0); return err }); err != nil {
		return nil, err
	}
	t, ch, err := s.svcOf(r).CreateCashIn(r.Context(), accountOf(r), req.toDomain(), sc)
	if err != nil {
		return nil, err
	}
	out := cashInResponse{TransactionID: itoa(t.ID), CorrelationID: ch.CorrelationID, ExternalID: t.ExternalID,
		Status: string(t.Status), PixCode: ch.PixCode, GenerateTime: formatTime(t.CreatedAt), ExpirationDate: formatTime(ch.ExpiresAt)}
	if ch.GenerateQrCode {
		if out.QrCodeImage, err = qrcode.Base64PNG(ch.PixCode); err != nil {
			return nil, err
		}
	}
	return out, nil
}
