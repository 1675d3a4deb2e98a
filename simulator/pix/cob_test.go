package pix

import (
	"strings"
	"testing"
)

func TestCobRequest_Validate(t *testing.T) {
	ok := CobRequest{TxID: "abcdefghijklmnopqrstuvwxyz0", Original: "10.00", HasDevedor: true, DebtorCPF: "52998224725", DebtorName: "Fulano",
		InfoAdicionais: []InfoItem{{Name: "pedido", Value: "42"}}}
	c, err := ok.Validate()
	if err != nil || c.Amount != 10_00 || c.Expiration != defaultCobExpiration || c.Status != CobStatusAtiva {
		t.Fatalf("Validate = %+v, %v", c, err)
	}
	tests := []struct {
		name  string
		edit  func(*CobRequest)
		field string
	}{
		{"txid 25", func(r *CobRequest) { r.TxID = strings.Repeat("a", 25) }, "txid"},
		{"txid 36", func(r *CobRequest) { r.TxID = strings.Repeat("a", 36) }, "txid"},
		{"txid dash", func(r *CobRequest) { r.TxID = strings.Repeat("a", 26) + "-" }, "txid"},
		{"expiracao 0", func(r *CobRequest) { r.Expiracao = "0" }, "calendario.expiracao"},
		{"cpf and cnpj", func(r *CobRequest) { r.DebtorCNPJ = "60746948000112" }, "devedor"},
		{"bad cpf", func(r *CobRequest) { r.DebtorCPF = "52998224724" }, "devedor.cpf"},
		{"bad cnpj", func(r *CobRequest) { r.DebtorCPF, r.DebtorCNPJ = "", "60746948000113" }, "devedor.cnpj"},
		{"no nome", func(r *CobRequest) { r.DebtorName = "" }, "devedor.nome"},
		{"one decimal", func(r *CobRequest) { r.Original = "10.0" }, "valor.original"},
		{"zero", func(r *CobRequest) { r.Original = "0.00" }, "valor.original"},
		{"modalidade 2", func(r *CobRequest) { r.ModalidadeAlteracao = "2" }, "valor.modalidadeAlteracao"},
		{"chave 78", func(r *CobRequest) { r.Chave = strings.Repeat("a", 70) + "@x.com.br" }, "chave"},
		{"solicitacao 141", func(r *CobRequest) { r.SolicitacaoPagador = strings.Repeat("x", 141) }, "solicitacaoPagador"},
		{"info nome", func(r *CobRequest) { r.InfoAdicionais = []InfoItem{{Name: "", Value: "v"}} }, "infoAdicionais[0].nome"},
		{"missing valor", func(r *CobRequest) { r.Original = ""; r.Missing = []string{"valor"} }, "valor"},
	}
	for _, tt := range tests {
		r := ok
		tt.edit(&r)
		_, err := r.Validate()
		e, isErr := err.(*Error)
		if !isErr || e.Kind != KindInvalid || len(e.Violations) == 0 || e.Violations[0].Field != tt.field {
			t.Errorf("%s: %#v", tt.name, err)
		}
	}
	if !CobStatusAtiva.CanBecome(CobStatusConcluida) || CobStatusConcluida.CanBecome(CobStatusRemovidaPeloPSP) {
		t.Error("cob transitions")
	}
}

// FuzzValidTxID checks the cob txid validator: 26 to 35 ASCII alphanumerics.
func FuzzValidTxID(f *testing.F) {
	for _, s := range []string{"abcdefghijklmnopqrstuvwxyz0", "short", strings.Repeat("a", 35), strings.Repeat("a", 36),
		"abcdefghijklmnopqrstuvwxyz-", "abcdefghijklmnopqrstuvwxyzé", "abcdefghijklmnopqrstuvwxyz\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidTxID(s), alnum(s, 26, 35); got != want {
			t.Fatalf("ValidTxID(%q) = %v, want %v", s, got, want)
		}
	})
}
