package sandboxapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

type counterpartDTO struct {
	Name          string `json:"name"`
	Document      string `json:"document"`
	ISPB          string `json:"ispb"`
	BankName      string `json:"bankName"`
	BankCode      string `json:"bankCode"`
	Branch        string `json:"branch,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	AccountID     int64  `json:"accountId,omitempty"`
}

// transactionDTO is a transaction as the control plane shows it (polling until
// the transaction listings exist).
type transactionDTO struct {
	ID             int64          `json:"id"`
	TransactionID  string         `json:"transactionId"`
	AccountID      int64          `json:"accountId"`
	Kind           string         `json:"kind"`
	Status         string         `json:"status"`
	Type           string         `json:"type,omitempty"` // DICT transfers: PENDING, COMPLETED, ERROR
	Amount         wire.Money     `json:"amount"`
	Fee            wire.Money     `json:"fee"`
	ExternalID     string         `json:"externalId,omitempty"`
	IdempotencyKey string         `json:"idempotencyKey,omitempty"`
	EndToEndID     string         `json:"endToEndId,omitempty"`
	PixKey         string         `json:"pixKey,omitempty"`
	Description    string         `json:"description,omitempty"`
	Counterpart    counterpartDTO `json:"counterpart"`
	CreatedAt      string         `json:"createdAt"`
	ProcessedAt    string         `json:"processedAt,omitempty"`
	ErrorCode      string         `json:"errorCode,omitempty"`
	ErrorMessage   string         `json:"errorMessage,omitempty"`
	Scenario       string         `json:"scenario,omitempty"`
	RelatedID      int64          `json:"relatedId,omitempty"`
	TxID           string         `json:"txId,omitempty"`
}

func newTransactionDTO(t pix.Transaction) transactionDTO {
	d := transactionDTO{
		ID: t.ID, TransactionID: t.UUID, AccountID: int64(t.AccountID), Kind: string(t.Kind), Status: string(t.Status),
		Amount: wire.Money(t.Amount), Fee: wire.Money(t.Fee), ExternalID: t.ExternalID, IdempotencyKey: t.IdempotencyKey,
		EndToEndID: t.EndToEndID, PixKey: t.PixKey, Description: t.Description,
		Counterpart: counterpartDTO{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document), ISPB: t.Counterpart.ISPB,
			BankName: t.Counterpart.BankName, BankCode: t.Counterpart.BankCode, Branch: t.Counterpart.Branch,
			AccountNumber: t.Counterpart.AccountNumber, AccountID: int64(t.Counterpart.AccountID)},
		CreatedAt: wire.Time(t.CreatedAt), ErrorCode: string(t.ErrorCode), ErrorMessage: t.ErrorMessage,
		Scenario: t.Scenario, RelatedID: t.RelatedID, TxID: t.TxID,
	}
	if t.Kind == pix.TxTransfer {
		d.Type = t.Status.TransferType()
	}
	if !t.ProcessedAt.IsZero() {
		d.ProcessedAt = wire.Time(t.ProcessedAt)
	}
	return d
}

// chargeDTO is a cash-in charge's own state, shown with its transaction.
type chargeDTO struct {
	CorrelationID  string            `json:"correlationId"`
	TxID           string            `json:"txId"`
	PixCode        string            `json:"pixCode"`
	ExpirationDate string            `json:"expirationDate"`
	RefusedAt      string            `json:"refusedPaymentAt,omitempty"`
	AdditionalInfo map[string]string `json:"additionalInfo,omitempty"`
	Splits         int               `json:"splits"`
}

func (cp *ControlPlane) handleTransactionGet(r *http.Request) (any, error) {
	t, err := cp.sb(r.Context()).Transaction(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	if t.Kind != pix.TxCashIn {
		return newTransactionDTO(t), nil
	}
	ch, err := cp.sb(r.Context()).CashInCharge(r.Context(), t.ID)
	if err != nil {
		return nil, err
	}
	c := chargeDTO{CorrelationID: ch.CorrelationID, TxID: ch.TxID, PixCode: ch.PixCode, ExpirationDate: wire.Time(ch.ExpiresAt),
		AdditionalInfo: ch.AdditionalInfo, Splits: len(ch.Splits)}
	if !ch.RefusedAt.IsZero() {
		c.RefusedAt = wire.Time(ch.RefusedAt)
	}
	return struct {
		transactionDTO
		Charge chargeDTO `json:"charge"`
	}{newTransactionDTO(t), c}, nil
}

func (cp *ControlPlane) handleTransactionSettle(r *http.Request) (any, error) {
	t, err := cp.sb(r.Context()).SettleTransaction(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return newTransactionDTO(t), nil
}

func (cp *ControlPlane) handleTransactionFail(r *http.Request) (any, error) {
	var req struct {
		ErrorCode *string `json:"errorCode"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.ErrorCode == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "errorCode", Message: "is required: one of the spec's webhook errorCodes"})
	}
	t, err := cp.sb(r.Context()).FailTransaction(r.Context(), mux.Vars(r)["id"], pix.Code(*req.ErrorCode))
	if err != nil {
		return nil, err
	}
	return newTransactionDTO(t), nil
}
