package domain

import (
	"testing"
	"time"
)

func TestUpper(t *testing.T) {
	deadline := time.Now().Add(time.Second) // tests may read the wall clock
	if Upper("a") != "A" || time.Until(deadline) <= 0 {
		t.Fatal("Upper")
	}
}

func FuzzUpper(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) { Upper(s) })
}
