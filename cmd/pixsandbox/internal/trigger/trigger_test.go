package trigger

import (
	"testing"

	"github.com/pixsandbox/pixsandbox/scenarios"
)

// The requests themselves are tested through pixsandbox trigger against a
// running simulator (cmd/pixsandbox TestCLI_Trigger).

func TestCashOutKey(t *testing.T) {
	for _, tt := range []struct{ typ, key, wantKey, wantType string }{
		{"CPF", "52998224725", "52998224725", "DOCUMENT"},
		{"CNPJ", "11222333000181", "11222333000181", "DOCUMENT"},
		{"PHONE", "+5511999990000", "11999990000", "PHONE"},
		{"EVP", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000", "RANDOM"},
		{"EMAIL", "a@b.example", "a@b.example", "EMAIL"},
	} {
		e := dictEntry{Type: tt.typ, Key: tt.key}
		if k, kt := e.cashOutKey(); k != tt.wantKey || kt != tt.wantType {
			t.Errorf("cashOutKey of %s %s = %s %s, want %s %s", tt.typ, tt.key, k, kt, tt.wantKey, tt.wantType)
		}
	}
}

func TestSupported(t *testing.T) {
	for _, op := range Ops {
		if !Supported(op) {
			t.Errorf("%s is in Ops but not supported", op)
		}
	}
	if Supported(scenarios.Operation("nothing.here")) {
		t.Error("an unknown operation is supported")
	}
}

func TestDefaultKeyAndRandomHex(t *testing.T) {
	if defaultKey() == "" {
		t.Error("no default key")
	}
	if h := randomHex(6); len(h) != 12 {
		t.Errorf("randomHex(6) = %q, want 12 hex digits", h)
	}
}
