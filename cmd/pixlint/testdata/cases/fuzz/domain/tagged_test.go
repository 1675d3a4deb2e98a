//go:build slow

package domain

import "testing"

func FuzzTagged(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) { Upper(s) })
}
