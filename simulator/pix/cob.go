package pix

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// CobStatus is the status of an immediate charge (spec "Resources > Immediate charge (cob)").
type CobStatus string

// Cob statuses.
const (
	CobStatusAtiva                        CobStatus = "ATIVA"
	CobStatusConcluida                    CobStatus = "CONCLUIDA"
	CobStatusRemovidaPeloUsuarioRecebedor CobStatus = "REMOVIDA_PELO_USUARIO_RECEBEDOR"
	CobStatusRemovidaPeloPSP              CobStatus = "REMOVIDA_PELO_PSP"
)

// cobTransitions is spec "States and transitions > Immediate charge (cob)" as data.
var cobTransitions = map[CobStatus][]CobStatus{
	CobStatusAtiva: {CobStatusConcluida, CobStatusRemovidaPeloUsuarioRecebedor, CobStatusRemovidaPeloPSP},
}

// CanBecome reports whether s may transition to next. Terminal states have no successors.
func (s CobStatus) CanBecome(next CobStatus) bool { return slices.Contains(cobTransitions[s], next) }

// Cob limits. Spec "Endpoints > PUT /cob/{txid}" and "Limits"; the Central Bank
// reference for the default expiration and the infoAdicionais bounds.
const (
	defaultCobExpiration    = 86400 * time.Second
	maxInfoAdicionais       = 50
	maxInfoAdicionalNome    = 50
	maxInfoAdicionalValor   = 200
	maxDebtorName           = 200
	CobModalidadeFixed      = 0 // the payer pays valor.original
	CobModalidadeChangeable = 1 // the payer may change the amount
)

var txidPattern = regexp.MustCompile(`^[a-zA-Z0-9]{26,35}$`)

// ValidTxID reports whether s is a cob txid: 26 to 35 alphanumerics (spec "PUT
// /cob/{txid}"; Central Bank TxId pattern).
func ValidTxID(s string) bool { return txidPattern.MatchString(s) }

// InfoItem is a name/value pair shown to the payer (infoAdicionais).
type InfoItem struct {
	Name  string
	Value string
}

// Cob is an immediate charge.
type Cob struct {
	TxID       string
	AccountID  AccountID
	LocID      int64
	Location   string // the location URL without scheme, inside the BR Code
	PixCode    string // the BR Code (spec: loc.location and location carry it)
	CreatedAt  time.Time
	Expiration time.Duration
	// Devedor: the debtor, optional.
	DebtorCPF, DebtorCNPJ, DebtorName string
	Amount                            Cents
	ChangeMode                        int // modalidadeAlteracao
	Key                               string
	PayerRequest                      string // solicitacaoPagador
	AdditionalInfo                    []InfoItem
	Revision                          int
	Status                            CobStatus
	Scenario                          string
	// Set when paid (CONCLUIDA).
	TransactionID int64
	EndToEndID    string
	PaidAmount    Cents
	PaidAt        time.Time
	// RefusedAt records a payment that arrived after the charge ended.
	RefusedAt time.Time
	EndedAt   time.Time // when it left ATIVA
}

// ExpiresAt is when an ATIVA cob expires: criacao + expiracao.
func (c Cob) ExpiresAt() time.Time { return c.CreatedAt.Add(c.Expiration) }

// CobRequest is the body of PUT /cob/{txid} as received; numbers are their JSON
// text ("" when absent) and Missing lists absent required fields.
type CobRequest struct {
	TxID                string
	Expiracao           string
	HasDevedor          bool
	DebtorCPF           string
	DebtorCNPJ          string
	DebtorName          string
	Original            string
	ModalidadeAlteracao string
	Chave               string
	SolicitacaoPagador  string
	InfoAdicionais      []InfoItem
	Missing             []string
}

// Validate applies spec "PUT /cob/{txid}" (txid 26..35 alphanumerics, devedor
// cpf 11 or cnpj 14 digits with check digits and nome, valor.original a string
// with exactly 2 decimals, chave ≤ 77, solicitacaoPagador ≤ 140) and the Central
// Bank's rules where the spec is silent (expiracao a positive integer, default
// 86400; valor.original not zero; modalidadeAlteracao 0 or 1; at most 50
// infoAdicionais of nome ≤ 50 and valor ≤ 200). Every failure is KindInvalid with
// one violation per field.
func (r CobRequest) Validate() (Cob, error) {
	if !ValidTxID(r.TxID) {
		return Cob{}, Invalid(CodeInvalidRequest, Violation{Field: "txid", Message: "must be 26 to 35 characters of [a-zA-Z0-9]"})
	}
	c := Cob{TxID: r.TxID, Expiration: defaultCobExpiration, Status: CobStatusAtiva, Key: r.Chave,
		PayerRequest: r.SolicitacaoPagador, AdditionalInfo: r.InfoAdicionais}
	vs, missing := requiredViolations(r.Missing)
	if r.Expiracao != "" {
		n, err := strconv.ParseInt(r.Expiracao, 10, 64)
		if err != nil || n <= 0 || n > 1<<31-1 {
			vs.add("calendario.expiracao", "must be a positive whole number of seconds")
		} else {
			c.Expiration = time.Duration(n) * time.Second
		}
	}
	if r.HasDevedor {
		r.checkDebtor(&vs)
		c.DebtorCPF, c.DebtorCNPJ, c.DebtorName = r.DebtorCPF, r.DebtorCNPJ, r.DebtorName
	}
	if !missing["valor"] && !missing["valor.original"] {
		amount, err := ParseDecimal2(r.Original)
		if err != nil || amount <= 0 {
			vs.add("valor.original", `must be a positive decimal string with exactly 2 decimals, e.g. "10.00"`)
		}
		c.Amount = amount
	}
	switch r.ModalidadeAlteracao {
	case "", "0":
	case "1":
		c.ChangeMode = CobModalidadeChangeable
	default:
		vs.add("valor.modalidadeAlteracao", "must be 0 (fixed) or 1 (the payer may change the amount)")
	}
	if r.Chave != "" {
		c.Key = r.checkKey(&vs)
	}
	r.checkPayerTexts(&vs)
	if len(vs) > 0 {
		return Cob{}, Invalid(CodeInvalidRequest, vs...)
	}
	return c, nil
}

// checkDebtor checks devedor: a cpf or a cnpj, not both, with check digits, and
// a nome.
func (r CobRequest) checkDebtor(vs *violations) {
	switch {
	case r.DebtorCPF != "" && r.DebtorCNPJ != "":
		vs.add("devedor", "must have cpf or cnpj, not both")
	case r.DebtorCPF != "":
		if !ValidCPF(r.DebtorCPF) {
			vs.add("devedor.cpf", "must be 11 digits with valid check digits")
		}
	case r.DebtorCNPJ != "":
		if !ValidCNPJ(r.DebtorCNPJ) {
			vs.add("devedor.cnpj", "must be 14 digits with valid check digits")
		}
	default:
		vs.add("devedor", "must have cpf or cnpj")
	}
	if strings.TrimSpace(r.DebtorName) == "" {
		vs.add("devedor.nome", "is required with cpf or cnpj")
	} else if utf8.RuneCountInString(r.DebtorName) > maxDebtorName {
		vs.add("devedor.nome", "must be at most 200 characters")
	}
}

// checkKey checks chave and returns it as the DICT knows it.
func (r CobRequest) checkKey(vs *violations) string {
	if utf8.RuneCountInString(r.Chave) > maxKeyLength {
		vs.add("chave", "must be at most 77 characters")
	} else if _, key, ok := ParseDICTKey(r.Chave); !ok {
		vs.add("chave", "must be a DICT key: CPF, CNPJ, email, +55 phone or EVP")
	} else {
		return key
	}
	return r.Chave
}

// checkPayerTexts checks what the payer is shown: solicitacaoPagador and the
// infoAdicionais.
func (r CobRequest) checkPayerTexts(vs *violations) {
	vs.text("solicitacaoPagador", r.SolicitacaoPagador, maxDescription, false)
	if len(r.InfoAdicionais) > maxInfoAdicionais {
		vs.add("infoAdicionais", "must have at most 50 items")
	}
	for i, it := range r.InfoAdicionais {
		f := "infoAdicionais[" + strconv.Itoa(i) + "]"
		if it.Name == "" || utf8.RuneCountInString(it.Name) > maxInfoAdicionalNome {
			vs.add(f+".nome", "is required, at most 50 characters")
		}
		if it.Value == "" || utf8.RuneCountInString(it.Value) > maxInfoAdicionalValor {
			vs.add(f+".valor", "is required, at most 200 characters")
		}
	}
}
