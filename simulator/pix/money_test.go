package pix

import (
	"errors"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Cents
		err  error
	}{
		{name: "integer", in: "10", want: 1000},
		{name: "one decimal", in: "10.5", want: 1050},
		{name: "two decimals", in: "10.50", want: 1050},
		{name: "tenth is exact", in: "0.1", want: 10},
		{name: "minimum", in: "0.01", want: 1},
		{name: "zero", in: "0", want: 0},
		{name: "negative zero", in: "-0.00", want: 0},
		{name: "trailing zeros beyond two", in: "1.2300", want: 123},
		{name: "exponent", in: "1.5e2", want: 15000},
		{name: "negative exponent", in: "125e-2", want: 125},
		{name: "three decimals", in: "10.005", err: errAmountPrecision},
		{name: "exponent hides decimals", in: "1e-3", err: errAmountPrecision},
		{name: "negative", in: "-1", err: errAmountRange},
		{name: "too large", in: "99999999999", err: errAmountRange},
		{name: "max", in: "9999999999.99", want: MaxCents},
		{name: "empty", in: "", err: errAmountSyntax},
		{name: "dot only", in: ".", err: errAmountSyntax},
		{name: "leading dot", in: ".5", err: errAmountSyntax},
		{name: "trailing dot", in: "5.", err: errAmountSyntax},
		{name: "letters", in: "abc", err: errAmountSyntax},
		{name: "huge exponent", in: "1e999", err: errAmountRange},
		{name: "comma", in: "1,50", err: errAmountSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDecimal(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseDecimal(%q) error = %v, want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseDecimal(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseDecimal2(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Cents
		err  error
	}{
		{name: "ok", in: "10.50", want: 1050},
		{name: "zero", in: "0.00", want: 0},
		{name: "one decimal", in: "10.5", err: errAmountExactDecimals},
		{name: "no decimals", in: "10", err: errAmountExactDecimals},
		{name: "three decimals", in: "10.500", err: errAmountExactDecimals},
		{name: "negative", in: "-1.00", err: errAmountSyntax},
		{name: "eleven digits", in: "12345678901.00", err: errAmountRange},
		{name: "letters", in: "1a.00", err: errAmountSyntax},
		{name: "empty", in: "", err: errAmountSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDecimal2(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ParseDecimal2(%q) error = %v, want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseDecimal2(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCents_Decimal2(t *testing.T) {
	for in, want := range map[Cents]string{0: "0.00", 5: "0.05", 1050: "10.50", -307: "-3.07", MaxCents: "9999999999.99"} {
		if got := in.Decimal2(); got != want {
			t.Errorf("Cents(%d).Decimal2() = %q, want %q", int64(in), got, want)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"10", "10.50", "0.1", "1e2", "-0", "10.005", "", "9999999999.99", "1E-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseDecimal(s)
		if err != nil {
			return
		}
		if c < 0 || c > MaxCents {
			t.Fatalf("ParseDecimal(%q) = %d out of range", s, int64(c))
		}
		back, err := ParseDecimal(c.Decimal2())
		if err != nil || back != c {
			t.Fatalf("round trip of %q: %d -> %q -> %d, %v", s, int64(c), c.Decimal2(), int64(back), err)
		}
	})
}

func FuzzParseDecimal2(f *testing.F) {
	for _, s := range []string{"10.50", "0.00", "10.5", "1", "-1.00", "12345678901.00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseDecimal2(s)
		if err != nil {
			return
		}
		if c.Decimal2() != s && "0"+c.Decimal2()[1:] != s {
			// Leading zeros ("01.00") are accepted; the value must still round-trip.
			if back, _ := ParseDecimal2(c.Decimal2()); back != c {
				t.Fatalf("ParseDecimal2(%q) = %d does not round-trip", s, int64(c))
			}
		}
	})
}
