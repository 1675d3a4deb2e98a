package sandboxapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

type pixKeyDTO struct {
	Type string `json:"type"`
	Key  string `json:"key"`
}

type accountDTO struct {
	ID            int64       `json:"id"`
	Name          string      `json:"name"`
	Document      string      `json:"document"`
	Branch        string      `json:"branch"`
	AccountNumber string      `json:"accountNumber"`
	PixKeys       []pixKeyDTO `json:"pixKeys"`
	CreatedAt     string      `json:"createdAt"`
}

type createdAccountDTO struct {
	accountDTO
	ClientID     string     `json:"clientId"`
	ClientSecret string     `json:"clientSecret"`
	Certificate  string     `json:"certificate"`
	PrivateKey   string     `json:"privateKey"`
	Balance      wire.Money `json:"balance"`
}

func newAccountDTO(a pix.Account) accountDTO {
	keys := make([]pixKeyDTO, len(a.PixKeys))
	for i, k := range a.PixKeys {
		keys[i] = pixKeyDTO{Type: string(k.Type), Key: k.Key}
	}
	return accountDTO{ID: int64(a.ID), Name: a.Name, Document: a.Document, Branch: a.Branch,
		AccountNumber: a.AccountNumber, PixKeys: keys, CreatedAt: wire.Time(a.CreatedAt)}
}

func (cp *ControlPlane) handleAccountCreate(r *http.Request) (any, error) {
	var req struct {
		Name     *string            `json:"name"`
		Document *string            `json:"document"`
		Balance  *strictjson.Number `json:"balance"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	var in pix.NewAccount
	if req.Name != nil {
		in.Name = *req.Name
	}
	if req.Document != nil {
		in.Document = *req.Document
	}
	if req.Balance != nil {
		c, err := pix.ParseDecimal(req.Balance.String())
		if err != nil {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "balance", Message: "must be a non-negative amount in BRL with at most 2 decimals: " + err.Error()})
		}
		in.Balance = c
	}
	out, err := cp.sb(r.Context()).CreateAccount(r.Context(), in)
	if err != nil {
		return nil, err
	}
	return createdAccountDTO{
		accountDTO: newAccountDTO(out.Account), ClientID: out.ClientID, ClientSecret: out.ClientSecret,
		Certificate: string(out.Certificate.CertificatePEM), PrivateKey: string(out.Certificate.PrivateKeyPEM),
		Balance: wire.Money(out.Balance),
	}, nil
}

func (cp *ControlPlane) handleAccountGet(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	a, b, err := cp.sb(r.Context()).Account(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return struct {
		accountDTO
		Balance httpapi.StandardBalance `json:"balance"`
	}{newAccountDTO(a), httpapi.NewStandardBalance(b)}, nil
}

type accountOverviewDTO struct {
	accountDTO
	ClientIDs []string                `json:"clientIds"`
	Balance   httpapi.StandardBalance `json:"balance"`
}

// handleAccountList answers GET /_sandbox/accounts: every account with
// its balance and client ids, in id order.
func (cp *ControlPlane) handleAccountList(r *http.Request) (any, error) {
	accts, err := cp.sb(r.Context()).Accounts(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]accountOverviewDTO, len(accts))
	for i, a := range accts {
		ids := a.ClientIDs
		if ids == nil {
			ids = []string{}
		}
		out[i] = accountOverviewDTO{newAccountDTO(a.Account), ids, httpapi.NewStandardBalance(a.Balance)}
	}
	return struct {
		Accounts []accountOverviewDTO `json:"accounts"`
	}{out}, nil
}

// handleAccountToken answers POST /_sandbox/accounts/{id}/token: an
// access token for the account without its credentials (same body as POST
// /api/auth/token).
func (cp *ControlPlane) handleAccountToken(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	t, err := cp.sb(r.Context()).SandboxToken(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.NewTokenResponse(t), nil
}

type certificateDTO struct {
	Certificate string `json:"certificate"`
	PrivateKey  string `json:"privateKey"`
	Fingerprint string `json:"fingerprint"`
	NotBefore   string `json:"notBefore"`
	NotAfter    string `json:"notAfter"`
	Revoked     bool   `json:"revoked"`
}

func (cp *ControlPlane) handleCertificateCreate(r *http.Request) (any, error) {
	id, err := accountIDVar(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		NotBefore *string `json:"notBefore"`
		NotAfter  *string `json:"notAfter"`
		Revoked   *bool   `json:"revoked"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
			return nil, err
		}
	}
	var in pix.NewCertificate
	if req.NotBefore != nil {
		if in.NotBefore, err = parseTime(*req.NotBefore, "notBefore"); err != nil {
			return nil, err
		}
	}
	if req.NotAfter != nil {
		if in.NotAfter, err = parseTime(*req.NotAfter, "notAfter"); err != nil {
			return nil, err
		}
	}
	in.Revoked = req.Revoked != nil && *req.Revoked
	c, err := cp.sb(r.Context()).AddCertificate(r.Context(), id, in)
	if err != nil {
		return nil, err
	}
	reg := c.Registration
	return certificateDTO{Certificate: string(c.CertificatePEM), PrivateKey: string(c.PrivateKeyPEM), Fingerprint: reg.Fingerprint,
		NotBefore: wire.Time(reg.NotBefore), NotAfter: wire.Time(reg.NotAfter), Revoked: reg.Revoked}, nil
}
