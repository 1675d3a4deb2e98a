package httpapi

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// queryParams reads a route's query parameters, gathering one violation per
// invalid parameter so that a 400 names every one of them.
type queryParams struct {
	q  url.Values
	vs []pix.Violation
}

// whole returns the parameter name as a whole number (digits only) in
// [lo, hi] (no upper bound when hi is 0), or def when it is absent.
func (p *queryParams) whole(name string, def, lo, hi int) int {
	v := p.q.Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || strings.TrimLeft(v, "0123456789") != "" || n < lo || (hi > 0 && n > hi) {
		msg := "must be a whole number, at least " + strconv.Itoa(lo)
		if hi > 0 {
			msg = "must be a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		p.vs = append(p.vs, pix.Violation{Field: name, Message: msg})
	}
	return n
}

// queryEnum returns the parameter name when it is one of allowed, "" when it
// is absent; any other value is a violation listing the allowed ones.
func queryEnum[T ~string](p *queryParams, name string, allowed []T) T {
	v := T(p.q.Get(name))
	if v == "" {
		return v
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if a == v {
			return v
		}
		names[i] = string(a)
	}
	p.vs = append(p.vs, pix.Violation{Field: name, Message: "must be one of " + strings.Join(names, ", ")})
	return v
}

// dateMessage is the violation of a date query parameter.
const dateMessage = "must be an ISO 8601 date (2026-03-02) or date-time"

// date returns the parameter name as an ISO 8601 date or date-time (see
// queryTime: end makes a date cover its whole day), zero when absent.
func (p *queryParams) date(name string, end bool) time.Time {
	t, err := queryTime(p.q.Get(name), end)
	if err != nil {
		p.vs = append(p.vs, pix.Violation{Field: name, Message: dateMessage})
	}
	return t
}
