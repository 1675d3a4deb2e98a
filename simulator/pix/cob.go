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
	DefaultCobExpiration    = 86400 * time.Second
	MaxCobKeyLength         = 77
	MaxSolicitacaoPagador   = 140
	MaxInfoAdicionais       = 50
	MaxInfoAdicionalNome    = 50
	MaxInfoAdicionalValor   = 200
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
	c := Cob{TxID: r.TxID, Expiration: DefaultCobExpiration, Status: CobStatusAtiva, Key: r.Chave,
		PayerRequest: r.SolicitacaoPagador, AdditionalInfo: r.InfoAdicionais}
	vs, missing := requiredViolations(r.Missing)
	if r.Expiracao != "" {
		n, err := strconv.ParseInt(r.Expiracao, 10, 64)
		if err != nil || n <= 0 || n > 1<<31-1 {
			vs = append(vs, Violation{Field: "calendario.expiracao", Message: "must be a positive whole number of seconds"})
		} else {
			c.Expiration = time.Duration(n) * time.Second
		}
	}
	if r.HasDevedor {
		switch {
		case r.DebtorCPF != "" && r.DebtorCNPJ != "":
			vs = append(vs, Violation{Field: "devedor", Message: "must have cpf or cnpj, not both"})
		case r.DebtorCPF != "":
			if !ValidCPF(r.DebtorCPF) {
				vs = append(vs, Violation{Field: "devedor.cpf", Message: "must be 11 digits with valid check digits"})
			}
		case r.DebtorCNPJ != "":
			if !ValidCNPJ(r.DebtorCNPJ) {
				vs = append(vs, Violation{Field: "devedor.cnpj", Message: "must be 14 digits with valid check digits"})
			}
		default:
			vs = append(vs, Violation{Field: "devedor", Message: "must have cpf or cnpj"})
		}
		if strings.TrimSpace(r.DebtorName) == "" {
			vs = append(vs, Violation{Field: "devedor.nome", Message: "is required with cpf or cnpj"})
		} else if utf8.RuneCountInString(r.DebtorName) > 200 {
			vs = append(vs, Violation{Field: "devedor.nome", Message: "must be at most 200 characters"})
		}
		c.DebtorCPF, c.DebtorCNPJ, c.DebtorName = r.DebtorCPF, r.DebtorCNPJ, r.DebtorName
	}
	if !missing["valor"] && !missing["valor.original"] {
		amount, err := ParseDecimal2(r.Original)
		if err != nil || amount <= 0 {
			vs = append(vs, Violation{Field: "valor.original", Message: `must be a positive decimal string with exactly 2 decimals, e.g. "10.00"`})
		}
		c.Amount = amount
	}
	switch r.ModalidadeAlteracao {
	case "", "0":
	case "1":
		c.ChangeMode = CobModalidadeChangeable
	default:
		vs = append(vs, Violation{Field: "valor.modalidadeAlteracao", Message: "must be 0 (fixed) or 1 (the payer may change the amount)"})
	}
	if r.Chave != "" {
		if utf8.RuneCountInString(r.Chave) > MaxCobKeyLength {
			vs = append(vs, Violation{Field: "chave", Message: "must be at most 77 characters"})
		} else if _, key, ok := ParseDICTKey(r.Chave); !ok {
			vs = append(vs, Violation{Field: "chave", Message: "must be a DICT key: CPF, CNPJ, email, +55 phone or EVP"})
		} else {
			c.Key = key
		}
	}
	if utf8.RuneCountInString(r.SolicitacaoPagador) > MaxSolicitacaoPagador {
		vs = append(vs, Violation{Field: "solicitacaoPagador", Message: "must be at most 140 characters"})
	}
	if len(r.InfoAdicionais) > MaxInfoAdicionais {
		vs = append(vs, Violation{Field: "infoAdicionais", Message: "must have at most 50 items"})
	}
	for i, it := range r.InfoAdicionais {
		f := "infoAdicionais[" + strconv.Itoa(i) + "]"
		if it.Name == "" || utf8.RuneCountInString(it.Name) > MaxInfoAdicionalNome {
			vs = append(vs, Violation{Field: f + ".nome", Message: "is required, at most 50 characters"})
		}
		if it.Value == "" || utf8.RuneCountInString(it.Value) > MaxInfoAdicionalValor {
			vs = append(vs, Violation{Field: f + ".valor", Message: "is required, at most 200 characters"})
		}
	}
	if len(vs) > 0 {
		return Cob{}, Invalid(CodeInvalidRequest, vs...)
	}
	return c, nil
}
