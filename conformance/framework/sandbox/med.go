package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Control-plane routes of MED (the Special Refund Mechanism): the payer's bank
// opening a MED against a PIX an account received (POST /_sandbox/med), reading
// it (GET /_sandbox/med/{id}) and forcing its steps
// (POST /_sandbox/med/{id}/{action}).

// MED step actions of POST /_sandbox/med/{id}/{action}.
const (
	// MEDReceive acknowledges an OPEN MED: RECEIVED, the contested amount blocked.
	MEDReceive = "receive"
	// MEDAnalyze closes the analysis; its body is {"result":"APPROVED"|"REJECTED","details":…}.
	MEDAnalyze = "analyze"
	// MEDCancel withdraws a MED not yet analysed: CANCELLED, the block released.
	MEDCancel = "cancel"
	// MEDRefund refunds the payer of an approved MED now.
	MEDRefund = "refund"
)

// MEDBank is a participant named by a MED.
type MEDBank struct {
	// ISPB identifies the participant.
	ISPB string `json:"ispb"`
	// Name is its name.
	Name string `json:"name"`
}

// MEDOriginalTransaction is the MED's snapshot of the contested PIX.
type MEDOriginalTransaction struct {
	// Amount is the PIX's amount.
	Amount json.Number `json:"amount"`
	// Type is the listing type, e.g. PAYMENT.
	Type string `json:"type"`
	// TransactionType is the transaction type, e.g. PIX.
	TransactionType string `json:"transactionType"`
	// Name is the payer's name.
	Name string `json:"name"`
	// Document is the payer's document, masked.
	Document string `json:"document"`
	// DateTime is when the PIX was received.
	DateTime string `json:"dateTime"`
}

// MED is a MED as the control plane shows it: the fields of the specification's
// MED resource plus the sandbox's own (account, amounts, refund, scenario).
// Null fields of the resource read as empty strings.
type MED struct {
	// ID is the MED id.
	ID ID `json:"id"`
	// EndToEnd is the end-to-end id of the contested PIX.
	EndToEnd string `json:"endToEnd"`
	// Status is OPEN, RECEIVED, CANCELLED or ANALYZED.
	Status string `json:"status"`
	// Reason is REFUND_REQUEST or REFUND_CANCELLATION.
	Reason string `json:"reason"`
	// Cause is the cause code.
	Cause string `json:"cause"`
	// Description is the requesting bank's description.
	Description string `json:"description"`
	// AnalysisResult is APPROVED or REJECTED once analysed.
	AnalysisResult string `json:"analysisResult"`
	// AnalysisDetails is the analysis' rationale.
	AnalysisDetails string `json:"analysisDetails"`
	// RequestingBank is the bank that opened the MED.
	RequestingBank MEDBank `json:"requestingBank"`
	// ContestedBank is the account holder's institution.
	ContestedBank MEDBank `json:"contestedBank"`
	// OriginalTransaction is the snapshot of the contested PIX, when reconciled.
	OriginalTransaction *MEDOriginalTransaction `json:"originalTransaction"`
	// IsReconciled reports whether the MED names a PIX the account received.
	IsReconciled bool `json:"isReconciled"`
	// OriginalTransactionID is that PIX's transaction number, when reconciled.
	OriginalTransactionID ID `json:"originalTransactionId"`
	// CreatedAt is when the MED was opened.
	CreatedAt string `json:"createdAt"`
	// UpdatedAt is when it last changed.
	UpdatedAt string `json:"updatedAt"`
	// AccountID is the account the MED is against.
	AccountID ID `json:"accountId"`
	// ContestedAmount is the amount the requesting bank asks back.
	ContestedAmount json.Number `json:"contestedAmount"`
	// BlockedAmount is what the MED's block holds now.
	BlockedAmount json.Number `json:"blockedAmount"`
	// RefundID is the id of the MED's refund, once created (readable with
	// GET /pix/{e2eid}/devolucao/{id}).
	RefundID string `json:"refundId"`
	// Scenario is the scenario that opened the MED, if any.
	Scenario string `json:"scenario"`
}

// MEDRequest opens a MED (POST /_sandbox/med); empty fields let the sandbox
// choose.
type MEDRequest struct {
	// AccountID is the account whose received PIX is contested (a number).
	AccountID string
	// EndToEndID is the end-to-end id of the contested PIX.
	EndToEndID string
	// Cause is the cause code; empty means UNAUTHORIZED_TRANSACTION.
	Cause string
	// Description is free text of the requesting bank.
	Description string
	// Amount is the contested amount as decimal text with at most two places,
	// sent as a JSON number; empty contests the whole PIX.
	Amount string
	// RequestingBank is the bank opening the MED; nil lets the sandbox take the
	// payer's. It is required when the end-to-end id names no received PIX.
	RequestingBank *MEDBank
}

// OpenMED opens a MED as the payer's bank would through DICT
// (POST /_sandbox/med, expecting 201).
func (s *Client) OpenMED(ctx context.Context, req MEDRequest) (*MED, error) {
	if _, err := strconv.ParseInt(req.AccountID, 10, 64); err != nil {
		return nil, fmt.Errorf("OpenMED: account id %q is not a number", req.AccountID)
	}
	body := map[string]any{"accountId": json.Number(req.AccountID), "endToEndId": req.EndToEndID}
	if req.Cause != "" {
		body["cause"] = req.Cause
	}
	if req.Description != "" {
		body["description"] = req.Description
	}
	if req.Amount != "" {
		if _, err := apiclient.Cents(req.Amount); err != nil {
			return nil, fmt.Errorf("OpenMED: amount: %w", err)
		}
		body["amount"] = json.Number(req.Amount)
	}
	if b := req.RequestingBank; b != nil {
		bank := map[string]string{}
		if b.ISPB != "" {
			bank["ispb"] = b.ISPB
		}
		if b.Name != "" {
			bank["name"] = b.Name
		}
		body["requestingBank"] = bank
	}
	var m MED
	if err := s.call(ctx, http.MethodPost, "/_sandbox/med", body, http.StatusCreated, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// MED reads a MED (GET /_sandbox/med/{id}).
func (s *Client) MED(ctx context.Context, id string) (*MED, error) {
	var m MED
	if err := s.call(ctx, http.MethodGet, "/_sandbox/med/"+url.PathEscape(id), nil, http.StatusOK, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// MEDStep forces one step of a MED (POST /_sandbox/med/{id}/{action},
// expecting 200): MEDReceive, MEDAnalyze, MEDCancel or MEDRefund. body, unless
// nil, is the step's JSON body (MEDAnalyze takes result and details); nil sends
// {}. A step that does not apply to the MED's state is a *StatusError with 409.
func (s *Client) MEDStep(ctx context.Context, id, action string, body any) (*MED, error) {
	if action == "" || strings.ContainsAny(action, "/?#") {
		return nil, fmt.Errorf("MEDStep: action %q is not a path segment", action)
	}
	if body == nil {
		body = map[string]any{}
	}
	var m MED
	if err := s.call(ctx, http.MethodPost, "/_sandbox/med/"+url.PathEscape(id)+"/"+action, body, http.StatusOK, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
