package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Control plane for MED: the payer's bank opens a MED; the steps can be forced.
func (s *Server) sandboxMEDRoutes() []*Route {
	return []*Route{
		{Name: "sandbox.med.create", Method: http.MethodPost, Path: "/_sandbox/med", Success: http.StatusCreated, Handle: s.handleSandboxMEDCreate},
		{Name: "sandbox.med.get", Method: http.MethodGet, Path: "/_sandbox/med/{id}", Success: http.StatusOK, Handle: s.handleSandboxMEDGet},
		{Name: "sandbox.med.receive", Method: http.MethodPost, Path: "/_sandbox/med/{id}/receive", Success: http.StatusOK, Handle: s.medAction(s.sandbox.ReceiveMED)},
		{Name: "sandbox.med.analyze", Method: http.MethodPost, Path: "/_sandbox/med/{id}/analyze", Success: http.StatusOK, Handle: s.handleSandboxMEDAnalyze},
		{Name: "sandbox.med.cancel", Method: http.MethodPost, Path: "/_sandbox/med/{id}/cancel", Success: http.StatusOK, Handle: s.medAction(s.sandbox.CancelMED)},
		{Name: "sandbox.med.refund", Method: http.MethodPost, Path: "/_sandbox/med/{id}/refund", Success: http.StatusOK, Handle: s.medAction(s.sandbox.RefundMED)},
	}
}

// sandboxMEDDTO is the MED resource plus what the control plane also shows.
type sandboxMEDDTO struct {
	wire.MED
	AccountID       int64     `json:"accountId"`
	ContestedAmount brlNumber `json:"contestedAmount"`
	BlockedAmount   brlNumber `json:"blockedAmount"`
	RefundID        string    `json:"refundId,omitempty"`
	Scenario        string    `json:"scenario,omitempty"`
}

func newSandboxMEDDTO(m pix.MED) sandboxMEDDTO {
	return sandboxMEDDTO{MED: wire.NewMED(m), AccountID: int64(m.AccountID), ContestedAmount: brlNumber(m.ContestedAmount),
		BlockedAmount: brlNumber(m.BlockedAmount), RefundID: m.RefundID, Scenario: m.Scenario}
}

func medIDVar(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive MED id"})
	}
	return n, nil
}

func (s *Server) handleSandboxMEDCreate(r *http.Request) (any, error) {
	var req struct {
		AccountID      *int64  `json:"accountId"`
		EndToEndID     *string `json:"endToEndId"`
		Cause          *string `json:"cause"`
		Description    *string `json:"description"`
		Amount         *Number `json:"amount"`
		RequestingBank *struct {
			ISPB *string `json:"ispb"`
			Name *string `json:"name"`
		} `json:"requestingBank"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	v := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	var vs []pix.Violation
	if req.AccountID == nil {
		vs = append(vs, pix.Violation{Field: "accountId", Message: "is required"})
	}
	if req.EndToEndID == nil {
		vs = append(vs, pix.Violation{Field: "endToEndId", Message: "is required: the end-to-end id of the contested PIX"})
	}
	if len(vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	in := pix.MEDOpen{AccountID: pix.AccountID(*req.AccountID), EndToEndID: *req.EndToEndID, Cause: v(req.Cause), Description: v(req.Description)}
	if in.Cause == "" {
		in.Cause = "UNAUTHORIZED_TRANSACTION"
	}
	if req.Amount != nil {
		in.Amount = req.Amount.String()
	}
	if b := req.RequestingBank; b != nil {
		in.RequestingBank = pix.BankRef{ISPB: v(b.ISPB), Name: v(b.Name)}
	}
	m, err := s.sandbox.OpenMED(r.Context(), in)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}

func (s *Server) handleSandboxMEDGet(r *http.Request) (any, error) {
	id, err := medIDVar(r)
	if err != nil {
		return nil, err
	}
	m, err := s.sandbox.GetMED(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}

func (s *Server) medAction(step func(ctx context.Context, id int64) (pix.MED, error)) HandlerFunc {
	return func(r *http.Request) (any, error) {
		id, err := medIDVar(r)
		if err != nil {
			return nil, err
		}
		m, err := step(r.Context(), id)
		if err != nil {
			return nil, err
		}
		return newSandboxMEDDTO(m), nil
	}
}

func (s *Server) handleSandboxMEDAnalyze(r *http.Request) (any, error) {
	id, err := medIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		Result  *string `json:"result"`
		Details *string `json:"details"`
	}
	if err := decodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	result, details := pix.MEDResultApproved, ""
	if req.Result != nil {
		result = *req.Result
	}
	if req.Details != nil {
		details = *req.Details
	}
	m, err := s.sandbox.AnalyzeMED(r.Context(), id, result, details)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}
