package apiclient

import (
	"encoding/json"
	"testing"
	"time"
)

func TestCents(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    int64
		wantErr bool
	}{
		{name: "integer", in: json.Number("10"), want: 1000},
		{name: "one decimal", in: json.Number("0.1"), want: 10},
		{name: "two decimals", in: json.Number("1234.56"), want: 123456},
		{name: "string", in: "0.01", want: 1},
		{name: "negative", in: json.Number("-2.50"), want: -250},
		{name: "zero", in: json.Number("0"), want: 0},
		{name: "three decimals", in: json.Number("10.005"), wantErr: true},
		{name: "exponent", in: json.Number("1e2"), wantErr: true},
		{name: "leading zero", in: json.Number("01.00"), wantErr: true},
		{name: "float", in: 1.5, wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "overflow", in: json.Number("999999999999999999999"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Cents(tt.in)
			if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
				t.Fatalf("Cents(%v) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestFormatCents(t *testing.T) {
	for in, want := range map[int64]string{0: "0.00", 1: "0.01", 123456: "1234.56", -250: "-2.50", 100: "1.00"} {
		if got := FormatCents(in); got != want {
			t.Errorf("FormatCents(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestParseISO8601(t *testing.T) {
	want := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{"2025-01-01T12:00:00Z", "2025-01-01T09:00:00-03:00", "2025-01-01T09:00:00-0300", "2025-01-01T12:00:00.000Z", "2025-01-01T12:00Z"} {
		got, err := ParseISO8601(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseISO8601(%q) = %s, %v; want %s", s, got, err, want)
		}
	}
	for _, s := range []string{"", "2025/01/01", "01-01-2025", "2025-01-01T25:00:00Z", "1735732800"} {
		if _, err := ParseISO8601(s); err == nil {
			t.Errorf("ParseISO8601(%q) = nil error", s)
		}
	}
}
