package pix_test

import (
	"strings"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// bankCNPJs are the check-digit-valid institution CNPJs of DOMAIN.md A3.
var bankCNPJs = []struct{ name, cnpj string }{
	{"Banco do Brasil", "00000000000191"},
	{"Caixa", "00360305000104"},
	{"Bradesco", "60746948000112"},
	{"Itaú Unibanco", "60701190000104"},
	{"Santander", "90400888000142"},
	{"Nu Pagamentos", "18236120000158"},
	{"Inter", "00416968000101"},
	{"Banco Central", "00038166000105"},
	{"BTG Pactual", "30306294000145"},
	{"C6", "31872495000172"},
	{"Mercado Pago", "10573521000191"},
	{"PagSeguro", "08561701000101"},
	{"Petrobras", "33000167000101"},
}

func TestValidCPF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "vector 52998224725", in: "52998224725", want: true},
		{name: "vector 12345678909", in: "12345678909", want: true},
		{name: "vector 11144477735", in: "11144477735", want: true},
		{name: "first check digit wrong", in: "52998224715", want: false},
		{name: "second check digit wrong", in: "52998224726", want: false},
		{name: "both check digits wrong", in: "12345678900", want: false},
		{name: "body digit changed", in: "52998224825", want: false},
		{name: "all zeros", in: "00000000000", want: false},
		{name: "all ones", in: "11111111111", want: false},
		{name: "all nines", in: "99999999999", want: false},
		{name: "empty", in: "", want: false},
		{name: "ten digits", in: "5299822472", want: false},
		{name: "twelve digits", in: "529982247250", want: false},
		{name: "punctuated", in: "529.982.247-25", want: false},
		{name: "letter", in: "5299822472a", want: false},
		{name: "leading space", in: " 52998224725", want: false},
		{name: "fullwidth digit", in: "5299822472５", want: false},
		{name: "valid CNPJ", in: "60746948000112", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pix.ValidCPF(tt.in); got != tt.want {
				t.Fatalf("ValidCPF(%q)=%v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidCNPJ(t *testing.T) {
	t.Parallel()
	type test struct {
		name string
		in   string
		want bool
	}
	tests := []test{
		{name: "first check digit wrong", in: "60746948000102", want: false},
		{name: "second check digit wrong", in: "60746948000113", want: false},
		{name: "branch changed", in: "60746948000212", want: false},
		{name: "all zeros", in: "00000000000000", want: false},
		{name: "all ones", in: "11111111111111", want: false},
		{name: "empty", in: "", want: false},
		{name: "thirteen digits", in: "6074694800011", want: false},
		{name: "fifteen digits", in: "607469480001120", want: false},
		{name: "punctuated", in: "60.746.948/0001-12", want: false},
		{name: "letter", in: "6074694800011a", want: false},
		{name: "alphanumeric RFB vector", in: "12ABC34501DE35", want: false},
		{name: "valid CPF", in: "52998224725", want: false},
	}
	for _, b := range bankCNPJs {
		tests = append(tests, test{name: b.name, in: b.cnpj, want: true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pix.ValidCNPJ(tt.in); got != tt.want {
				t.Fatalf("ValidCNPJ(%q)=%v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "CPF", in: "52998224725", want: true},
		{name: "CNPJ", in: "60746948000112", want: true},
		{name: "invalid CPF", in: "52998224724", want: false},
		{name: "invalid CNPJ", in: "60746948000111", want: false},
		{name: "repeated CPF", in: "22222222222", want: false},
		{name: "repeated CNPJ", in: "22222222222222", want: false},
		{name: "twelve digits", in: "529982247250", want: false},
		{name: "empty", in: "", want: false},
		{name: "punctuated CPF", in: "529.982.247-25", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pix.ValidDocument(tt.in); got != tt.want {
				t.Fatalf("ValidDocument(%q)=%v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCPFCheckDigits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "vector 52998224725", in: "529982247", want: "52998224725"},
		{name: "vector 12345678909", in: "123456789", want: "12345678909"},
		{name: "vector 11144477735", in: "111444777", want: "11144477735"},
		{name: "remainder below two gives zero", in: "000000001", want: "00000000191"},
		{name: "repeated base", in: "333333333", wantErr: true},
		{name: "zero base", in: "000000000", wantErr: true},
		{name: "eight digits", in: "52998224", wantErr: true},
		{name: "ten digits", in: "5299822472", wantErr: true},
		{name: "letter", in: "52998224x", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := pix.CPFCheckDigits(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("CPFCheckDigits(%q)=%q, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("CPFCheckDigits(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("CPFCheckDigits(%q)=%q, want %q", tt.in, got, tt.want)
			}
			if !pix.ValidCPF(got) {
				t.Fatalf("ValidCPF(CPFCheckDigits(%q)=%q)=false", tt.in, got)
			}
		})
	}
}

func TestCNPJCheckDigits(t *testing.T) {
	t.Parallel()
	type test struct {
		name    string
		in      string
		want    string
		wantErr bool
	}
	tests := []test{
		{name: "repeated base that still validates", in: "111111111111", want: "11111111111180"},
		{name: "zero base", in: "000000000000", wantErr: true},
		{name: "eleven digits", in: "60746948000", wantErr: true},
		{name: "thirteen digits", in: "6074694800011", wantErr: true},
		{name: "letter", in: "12ABC34501DE", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, b := range bankCNPJs {
		tests = append(tests, test{name: b.name, in: b.cnpj[:12], want: b.cnpj})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := pix.CNPJCheckDigits(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("CNPJCheckDigits(%q)=%q, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("CNPJCheckDigits(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("CNPJCheckDigits(%q)=%q, want %q", tt.in, got, tt.want)
			}
			if !pix.ValidCNPJ(got) {
				t.Fatalf("ValidCNPJ(CNPJCheckDigits(%q)=%q)=false", tt.in, got)
			}
		})
	}
}

func TestMaskDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "CPF", in: "52998224725", want: "***.982.247-**"},
		{name: "CPF 12345678909", in: "12345678909", want: "***.456.789-**"},
		{name: "CNPJ", in: "60746948000112", want: "**.746.948/0001-**"},
		{name: "CNPJ Banco do Brasil", in: "00000000000191", want: "**.000.000/0001-**"},
		{name: "11 digits with wrong check digits", in: "12345678900", want: "***.456.789-**"},
		{name: "empty", in: "", want: ""},
		{name: "short", in: "1234", want: "****"},
		{name: "twelve digits", in: "529982247250", want: "************"},
		{name: "punctuated CPF", in: "529.982.247-25", want: "**************"},
		{name: "letter", in: "5299822472a", want: "***********"},
		{name: "alphanumeric CNPJ", in: "12ABC34501DE35", want: "**************"},
		{name: "multibyte", in: "açaí", want: "****"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pix.MaskDocument(tt.in); got != tt.want {
				t.Fatalf("MaskDocument(%q)=%q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// checkMask fails t when MaskDocument(s) reveals the leading or check digits
// of s, or anything at all of a string that is not 11 or 14 ASCII digits.
func checkMask(t *testing.T, s string) {
	t.Helper()
	masked := pix.MaskDocument(s)
	if strings.ContainsAny(masked[:min(3, len(masked))], "0123456789") {
		t.Fatalf("MaskDocument(%q)=%q shows a leading digit", s, masked)
	}
	if len(masked) >= 2 && masked[len(masked)-2:] != "**" {
		t.Fatalf("MaskDocument(%q)=%q shows a check digit", s, masked)
	}
	documentShaped := (len(s) == 11 || len(s) == 14) && strings.Trim(s, "0123456789") == ""
	if !documentShaped && strings.Trim(masked, "*") != "" {
		t.Fatalf("MaskDocument(%q)=%q, want only asterisks", s, masked)
	}
}

func FuzzValidCPF(f *testing.F) {
	for _, s := range []string{"52998224725", "12345678909", "11144477735", "11111111111", "5299822472", "529.982.247-25", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := pix.ValidCPF(s)
		checkMask(t, s)
		if valid != (len(s) == 11 && pix.ValidDocument(s)) {
			t.Fatalf("ValidCPF(%q)=%v disagrees with ValidDocument", s, valid)
		}
		if !valid {
			return
		}
		if len(s) != 11 {
			t.Fatalf("ValidCPF(%q)=true for %d bytes", s, len(s))
		}
		got, err := pix.CPFCheckDigits(s[:9])
		if err != nil || got != s {
			t.Fatalf("CPFCheckDigits(%q)=%q, %v; want %q", s[:9], got, err, s)
		}
	})
}

func FuzzValidCNPJ(f *testing.F) {
	for _, s := range []string{"60746948000112", "00000000000191", "11111111111111", "12ABC34501DE35", "60.746.948/0001-12", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := pix.ValidCNPJ(s)
		checkMask(t, s)
		if valid != (len(s) == 14 && pix.ValidDocument(s)) {
			t.Fatalf("ValidCNPJ(%q)=%v disagrees with ValidDocument", s, valid)
		}
		if !valid {
			return
		}
		if len(s) != 14 {
			t.Fatalf("ValidCNPJ(%q)=true for %d bytes", s, len(s))
		}
		got, err := pix.CNPJCheckDigits(s[:12])
		if err != nil || got != s {
			t.Fatalf("CNPJCheckDigits(%q)=%q, %v; want %q", s[:12], got, err, s)
		}
	})
}

// FuzzMaskDocument checks document masking on any input: CPF- and CNPJ-shaped
// strings keep only their middle digits, anything else becomes asterisks.
func FuzzMaskDocument(f *testing.F) {
	for _, s := range []string{"52998224725", "60746948000112", "5299822472", "529.982.247-25", "ééééééééééé", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkMask(t, s)
	})
}
