package simulator

import (
	"strconv"

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
