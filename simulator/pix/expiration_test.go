package pix

import "testing"

func TestValidCashInExpirationSeconds(t *testing.T) {
	for n, want := range map[int64]bool{-1: false, 0: false, 29: false, 30: true, 3600: true, 604800: true, 604801: false} {
		if got := ValidCashInExpirationSeconds(n); got != want {
			t.Errorf("ValidCashInExpirationSeconds(%d) = %v, want %v", n, got, want)
		}
	}
}
