package sandboxapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// sandboxMEDDTO is the MED resource plus what the control plane also shows.
type sandboxMEDDTO struct {
	wire.MED
	AccountID       int64      `json:"accountId"`
	ContestedAmount wire.Money `json:"contestedAmount"`
	BlockedAmount   wire.Money `json:"blockedAmount"`
	RefundID        string     `json:"refundId,omitempty"`
	Scenario        string     `json:"scenario,omitempty"`
}

func newSandboxMEDDTO(m pix.MED) sandboxMEDDTO {
	return sandboxMEDDTO{MED: wire.NewMED(m), AccountID: int64(m.AccountID), ContestedAmount: wire.Money(m.ContestedAmount),
		BlockedAmount: wire.Money(m.BlockedAmount), RefundID: m.RefundID, Scenario: m.Scenario}
}

func medIDVar(r *http.Request) (int64, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return 0, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive MED id"})
	}
	return n, nil
}

func (cp *ControlPlane) handleMEDCreate(r *http.Request) (any, error) {
	var req struct {
		AccountID      *int64             `json:"accountId"`
		EndToEndID     *string            `json:"endToEndId"`
		Cause          *string            `json:"cause"`
		Description    *string            `json:"description"`
		Amount         *strictjson.Number `json:"amount"`
		RequestingBank *struct {
			ISPB *string `json:"ispb"`
			Name *string `json:"name"`
		} `json:"requestingBank"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
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
	in := pix.MEDOpen{AccountID: pix.AccountID(*req.AccountID), EndToEndID: *req.EndToEndID, Cause: text(req.Cause), Description: text(req.Description)}
	if in.Cause == "" {
		in.Cause = "UNAUTHORIZED_TRANSACTION"
	}
	if req.Amount != nil {
		in.Amount = req.Amount.String()
	}
	if b := req.RequestingBank; b != nil {
		in.RequestingBank = pix.BankRef{ISPB: text(b.ISPB), Name: text(b.Name)}
	}
	m, err := cp.sb(r.Context()).OpenMED(r.Context(), in)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}

func (cp *ControlPlane) handleMEDGet(r *http.Request) (any, error) {
	id, err := medIDVar(r)
	if err != nil {
		return nil, err
	}
	m, err := cp.sb(r.Context()).GetMED(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}

func (cp *ControlPlane) medAction(step func(sb Sandbox, ctx context.Context, id int64) (pix.MED, error)) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		id, err := medIDVar(r)
		if err != nil {
			return nil, err
		}
		m, err := step(cp.sb(r.Context()), r.Context(), id)
		if err != nil {
			return nil, err
		}
		return newSandboxMEDDTO(m), nil
	}
}

func (cp *ControlPlane) handleMEDAnalyze(r *http.Request) (any, error) {
	id, err := medIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		Result  *string `json:"result"`
		Details *string `json:"details"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	result, details := pix.MEDResultApproved, ""
	if req.Result != nil {
		result = *req.Result
	}
	if req.Details != nil {
		details = *req.Details
	}
	m, err := cp.sb(r.Context()).AnalyzeMED(r.Context(), id, result, details)
	if err != nil {
		return nil, err
	}
	return newSandboxMEDDTO(m), nil
}
