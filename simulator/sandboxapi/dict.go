package sandboxapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

type dictEntryDTO struct {
	Key           string `json:"key"`
	Type          string `json:"type"`
	Name          string `json:"name"`
	Document      string `json:"document"`
	ISPB          string `json:"ispb"`
	BankName      string `json:"bankName"`
	BankCode      string `json:"bankCode"`
	Branch        string `json:"branch"`
	AccountNumber string `json:"accountNumber"`
	AccountType   string `json:"accountType"`
	Scenario      string `json:"scenario,omitempty"`
	AccountID     int64  `json:"accountId,omitempty"`
}

func newDictEntryDTO(e pix.DictEntry) dictEntryDTO {
	return dictEntryDTO{Key: e.Key, Type: string(e.Type), Name: e.Name, Document: e.Document, ISPB: e.ISPB, BankName: e.BankName,
		BankCode: e.BankCode, Branch: e.Branch, AccountNumber: e.AccountNumber, AccountType: e.AccountType,
		Scenario: e.Scenario, AccountID: int64(e.AccountID)}
}

func (cp *ControlPlane) handleDictCreate(r *http.Request) (any, error) {
	var req struct {
		Key, Type, Name, Document, ISPB, Branch, AccountNumber, AccountType, Scenario *string
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	e, err := cp.sb(r.Context()).RegisterDictKey(r.Context(), pix.DictEntry{Key: text(req.Key), Type: pix.KeyType(text(req.Type)), Name: text(req.Name),
		Document: text(req.Document), ISPB: text(req.ISPB), Branch: text(req.Branch), AccountNumber: text(req.AccountNumber),
		AccountType: text(req.AccountType), Scenario: text(req.Scenario)})
	if err != nil {
		return nil, err
	}
	return newDictEntryDTO(e), nil
}

func (cp *ControlPlane) handleDictGet(r *http.Request) (any, error) {
	e, err := cp.sb(r.Context()).DictKey(r.Context(), mux.Vars(r)["key"])
	if err != nil {
		return nil, err
	}
	return newDictEntryDTO(e), nil
}
