package contract

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
)

// TestWalk_Locations: each location walk reports carries its concrete path,
// array indexes included, and an absent field inside an array item is
// reported at its item; the location is reused, so only what fn copies out
// lasts.
func TestWalk_Locations(t *testing.T) {
	v := map[string]any{"data": []any{
		map[string]any{"a": "x", "b": map[string]any{"c": "y"}},
		map[string]any{"b": nil},
		"not an object",
	}}
	var at loc
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"data[].a", []string{"data[0].a present x", "data[1].a absent <nil>"}},
		{"data[].b.c", []string{"data[0].b.c present y"}},
		{"data[]", []string{"data[0] present map[a:x b:map[c:y]]", "data[1] present map[b:<nil>]", "data[2] present not an object"}},
		{"data", []string{"data present [map[a:x b:map[c:y]] map[b:<nil>] not an object]"}},
		{"none.x", nil},
		{"none", []string{"none absent <nil>"}},
	} {
		var got []string
		walk(v, tt.path, &at, func(l *loc, val any, present bool) {
			state := "absent"
			if present {
				state = "present"
			}
			got = append(got, fmt.Sprintf("%s %s %v", l, state, val))
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("walk %q:\n got %q\nwant %q", tt.path, got, tt.want)
		}
	}
}

func TestCmpDecimal(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
		ok   bool
	}{
		{"0.01", "0.01", 0, true},
		{"0.010", "0.01", 0, true},
		{"00.5", "0.50", 0, true},
		{"-0", "0.00", 0, true},
		{"0.5", "0.45", 1, true},
		{"0.05", "0.5", -1, true},
		{"10", "9.99", 1, true},
		{"-10", "-9.99", -1, true},
		{"-0.01", "0", -1, true},
		{"1000000", "999999.999", 1, true},
		{"1e2", "100", 0, false},
		{"1.", "1", 0, false},
		{".5", "0.5", 0, false},
		{"+1", "1", 0, false},
		{"", "1", 0, false},
		{"1", "--1", 0, false},
	} {
		got, ok := cmpDecimal(tt.a, tt.b)
		if got != tt.want || ok != tt.ok {
			t.Errorf("cmpDecimal(%q, %q) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzCmpDecimal: wherever cmpDecimal answers, big.Rat agrees.
func FuzzCmpDecimal(f *testing.F) {
	for _, s := range [][2]string{{"0.01", "0"}, {"-12.50", "-12.5"}, {"999", "1000.001"}, {"007", "7.000"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got, ok := cmpDecimal(a, b)
		if !ok {
			return
		}
		x, okx := new(big.Rat).SetString(a)
		y, oky := new(big.Rat).SetString(b)
		if !okx || !oky {
			t.Fatalf("cmpDecimal(%q, %q) answered %d; big.Rat does not read them", a, b, got)
		}
		if want := x.Cmp(y); got != want {
			t.Fatalf("cmpDecimal(%q, %q) = %d, big.Rat says %d", a, b, got, want)
		}
	})
}

func TestInRange(t *testing.T) {
	for _, tt := range []struct {
		n, min, max string
		want        bool
	}{
		{"0.01", "0.01", "", true},
		{"0.00", "0.01", "", false},
		{"5", "", "4.99", false},
		{"1e-3", "0.01", "", false}, // through big.Rat
		{"1E3", "", "1000", true},
		{"12", "1", "12.00", true},
		{"12.01", "1", "12.00", false},
		{"-0.01", "0", "", false},
		{"abc", "1", "2", true}, // not a number: the format rules report it
		{"5", "x", "4", false},  // a bound that is not a number is open
		{"3", "x", "4", true},
		{"1e400", "", "1e399", false},
	} {
		if got := inRange(tt.n, tt.min, tt.max); got != tt.want {
			t.Errorf("inRange(%q, %q, %q) = %v, want %v", tt.n, tt.min, tt.max, got, tt.want)
		}
	}
}
