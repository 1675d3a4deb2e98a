package httpapi

import (
	"net/http"
	"sort"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// cobRequest is the body of PUT /cob/{txid}.
type cobRequest struct {
	Calendario *struct {
		Expiracao *strictjson.Number `json:"expiracao"`
	} `json:"calendario"`
	Devedor *struct {
		CPF  *string `json:"cpf"`
		CNPJ *string `json:"cnpj"`
		Nome *string `json:"nome"`
	} `json:"devedor"`
	Valor *struct {
		Original            *string            `json:"original"`
		ModalidadeAlteracao *strictjson.Number `json:"modalidadeAlteracao"`
	} `json:"valor"`
	Chave              *string         `json:"chave"`
	SolicitacaoPagador *string         `json:"solicitacaoPagador"`
	InfoAdicionais     []infoAdicional `json:"infoAdicionais"`
}

type infoAdicional struct {
	Nome  string `json:"nome"`
	Valor string `json:"valor"`
}

// cobResponse is spec "Resources > Immediate charge (cob)"; pix, pixCopiaECola
// and the paid payment follow the Central Bank reference (Gap G-35).
type cobResponse struct {
	Calendario         cobCalendario   `json:"calendario"`
	TxID               string          `json:"txid"`
	Revisao            int             `json:"revisao"`
	Loc                cobLoc          `json:"loc"`
	Location           string          `json:"location"`
	Status             string          `json:"status"`
	Devedor            *cobDevedor     `json:"devedor,omitempty"`
	Valor              cobValor        `json:"valor"`
	Chave              string          `json:"chave"`
	SolicitacaoPagador string          `json:"solicitacaoPagador,omitempty"`
	InfoAdicionais     []infoAdicional `json:"infoAdicionais,omitempty"`
	PixCopiaECola      string          `json:"pixCopiaECola"`
	Pix                []cobPix        `json:"pix,omitempty"`
}

type cobCalendario struct {
	Criacao   string `json:"criacao"`
	Expiracao int64  `json:"expiracao"`
}

type cobLoc struct {
	ID       int64  `json:"id"`
	Location string `json:"location"`
	TipoCob  string `json:"tipoCob"`
}

type cobDevedor struct {
	CPF  string `json:"cpf,omitempty"`
	CNPJ string `json:"cnpj,omitempty"`
	Nome string `json:"nome"`
}

type cobValor struct {
	Original            string `json:"original"`
	ModalidadeAlteracao int    `json:"modalidadeAlteracao"`
}

type cobPix struct {
	EndToEndID string `json:"endToEndId"`
	TxID       string `json:"txid"`
	Valor      string `json:"valor"`
	Horario    string `json:"horario"`
}

func newCobResponse(c pix.Cob) cobResponse {
	out := cobResponse{
		Calendario: cobCalendario{Criacao: formatTime(c.CreatedAt), Expiracao: int64(c.Expiration.Seconds())},
		TxID:       c.TxID, Revisao: c.Revision,
		Loc: cobLoc{ID: c.LocID, Location: c.PixCode, TipoCob: "cob"}, Location: c.PixCode,
		Status: string(c.Status), Valor: cobValor{Original: c.Amount.Decimal2(), ModalidadeAlteracao: c.ChangeMode},
		Chave: c.Key, SolicitacaoPagador: c.PayerRequest, PixCopiaECola: c.PixCode,
	}
	if c.DebtorName != "" {
		out.Devedor = &cobDevedor{CPF: c.DebtorCPF, CNPJ: c.DebtorCNPJ, Nome: c.DebtorName}
	}
	for _, it := range c.AdditionalInfo {
		out.InfoAdicionais = append(out.InfoAdicionais, infoAdicional{Nome: it.Name, Valor: it.Value})
	}
	if c.Status == pix.CobStatusConcluida {
		out.Pix = []cobPix{{EndToEndID: c.EndToEndID, TxID: c.TxID, Valor: c.PaidAmount.Decimal2(), Horario: formatTime(c.PaidAt)}}
	}
	return out
}

func (r cobRequest) toDomain(txid string) pix.CobRequest {
	in := pix.CobRequest{TxID: txid}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if r.Calendario == nil {
		in.Missing = append(in.Missing, "calendario")
	} else if r.Calendario.Expiracao != nil {
		in.Expiracao = r.Calendario.Expiracao.String()
	}
	if d := r.Devedor; d != nil {
		in.HasDevedor, in.DebtorCPF, in.DebtorCNPJ, in.DebtorName = true, deref(d.CPF), deref(d.CNPJ), deref(d.Nome)
	}
	switch {
	case r.Valor == nil:
		in.Missing = append(in.Missing, "valor")
	case r.Valor.Original == nil:
		in.Missing = append(in.Missing, "valor.original")
	default:
		in.Original = *r.Valor.Original
		if r.Valor.ModalidadeAlteracao != nil {
			in.ModalidadeAlteracao = r.Valor.ModalidadeAlteracao.String()
		}
	}
	in.Chave, in.SolicitacaoPagador = deref(r.Chave), deref(r.SolicitacaoPagador)
	for _, it := range r.InfoAdicionais {
		in.InfoAdicionais = append(in.InfoAdicionais, pix.InfoItem{Name: it.Nome, Value: it.Valor})
	}
	return in
}

// handleCobPut handles "PUT /cob/{txid}". The txid is validated here, not by a
// mux pattern, so a bad one is 400, not 404 (spec).
func (s *Server) handleCobPut(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpCob)
	if err != nil {
		return nil, err
	}
	txid := mux.Vars(r)["txid"]
	if !pix.ValidTxID(txid) {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "txid", Message: "must be 26 to 35 characters of [a-zA-Z0-9]"})
	}
	var req cobRequest
	if err := decodeValidated(r, &req, pix.CodeInvalidRequest, func() error { _, err := req.toDomain(txid).Validate(); return err }); err != nil {
		return nil, err
	}
	c, err := s.svcOf(r).CreateCob(r.Context(), accountOf(r), req.toDomain(txid), sc)
	if err != nil {
		return nil, err
	}
	return newCobResponse(c), nil
}

// handleCobGet handles "GET /cob/{txid}" (Central Bank reference).
func (s *Server) handleCobGet(r *http.Request) (any, error) {
	c, err := s.svcOf(r).Cob(r.Context(), accountOf(r), mux.Vars(r)["txid"])
	if err != nil {
		return nil, err
	}
	return newCobResponse(c), nil
}

// handleCobPatch handles "PATCH /cob/{txid}" with {"status":
// "REMOVIDA_PELO_USUARIO_RECEBEDOR"}, the removal of the Central Bank reference.
// Other revisions of a cob are not supported (400 naming the field; Gap G-35).
func (s *Server) handleCobPatch(r *http.Request) (any, error) {
	var req map[string]any
	if err := decodeJSON(r, &req, pix.CodeInvalidRequest); err != nil {
		return nil, err
	}
	var others []pix.Violation
	for k := range req {
		if k != "status" {
			others = append(others, pix.Violation{Field: strictjson.FieldName(k), Message: `cannot be revised here: PATCH /cob/{txid} accepts only {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"}`})
		}
	}
	if len(others) > 0 {
		sort.Slice(others, func(i, j int) bool { return others[i].Field < others[j].Field })
		return nil, pix.Invalid(pix.CodeInvalidRequest, others...)
	}
	if req["status"] != string(pix.CobStatusRemovidaPeloUsuarioRecebedor) {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "status", Message: `must be "REMOVIDA_PELO_USUARIO_RECEBEDOR"`})
	}
	c, err := s.svcOf(r).RemoveCob(r.Context(), accountOf(r), mux.Vars(r)["txid"])
	if err != nil {
		return nil, err
	}
	return newCobResponse(c), nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
