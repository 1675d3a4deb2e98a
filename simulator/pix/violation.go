package pix

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Violation is one invalid field of a request. Field is the JSON path of the
// field as the client sent it ("clientId", "payment.amount", "splits[2].value"),
// or "body" when the body as a whole is at fault.
type Violation struct {
	Field   string
	Message string
}

// Field lengths shared by several requests. Spec "Limits".
const (
	maxDescription = 140 // description, descricao, solicitacaoPagador
	maxHolderName  = 100 // details.name (cash-out), payer.fullName (cash-in)
	// maxExternalIDLength bounds externalId (Gap G-25: the spec gives no length).
	maxExternalIDLength = 255
)

// violations collects the violations of a request in the order they are found.
type violations []Violation

// add records that field is invalid.
func (vs *violations) add(field, message string) {
	*vs = append(*vs, Violation{Field: field, Message: message})
}

// text checks a free-text field: when required it must not be blank, and it
// must have at most max characters.
func (vs *violations) text(field, v string, max int, required bool) {
	switch {
	case required && strings.TrimSpace(v) == "":
		vs.add(field, "must not be empty")
	case utf8.RuneCountInString(v) > max:
		vs.add(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
}

// layeredError is the answer to a request judged in layers (Gap G-21): the
// body's problems vs, then the values' (the amount, the key), each an *Error
// with its own code, or nil. A value problem that is the only problem keeps its
// code; otherwise every problem goes, in that order, in one HTTP_ERROR list.
// It is nil when there is no problem.
func layeredError(vs violations, values ...*Error) error {
	var found []*Error
	for _, e := range values {
		if e != nil {
			found = append(found, e)
		}
	}
	if len(vs) == 0 && len(found) == 1 {
		return found[0]
	}
	for _, e := range found {
		vs = append(vs, e.Violations...)
	}
	if len(vs) > 0 {
		return Invalid(CodeHTTPError, vs...)
	}
	return nil
}

// requiredViolations reports each missing required field and returns them as a set.
func requiredViolations(fields []string) (violations, map[string]bool) {
	vs := make(violations, 0, len(fields))
	set := make(map[string]bool, len(fields))
	for _, f := range fields {
		vs.add(f, "is required")
		set[f] = true
	}
	return vs, set
}

// markChildren marks the children of a missing parent object as missing, so
// that the object is reported once, as itself, and its fields are not judged.
func markChildren(missing map[string]bool, parent string, children ...string) {
	if missing[parent] {
		for _, c := range children {
			missing[parent+"."+c] = true
		}
	}
}

// prefixed returns fields, each under prefix ("splits[0]" + "." + field).
func prefixed(prefix string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = prefix + "." + f
	}
	return out
}

// Clip cuts s to at most n bytes for quoting in a message, on a character
// boundary, and marks the cut with "...": a multi-byte character is never
// split, so a message that quotes valid UTF-8 stays valid UTF-8.
func Clip(s string, n int) string { return ClipMark(s, n, "...") }

// QuoteASCII quotes a value a client sent (a header's, a query's) for a
// message in plain ASCII: cut at 64 bytes (Clip), control characters,
// non-ASCII characters and double quotes each replaced by '?'.
func QuoteASCII(s string) string {
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' {
			return '?'
		}
		return r
	}, Clip(s, 64)) + `"`
}

// ClipMark is Clip with mark, instead of "...", after a cut.
func ClipMark(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}
