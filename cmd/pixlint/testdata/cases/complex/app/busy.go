package app

// Busy has cyclomatic complexity 27: 1 + 26 decisions.
func Busy(a, b, c, d, e, f, g, h, i, j, k, l, m int) int {
	n := 0
	if a > 0 {
		n++
	}
	if b > 0 {
		n++
	}
	if c > 0 {
		n++
	}
	if d > 0 {
		n++
	}
	if e > 0 {
		n++
	}
	if f > 0 {
		n++
	}
	if g > 0 {
		n++
	}
	if h > 0 {
		n++
	}
	if i > 0 {
		n++
	}
	if j > 0 {
		n++
	}
	if k > 0 {
		n++
	}
	if l > 0 {
		n++
	}
	if m > 0 {
		n++
	}
	for x := 0; x < a && x < b; x++ {
		n++
	}
	switch {
	case a == b:
		n++
	case b == c:
		n++
	case c == d:
		n++
	case d == e:
		n++
	case e == f:
		n++
	case f == g:
		n++
	case g == h || h == i:
		n++
	case i == j:
		n++
	case j == k:
		n++
	case k == l:
		n++
	}
	return n
}

// Calm has cyclomatic complexity 1.
func Calm() int { return 1 }
