package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// refundBody is the body of PUT /pix/{e2eid}/devolucao/{id}.
type refundBody struct {
	Valor     *string `json:"valor"`
	Natureza  *string `json:"natureza"`
	Descricao *string `json:"descricao"`
}

// validate checks the body of refund id (spec "PUT /pix/{e2eid}/devolucao/{id}").
func (b refundBody) validate(id string) (pix.RefundRequest, error) {
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	amount, nature, err := pix.ValidateRefundBody(deref(b.Valor), b.Valor != nil, deref(b.Natureza), deref(b.Descricao))
	if err != nil {
		return pix.RefundRequest{}, err
	}
	return pix.RefundRequest{ID: id, Amount: amount, Nature: nature, Description: deref(b.Descricao)}, nil
}

// refundResponse is spec "Resources > Refund (devolucao)"; horario.liquidacao
// follows the Central Bank reference once settled.
type refundResponse struct {
	ID        string        `json:"id"`
	RtrID     string        `json:"rtrId"`
	Valor     string        `json:"valor"`
	Natureza  string        `json:"natureza"`
	Descricao string        `json:"descricao,omitempty"`
	Horario   refundHorario `json:"horario"`
	Status    string        `json:"status"`
	Motivo    string        `json:"motivo,omitempty"`
}

type refundHorario struct {
	Solicitacao string `json:"solicitacao"`
	Liquidacao  string `json:"liquidacao,omitempty"`
}

func newRefundResponse(r pix.Refund) refundResponse {
	out := refundResponse{ID: r.ID, RtrID: r.RtrID, Valor: r.Amount.Decimal2(), Natureza: string(r.Nature), Descricao: r.Description,
		Horario: refundHorario{Solicitacao: formatTime(r.RequestedAt)}, Status: string(r.Status), Motivo: r.Motivo}
	if r.Status == pix.RefundStatusDevolvido {
		out.Horario.Liquidacao = formatTime(r.SettledAt)
	}
	return out
}

// refundPath validates the path of the refund routes: e2eid exactly 32
// alphanumerics, id 1 to 35 (spec; 400 otherwise, not 404).
func refundPath(r *http.Request) (e2e, id string, err error) {
	v := mux.Vars(r)
	var vs []pix.Violation
	if !pix.ValidE2EPath(v["e2eid"]) {
		vs = append(vs, pix.Violation{Field: "e2eid", Message: "must be exactly 32 alphanumeric characters"})
	}
	if !pix.ValidRefundID(v["id"]) {
		vs = append(vs, pix.Violation{Field: "id", Message: "must be 1 to 35 characters of [a-zA-Z0-9]"})
	}
	if len(vs) > 0 {
		return "", "", pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return v["e2eid"], v["id"], nil
}

// handleRefundPut handles "PUT /pix/{e2eid}/devolucao/{id}". The same id again
// answers the same refund (the PUT is idempotent).
func (s *Server) handleRefundPut(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpRefund)
	if err != nil {
		return nil, err
	}
	e2e, id, err := refundPath(r)
	if err != nil {
		return nil, err
	}
	var body refundBody
	if err := decodeValidated(r, &body, pix.CodeInvalidRequest, func() error { _, err := body.validate(id); return err }); err != nil {
		return nil, err
	}
	req, err := body.validate(id)
	if err != nil {
		return nil, err
	}
	ref, _, err := s.svcOf(r).CreateRefund(r.Context(), accountOf(r), pix.RefundOriginal{EndToEndID: e2e}, req, sc)
	if err != nil {
		return nil, err
	}
	return newRefundResponse(ref), nil
}

// handleRefundGet handles "GET /pix/{e2eid}/devolucao/{id}" (Central Bank reference).
func (s *Server) handleRefundGet(r *http.Request) (any, error) {
	e2e, id, err := refundPath(r)
	if err != nil {
		return nil, err
	}
	ref, err := s.svcOf(r).RefundOf(r.Context(), accountOf(r), e2e, id)
	if err != nil {
		return nil, err
	}
	return newRefundResponse(ref), nil
}

// refundInBody is the body of POST /api/pix/refund-in/{id}.
type refundInBody struct {
	RefundValue *strictjson.Number `json:"refundValue"`
	Reason      *string            `json:"reason"`
	ExternalID  *string            `json:"externalId"`
}

// validate checks the body of a refund-in (spec "POST /api/pix/refund-in/{id}").
func (body refundInBody) validate() (pix.RefundRequest, error) {
	var vs []pix.Violation
	var amount pix.Cents
	if body.RefundValue == nil {
		vs = append(vs, pix.Violation{Field: "refundValue", Message: "is required"})
	} else if v, err := pix.ParseDecimal(body.RefundValue.String()); err != nil || v < 1 {
		vs = append(vs, pix.Violation{Field: "refundValue", Message: "must be at least 0.01 with at most 2 decimals"})
	} else {
		amount = v
	}
	req := pix.RefundRequest{Amount: amount, Nature: pix.NatureOriginal}
	if body.Reason != nil {
		if len([]rune(*body.Reason)) > 140 {
			vs = append(vs, pix.Violation{Field: "reason", Message: "must be at most 140 characters"})
		}
		req.Reason, req.Description = *body.Reason, *body.Reason
	}
	if body.ExternalID != nil {
		if !pix.ValidRefundID(*body.ExternalID) {
			vs = append(vs, pix.Violation{Field: "externalId", Message: "must be 1 to 35 characters of [a-zA-Z0-9] (it is the refund id of PUT /pix/{e2eid}/devolucao/{id})"})
		}
		req.ID = *body.ExternalID
	}
	if len(vs) > 0 {
		return req, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return req, nil
}

// refundInResponse is spec "Resources > Refund-in (response)".
type refundInResponse struct {
	TransactionID         string    `json:"transactionId"`
	ExternalID            string    `json:"externalId"`
	Status                string    `json:"status"`
	RefundValue           brlNumber `json:"refundValue"`
	ProviderTransactionID string    `json:"providerTransactionId"`
	GenerateTime          string    `json:"generateTime"`
}

// handleRefundInCreate handles "POST /api/pix/refund-in/{id}": the same refund
// model as the Central Bank route; externalId is that route's id (Gap G-44).
func (s *Server) handleRefundInCreate(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpRefund)
	if err != nil {
		return nil, err
	}
	var body refundInBody
	if err := decodeValidated(r, &body, pix.CodeInvalidRequest, func() error { _, err := body.validate(); return err }); err != nil {
		return nil, err
	}
	req, err := body.validate()
	if err != nil {
		return nil, err
	}
	ref, _, err := s.svcOf(r).CreateRefund(r.Context(), accountOf(r), pix.RefundOriginal{TransactionID: mux.Vars(r)["id"]}, req, sc)
	if err != nil {
		return nil, err
	}
	return refundInResponse{TransactionID: itoa(ref.TransactionID), ExternalID: ref.ID, Status: string(ref.Status.TxStatus()),
		RefundValue: brlNumber(ref.Amount), ProviderTransactionID: ref.RtrID, GenerateTime: formatTime(ref.RequestedAt)}, nil
}
