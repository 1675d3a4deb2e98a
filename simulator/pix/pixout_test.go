package pix

import (
	"strings"
	"testing"
	"time"
)

func TestParseDICTKey(t *testing.T) {
	tests := []struct {
		in   string
		typ  KeyType
		norm string
		ok   bool
	}{
		{"52998224725", KeyTypeCPF, "52998224725", true},
		{"52998224724", KeyTypeCPF, "52998224724", false},
		{"60746948000112", KeyTypeCNPJ, "60746948000112", true},
		{"+5511987654321", KeyTypePhone, "+5511987654321", true},
		{"+551187654321", KeyTypePhone, "+551187654321", true},
		{"+1415555123", KeyTypePhone, "+1415555123", false},
		{"pix@bcb.gov.br", KeyTypeEmail, "pix@bcb.gov.br", true},
		{"Pix@BCB.gov.br", KeyTypeEmail, "pix@bcb.gov.br", true},
		{"pix@@bcb.gov.br", KeyTypeEmail, "", false},
		{"123E4567-E89B-12D3-A456-426655440000", KeyTypeEVP, "123e4567-e89b-12d3-a456-426655440000", true},
		{"123e4567e89b12d3a456426655440000", "", "", false},
		{"", "", "", false},
		{strings.Repeat("a", 70) + "@x.com.br", "", "", false},
	}
	for _, tt := range tests {
		typ, norm, ok := ParseDICTKey(tt.in)
		if ok != tt.ok || (ok && (typ != tt.typ || norm != tt.norm)) {
			t.Errorf("ParseDICTKey(%q) = %s, %q, %v; want %s, %q, %v", tt.in, typ, norm, ok, tt.typ, tt.norm, tt.ok)
		}
	}
}

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

func TestEndToEndID(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 5, 59, 0, time.FixedZone("BRT", -3*3600))
	id := NewEndToEndID('E', "13140088", at, "AbC123xyz09ZZZ")
	if id != "E1314008820260302120"+"5AbC123xyz09" || len(id) != 32 || !ValidEndToEndID(id) {
		t.Fatalf("NewEndToEndID = %q (len %d)", id, len(id))
	}
	for _, bad := range []string{"", "X1314008820260302120" + "5AbC123xyz09", "E1314008820261302120" + "5AbC123xyz09", id[:31], id + "a", "E13140088202603021205AbC123xyz0!"} {
		if ValidEndToEndID(bad) {
			t.Errorf("ValidEndToEndID(%q) = true", bad)
		}
	}
	if !ValidEndToEndID("E9040088820210128000800123873170") || !ValidEndToEndID("D12345678202009091000abcde123456") {
		t.Error("the Open Finance and Central Bank examples must be valid")
	}
}

func TestNightWindow(t *testing.T) {
	for at, want := range map[string]bool{
		"2025-01-15T22:59:00Z": false, // 19:59 BRT
		"2025-01-15T23:00:00Z": true,  // 20:00
		"2025-07-16T08:59:59Z": true,  // 05:59:59
		"2025-07-16T09:00:00Z": false, // 06:00
	} {
		ts, _ := time.Parse(time.RFC3339, at)
		if got := IsNight(ts); got != want {
			t.Errorf("IsNight(%s) = %v, want %v", at, got, want)
		}
	}
	late, _ := time.Parse(time.RFC3339, "2025-01-16T02:00:00Z")  // 23:00 on the 15th BRT
	early, _ := time.Parse(time.RFC3339, "2025-01-16T08:00:00Z") // 05:00 on the 16th BRT
	if NightKey(late) != "2025-01-15" || NightKey(early) != "2025-01-15" || DayKey(early) != "2025-01-16" || DayKey(late) != "2025-01-15" {
		t.Errorf("keys: night %s %s, day %s %s", NightKey(late), NightKey(early), DayKey(late), DayKey(early))
	}
	if DefaultSettings("52998224725").Limits.Night != 1_000_00 || DefaultSettings("60746948000112").Limits.Night != 0 {
		t.Error("night limit applies to individuals only")
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

func TestTransferRequest_Validate(t *testing.T) {
	ok := TransferRequest{IdempotencyKey: "2b28bc5f-714d-4515-9a30-06854d5df38c", PixKey: "pix@bcb.gov.br", Currency: "BRL", Amount: "1"}
	got, err := ok.Validate()
	if err != nil || got.Expiration != defaultTransferExpiration || got.Priority != PriorityNorm || got.KeyType != KeyTypeEmail {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	tests := []struct {
		name  string
		edit  func(*TransferRequest)
		code  Code
		field string
	}{
		{"no key header", func(r *TransferRequest) { r.IdempotencyKey = "" }, CodeIdempotencyKeyMissing, "x-idempotency-key"},
		{"key header not v4", func(r *TransferRequest) { r.IdempotencyKey = "6ba7b810-9dad-11d1-80b4-00c04fd430c8" }, CodeIdempotencyKeyMissing, "x-idempotency-key"},
		{"bad pixKey", func(r *TransferRequest) { r.PixKey = "11987654321" }, CodeInvalidRequest, "pixKey"},
		{"HIGH without document", func(r *TransferRequest) { r.Priority = PriorityHigh }, CodeInvalidRequest, "creditorDocument"},
		{"bad priority", func(r *TransferRequest) { r.Priority = "LOW" }, CodeInvalidRequest, "priority"},
		{"expiration 0", func(r *TransferRequest) { r.Expiration = "0" }, CodeInvalidRequest, "expiration"},
		{"expiration 10801", func(r *TransferRequest) { r.Expiration = "10801" }, CodeInvalidRequest, "expiration"},
		{"expiration fraction", func(r *TransferRequest) { r.Expiration = "1.5" }, CodeInvalidRequest, "expiration"},
		{"3 decimals", func(r *TransferRequest) { r.Amount = "1.001" }, CodeInvalidRequest, "payment.amount"},
		{"currency", func(r *TransferRequest) { r.Currency = "USD" }, CodeInvalidRequest, "payment.currency"},
		{"ispb", func(r *TransferRequest) { r.IspbDeny = []string{"123"} }, CodeInvalidRequest, "ispbDeny[0]"},
	}
	for _, tt := range tests {
		r := ok
		tt.edit(&r)
		_, err := r.Validate()
		e, isErr := err.(*Error)
		if !isErr || e.Code != tt.code || len(e.Violations) == 0 || e.Violations[0].Field != tt.field {
			t.Errorf("%s: %#v", tt.name, err)
		}
	}
	a, _ := ok.Validate()
	b := ok
	b.Description = "x"
	bv, _ := b.Validate()
	if a.Fingerprint() == bv.Fingerprint() {
		t.Error("a different description must change the fingerprint")
	}
	c := ok
	c.IdempotencyKey = "0b6a3a4e-8d0c-4f7e-9a51-2f1f3c5d7e90"
	cv, _ := c.Validate()
	if a.Fingerprint() != cv.Fingerprint() {
		t.Error("the fingerprint covers the request, not the key")
	}
}
