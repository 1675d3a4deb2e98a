package core

import (
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// How the core writes numbers into ids, job ids and messages, and draws the
// random part of end-to-end ids.

// randomAlnum returns n characters of pix.Alphanumerics from the seeded faker.
func (s *Simulator) randomAlnum(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = pix.Alphanumerics[s.faker.IntN(len(pix.Alphanumerics))]
	}
	return string(b)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// endToEndID draws an end-to-end id (prefix 'E') or return id ('D') of the
// participant ispb at now, in the Central Bank form (pix.NewEndToEndID).
func (s *Simulator) endToEndID(prefix byte, ispb string, now time.Time) string {
	return pix.NewEndToEndID(prefix, ispb, s.rules.endToEndAt(now), s.randomAlnum(11))
}
