package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
)

// Control-plane routes of PIX in: a payer paying charges
// (POST /_sandbox/payments) and PIX received by key (POST /_sandbox/pix-in).

// Payer is the person paying, as the control plane takes it; empty fields let
// the sandbox choose.
type Payer struct {
	// Name is the payer's name.
	Name string
	// Document is the payer's CPF or CNPJ digits.
	Document string
	// ISPB is the payer's institution, a participant outside the sandbox.
	ISPB string
}

// PaymentRequest is a payment as the payer's bank would send it. A charge is
// named by one of PixCode, TxID or TransactionID (POST /_sandbox/payments);
// POST /_sandbox/pix-in names Key instead.
type PaymentRequest struct {
	// PixCode is the charge's BR Code.
	PixCode string
	// TxID is a cob's txid (or a cash-in charge's).
	TxID string
	// TransactionID is a cash-in charge's transactionId; sent as a JSON string.
	TransactionID string
	// Key is the PIX key credited by POST /_sandbox/pix-in.
	Key string
	// Amount is the amount paid as decimal text with at most two places, sent
	// as a JSON number; empty pays the charge's amount.
	Amount string
	// Payer is the payer; nil lets the sandbox choose.
	Payer *Payer
}

// body renders the request's JSON body, only the fields that are set.
func (p PaymentRequest) body() (map[string]any, error) {
	m := map[string]any{}
	for name, v := range map[string]string{"pixCode": p.PixCode, "txid": p.TxID, "transactionId": p.TransactionID, "key": p.Key} {
		if v != "" {
			m[name] = v
		}
	}
	if p.Amount != "" {
		if _, err := apiclient.Cents(p.Amount); err != nil {
			return nil, fmt.Errorf("amount: %w", err)
		}
		m["amount"] = json.Number(p.Amount)
	}
	if p.Payer != nil {
		payer := map[string]string{}
		for name, v := range map[string]string{"name": p.Payer.Name, "document": p.Payer.Document, "ispb": p.Payer.ISPB} {
			if v != "" {
				payer[name] = v
			}
		}
		m["payer"] = payer
	}
	return m, nil
}

// PaymentResult is the control plane's answer to a payment: the PIX received.
type PaymentResult struct {
	// EndToEndID is the payment's end-to-end id.
	EndToEndID string `json:"endToEndId"`
	// TransactionID is the receiving transaction's number.
	TransactionID ID `json:"transactionId"`
	// Amount is the amount paid.
	Amount json.Number `json:"amount"`
	// FeeAmount is the receiving account's cash-in fee.
	FeeAmount json.Number `json:"feeAmount"`
	// FinalAmount is what the receiving account was credited: amount − fee.
	FinalAmount json.Number `json:"finalAmount"`
}

// Pay pays a charge as the payer's bank would (POST /_sandbox/payments,
// expecting 201). A refused payment is a *StatusError carrying the answer
// (409 for a charge that accepts no payment, 422 for a wrong amount, 404 for
// an unknown charge); see ErrorStatus.
func (s *Client) Pay(ctx context.Context, p PaymentRequest) (*PaymentResult, error) {
	return s.payment(ctx, "/_sandbox/payments", p)
}

// PixIn credits the sandbox account holding p.Key with a PIX received by key
// (POST /_sandbox/pix-in, expecting 201; 404 for a key outside the sandbox).
func (s *Client) PixIn(ctx context.Context, p PaymentRequest) (*PaymentResult, error) {
	return s.payment(ctx, "/_sandbox/pix-in", p)
}

func (s *Client) payment(ctx context.Context, path string, p PaymentRequest) (*PaymentResult, error) {
	body, err := p.body()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out PaymentResult
	if err := s.call(ctx, http.MethodPost, path, body, http.StatusCreated, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ErrorStatus returns the HTTP status of a *StatusError in err's chain, or 0
// when there is none (a transport error, or no error).
func ErrorStatus(err error) int {
	var se *StatusError
	if errors.As(err, &se) && se.Response != nil {
		return se.Response.Status
	}
	return 0
}
