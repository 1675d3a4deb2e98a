package pix

import (
	"strings"
	"testing"
	"time"
)

func TestCashInRequest_Validate(t *testing.T) {
	split := func(typ, value string) SplitRequest {
		return SplitRequest{PixKey: "a@b.com", PixKeyType: "EMAIL", Name: "N", Document: "52998224725", Type: typ, Value: value}
	}
	ok := CashInRequest{Value: "100", Description: "d", ExternalID: "e", PayerName: "P", PayerDocument: "52998224725",
		Splits: []SplitRequest{split("PERCENTAGE", "12.5"), split("FIXED", "10")}}
	got, err := ok.Validate(defaultMinExpiration)
	if err != nil || got.Amount != 100_00 || got.Expiration != defaultCashInExpiration || got.Splits[0].Value != 1250 || got.Splits[1].Value != 10_00 {
		t.Fatalf("Validate = %+v, %v", got, err)
	}
	if got.Splits[0].Amount(100_01) != 12_50 || got.Splits[0].Amount(1) != 0 {
		t.Fatalf("percentage rounding: %s %s", got.Splits[0].Amount(100_01), got.Splits[0].Amount(1))
	}
	tests := []struct {
		name  string
		edit  func(*CashInRequest)
		code  Code
		field string
	}{
		{"empty description", func(r *CashInRequest) { r.Description = " " }, CodeHTTPError, "transaction.description"},
		{"long description", func(r *CashInRequest) { r.Description = strings.Repeat("x", 141) }, CodeHTTPError, "transaction.description"},
		{"empty externalId", func(r *CashInRequest) { r.ExternalID = "" }, CodeHTTPError, "transaction.externalId"},
		{"expiration 29", func(r *CashInRequest) { r.ExpirationTime = "29" }, CodeHTTPError, "transaction.expirationTime"},
		{"expiration 604801", func(r *CashInRequest) { r.ExpirationTime = "604801" }, CodeHTTPError, "transaction.expirationTime"},
		{"payer name", func(r *CashInRequest) { r.PayerName = strings.Repeat("n", 101) }, CodeHTTPError, "payer.fullName"},
		{"payer document", func(r *CashInRequest) { r.PayerDocument = "123" }, CodeHTTPError, "payer.document"},
		{"11 additionalInfo", func(r *CashInRequest) {
			r.AdditionalInfo = map[string]string{}
			for i := 0; i < 11; i++ {
				r.AdditionalInfo[strings.Repeat("k", i+1)] = "v"
			}
		}, CodeHTTPError, "additionalInfo"},
		{"11 splits", func(r *CashInRequest) {
			r.Splits = nil
			for i := 0; i < 11; i++ {
				r.Splits = append(r.Splits, split("FIXED", "1"))
			}
		}, CodeHTTPError, "splits"},
		{"splits above amount", func(r *CashInRequest) { r.Splits = []SplitRequest{split("PERCENTAGE", "60"), split("FIXED", "40.01")} }, CodeHTTPError, "splits"},
		{"split type", func(r *CashInRequest) { r.Splits = []SplitRequest{split("HALF", "1")} }, CodeHTTPError, "splits[0].type"},
		{"split key type", func(r *CashInRequest) { s := split("FIXED", "1"); s.PixKeyType = "EVP"; r.Splits = []SplitRequest{s} }, CodeHTTPError, "splits[0].pixKeyType"},
		{"split key", func(r *CashInRequest) { s := split("FIXED", "1"); s.PixKey = "nope"; r.Splits = []SplitRequest{s} }, CodeHTTPError, "splits[0].pixKey"},
		{"split value", func(r *CashInRequest) { r.Splits = []SplitRequest{split("FIXED", "0.001")} }, CodeHTTPError, "splits[0].value"},
		{"split percent over 100", func(r *CashInRequest) { r.Splits = []SplitRequest{split("PERCENTAGE", "100.01")} }, CodeHTTPError, "splits[0].value"},
		{"missing value", func(r *CashInRequest) { r.Value = ""; r.Missing = []string{"transaction.value"} }, CodeHTTPError, "transaction.value"},
		{"amount", func(r *CashInRequest) { r.Value = "0.001"; r.Splits = nil }, CodePixInvalidAmount, "transaction.value"},
		{"below provider minimum", func(r *CashInRequest) { r.ExpirationTime = "45" }, CodeProviderExpirationBelowMinimum, "transaction.expirationTime"},
	}
	for _, tt := range tests {
		r := ok
		tt.edit(&r)
		_, err := r.Validate(time.Minute) // a provider minimum above the spec's floor
		e, isErr := err.(*Error)
		if !isErr || e.Code != tt.code || len(e.Violations) == 0 || e.Violations[0].Field != tt.field {
			t.Errorf("%s: %#v", tt.name, err)
		}
	}
	r := ok
	r.ExpirationTime = "45"
	if _, err := r.Validate(30 * time.Second); err != nil {
		t.Errorf("a lower provider minimum accepts 45 s: %v", err)
	}
	r.ExpirationTime = "30"
	if _, err := r.Validate(defaultMinExpiration); err != nil {
		t.Errorf("the default provider minimum accepts the spec's floor of 30 s: %v", err)
	}
}
