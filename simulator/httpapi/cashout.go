package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// cashOutRequest is the body of POST /api/pix/cash-out. Pointers tell missing
// fields from empty ones.
type cashOutRequest struct {
	Value       *strictjson.Number `json:"value"`
	ExternalID  *string            `json:"externalId"`
	Description *string            `json:"description"`
	Details     *cashOutDetails    `json:"details"`
}

type cashOutDetails struct {
	Key      *string `json:"key"`
	KeyType  *string `json:"keyType"`
	Name     *string `json:"name"`
	Document *string `json:"document"`
}

// cashOutResponse is spec "Resources > Cash-out transaction (response)".
type cashOutResponse struct {
	TransactionID string `json:"transactionId"`
	ExternalID    string `json:"externalId"`
	Status        string `json:"status"`
	GenerateTime  string `json:"generateTime"`
}

func (r cashOutRequest) toDomain() pix.CashOutRequest {
	var in pix.CashOutRequest
	var missing []string
	str := func(p *string, field string, required bool) string {
		if p == nil {
			if required {
				missing = append(missing, field)
			}
			return ""
		}
		return *p
	}
	if r.Value == nil {
		missing = append(missing, "value")
	} else {
		in.Value = r.Value.String()
	}
	in.ExternalID = str(r.ExternalID, "externalId", true)
	in.Description = str(r.Description, "description", false)
	if r.Details == nil {
		missing = append(missing, "details")
	} else {
		in.Key = str(r.Details.Key, "details.key", true)
		in.KeyType = str(r.Details.KeyType, "details.keyType", true)
		in.Name = str(r.Details.Name, "details.name", true)
		in.Document = str(r.Details.Document, "details.document", true)
	}
	in.Missing = missing
	return in
}

// handleCashOutCreate handles "POST /api/pix/cash-out".
func (s *Server) handleCashOutCreate(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpCashOut)
	if err != nil {
		return nil, err
	}
	var req cashOutRequest
	if err := decodeValidated(r, &req, pix.CodeHTTPError, func() error { _, err := req.toDomain().Validate(); return err }); err != nil {
		return nil, err
	}
	t, err := s.svcOf(r).CreateCashOut(r.Context(), accountOf(r), req.toDomain(), sc)
	if err != nil {
		return nil, err
	}
	return cashOutResponse{TransactionID: t.UUID, ExternalID: t.ExternalID, Status: string(t.Status), GenerateTime: formatTime(t.CreatedAt)}, nil
}
