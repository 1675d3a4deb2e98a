package pix

import (
	"strings"
	"testing"
)

func TestParseCashOutKey(t *testing.T) {
	tests := []struct {
		typ  CashOutKeyType
		in   string
		want string
		ok   bool
	}{
		{CashOutKeyDocument, "52998224725", "52998224725", true},
		{CashOutKeyDocument, "52998224724", "", false},
		{CashOutKeyDocument, "60746948000112", "60746948000112", true},
		{CashOutKeyDocument, "529.982.247-25", "", false},
		{CashOutKeyEmail, "Fulano@Example.com", "fulano@example.com", true},
		{CashOutKeyEmail, "fulano.example.com", "", false},
		{CashOutKeyPhone, "11987654321", "+5511987654321", true},
		{CashOutKeyPhone, "1187654321", "+551187654321", true},
		{CashOutKeyPhone, "+5511987654321", "", false},
		{CashOutKeyPhone, "987654321", "", false},
		{CashOutKeyPhone, "01987654321", "", false},
		{CashOutKeyRandom, "123e4567-e89b-12d3-a456-426655440000", "123e4567-e89b-12d3-a456-426655440000", true},
		{CashOutKeyRandom, "123E4567E89B12D3A456426655440000", "123e4567-e89b-12d3-a456-426655440000", true},
		{CashOutKeyRandom, "123e4567-e89b-12d3-a456", "", false},
		{"CPF", "52998224725", "", false},
	}
	for _, tt := range tests {
		got, ok := parseCashOutKey(tt.typ, tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseCashOutKey(%s, %q) = %q, %v; want %q, %v", tt.typ, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCashOutRequest_Validate(t *testing.T) {
	ok := CashOutRequest{Value: "10.5", ExternalID: "e1", Key: "11987654321", KeyType: "PHONE", Name: "Fulano", Document: "52998224725"}
	got, err := ok.Validate()
	if err != nil || got.Amount != 10_50 || got.Key != "+5511987654321" {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	tests := []struct {
		name   string
		edit   func(*CashOutRequest)
		code   Code
		fields []string
	}{
		{"missing", func(r *CashOutRequest) { r.Missing = []string{"value", "details"} }, CodeHTTPError, []string{"value", "details"}},
		{"blank externalId", func(r *CashOutRequest) { r.ExternalID = "  " }, CodeHTTPError, []string{"externalId"}},
		{"long description", func(r *CashOutRequest) { r.Description = strings.Repeat("é", 141) }, CodeHTTPError, []string{"description"}},
		{"several", func(r *CashOutRequest) { r.KeyType = "CPF"; r.Name = strings.Repeat("n", 101); r.Document = "123" }, CodeHTTPError,
			[]string{"details.keyType", "details.name", "details.document"}},
		{"amount", func(r *CashOutRequest) { r.Value = "0.001" }, CodePixInvalidAmount, []string{"value"}},
		{"amount below minimum", func(r *CashOutRequest) { r.Value = "0" }, CodePixInvalidAmount, []string{"value"}},
		{"body and amount together", func(r *CashOutRequest) { r.Value = "0"; r.ExternalID = "" }, CodeHTTPError, []string{"externalId", "value"}},
		{"amount and key together", func(r *CashOutRequest) { r.Value = "0"; r.Key = "1" }, CodeHTTPError, []string{"value", "details.key"}},
		{"all layers together", func(r *CashOutRequest) {
			r.Value = "1.001"
			r.Key = "1"
			r.Name = ""
			r.Description = strings.Repeat("d", 141)
		},
			CodeHTTPError, []string{"description", "details.name", "value", "details.key"}},
		{"key not judged without a valid keyType", func(r *CashOutRequest) { r.KeyType = "X"; r.Key = "1" }, CodeHTTPError, []string{"details.keyType"}},
		{"key", func(r *CashOutRequest) { r.Key = "+5511987654321" }, CodePixInvalidPixKey, []string{"details.key"}},
	}
	for _, tt := range tests {
		r := ok
		tt.edit(&r)
		_, err := r.Validate()
		e, isErr := err.(*Error)
		if !isErr || e.Code != tt.code || len(e.Violations) != len(tt.fields) {
			t.Errorf("%s: %#v", tt.name, err)
			continue
		}
		for i, f := range tt.fields {
			if e.Violations[i].Field != f {
				t.Errorf("%s: violation %d names %q, want %q", tt.name, i, e.Violations[i].Field, f)
			}
		}
	}
}

// FuzzParseCashOutKey checks details.key against every details.keyType: it
// never panics, and an accepted key is a DICT key in its canonical form.
func FuzzParseCashOutKey(f *testing.F) {
	for _, s := range []struct{ typ, key string }{
		{"DOCUMENT", "52998224725"}, {"DOCUMENT", "60746948000112"}, {"EMAIL", "Pix@BCB.gov.br"},
		{"PHONE", "11987654321"}, {"PHONE", "0198765432"}, {"RANDOM", "123E4567E89B12D3A456426614174000"},
		{"RANDOM", "123e4567-e89b-12d3-a456-426614174000"}, {"CPF", "52998224725"}, {"", ""}, {"PHONE", "1"},
	} {
		f.Add(s.typ, s.key)
	}
	f.Fuzz(func(t *testing.T, typ, s string) {
		key, ok := parseCashOutKey(CashOutKeyType(typ), s)
		if !ok {
			return
		}
		dt, dk, dok := ParseDICTKey(key)
		if !dok || dk != key {
			t.Fatalf("parseCashOutKey(%s, %q) = %q, which the DICT parses as %q %q %v", typ, s, key, dt, dk, dok)
		}
	})
}
