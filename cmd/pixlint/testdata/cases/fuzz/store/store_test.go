package store

import "testing"

// FuzzWrong is named as a fuzz target but takes a *testing.T.
func FuzzWrong(t *testing.T) { Put("a") }

// Fuzzy is not a fuzz target: a lower-case letter follows Fuzz.
func Fuzzy(t *testing.T) {}

func FuzzPut(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) { Put(s) })
}
