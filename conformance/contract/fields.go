package contract

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pixsandbox/pixsandbox/conformance/framework/apiclient"
	"github.com/pixsandbox/pixsandbox/conformance/framework/codec"
)

// jtype is a set of JSON types a field may have.
type jtype uint8

const (
	tString jtype = 1 << iota
	tNumber
	tBool
	tObject
	tArray
	tNull
)

func (t jtype) String() string {
	var names []string
	for _, n := range []struct {
		t    jtype
		name string
	}{{tString, "string"}, {tNumber, "number"}, {tBool, "boolean"}, {tObject, "object"}, {tArray, "array"}, {tNull, "null"}} {
		if t&n.t != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, " or ")
}

// typeOf returns the JSON type of a decoded value.
func typeOf(v any) jtype {
	switch v.(type) {
	case nil:
		return tNull
	case string:
		return tString
	case json.Number:
		return tNumber
	case bool:
		return tBool
	case map[string]any:
		return tObject
	case []any:
		return tArray
	}
	return 0
}

// format is a rule on a value beyond its JSON type.
type format uint8

const (
	fNone        format = iota
	fMoneyNumber        // JSON number, at most 2 decimals ("Number conventions": standard routes)
	fMoneyString        // string, decimal with exactly 2 decimals (Central Bank charge and refund routes)
	fDate               // ISO 8601 date or date-time
	fUUID               // any UUID, 8-4-4-4-12 hex
	fUUIDv4             // a UUID of version 4
	fE2E                // end-to-end id: E or D followed by 31 alphanumerics (32 characters)
	fAlnum32            // exactly 32 alphanumerics (rtrId; the e2eid of the refund route)
	fTxid               // 26 to 35 alphanumerics
	fJWT                // a compact JWT
	fBRCode             // an EMV BR Code
	fBase64             // standard base64
	fDocument           // CPF (11 digits) or CNPJ (14 digits)
	fCPF                // 11 digits
	fCNPJ               // 14 digits
	fHTTPS              // an https:// URL
	fInteger            // a whole number (query parameters)
)

var (
	reUUID      = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	reUUIDv4    = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	reE2E       = regexp.MustCompile(`^[ED][0-9A-Za-z]{31}$`)
	reAlnum32   = regexp.MustCompile(`^[0-9A-Za-z]{32}$`)
	reTxid      = regexp.MustCompile(`^[0-9A-Za-z]{26,35}$`)
	reMoney2    = regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`)
	reDigits    = regexp.MustCompile(`^[0-9]+$`)
	reInteger   = regexp.MustCompile(`^-?[0-9]+$`)
	formatNames = map[format]string{
		fMoneyNumber: "a JSON number with at most 2 decimals", fMoneyString: "a decimal string with exactly 2 decimals",
		fDate: "an ISO 8601 date or date-time", fUUID: "a UUID", fUUIDv4: "a UUID v4",
		fE2E: "an end-to-end id (E or D followed by 31 letters or digits)", fAlnum32: "32 letters or digits",
		fTxid: "26 to 35 letters or digits", fJWT: "a JWT (three base64url parts)", fBRCode: "an EMV BR Code",
		fBase64: "base64", fDocument: "a CPF (11 digits) or CNPJ (14 digits)", fCPF: "a CPF of 11 digits",
		fCNPJ: "a CNPJ of 14 digits", fHTTPS: "an https:// URL", fInteger: "a whole number",
	}
)

// field is one row of a resource or body table.
type field struct {
	path     string // dotted, "[]" iterates an array: "data[].balanceAmount.available"
	typ      jtype
	required bool
	format   format
	enum     []string // allowed values (strings, or decimal text of numbers)
	maxLen   int      // in characters
	min, max string   // bounds of a number (decimal text)
	// clock marks an instant at or before the answer (a creation time, the
	// moment of a read): a lower bound of the upstream's clock.
	clock   bool
	section string // the contract section, when not the route's resource
}

// issue is one problem of a value; rule is the id without its side ("field-type").
type issue struct {
	rule, field, expected, seen, message string
	section                              string
}

// walk calls fn for every location path names in v: where it is, the
// value and whether it is present. An absent or null parent stops the walk:
// the parent's own row reports it. The location is valid during the call
// only (its String gives the concrete path, "data[2].amount"); at is the
// caller's, reused from one walk to the next, so a walk allocates nothing
// once its stack is as deep as the deepest path.
func walk(v any, path string, at *loc, fn func(at *loc, val any, present bool)) {
	at.parts = at.parts[:0]
	walkSegs(v, compiledPath(path), at, fn)
}

// pathSeg is one dotted segment of a field's path: a name ("" for the
// value itself) and whether "[]" iterates the array it names.
type pathSeg struct {
	name string
	iter bool
}

// compiledPaths holds each field path split once: a path is a constant of
// the contract's tables, and the proxy judges every exchange with them.
var compiledPaths sync.Map // string -> []pathSeg

func compiledPath(path string) []pathSeg {
	if segs, ok := compiledPaths.Load(path); ok {
		return segs.([]pathSeg)
	}
	parts := strings.Split(path, ".")
	segs := make([]pathSeg, len(parts))
	for i, p := range parts {
		name, iter := strings.CutSuffix(p, "[]")
		segs[i] = pathSeg{name: name, iter: iter}
	}
	compiledPaths.Store(path, segs)
	return segs
}

// loc is where walk is in a value: the names and array indexes from the
// root, made into text only when a problem names it.
type loc struct{ parts []locPart }

// locPart is a name, or an array index when idx is not negative.
type locPart struct {
	name string
	idx  int
}

func (l *loc) push(p locPart) { l.parts = append(l.parts, p) }
func (l *loc) pop()           { l.parts = l.parts[:len(l.parts)-1] }

// String returns the concrete path: "data[2].amount".
func (l *loc) String() string {
	var b strings.Builder
	for _, p := range l.parts {
		if p.idx >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.idx))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p.name)
	}
	return b.String()
}

func walkSegs(v any, segs []pathSeg, at *loc, fn func(*loc, any, bool)) {
	seg := segs[0]
	cur := v
	if seg.name != "" {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		val, present := obj[seg.name]
		at.push(locPart{name: seg.name, idx: -1})
		defer at.pop()
		if !present {
			if len(segs) == 1 && !seg.iter {
				fn(at, nil, false)
			}
			return
		}
		cur = val
	}
	if !seg.iter {
		if len(segs) == 1 {
			fn(at, cur, true)
			return
		}
		walkSegs(cur, segs[1:], at, fn)
		return
	}
	arr, ok := cur.([]any)
	if !ok {
		return
	}
	for i, item := range arr {
		at.push(locPart{idx: i})
		if len(segs) == 1 {
			fn(at, item, true)
		} else {
			walkSegs(item, segs[1:], at, fn)
		}
		at.pop()
	}
}

// check returns the problems of the value(s) at f.path in v.
func (f field) check(v any, at *loc) []issue {
	var out []issue
	walk(v, f.path, at, func(at *loc, val any, present bool) {
		out = append(out, f.checkValue(at, val, present)...)
	})
	return out
}

func (f field) checkValue(l *loc, val any, present bool) []issue {
	if !present {
		if f.required {
			at := l.String()
			return []issue{{rule: "field-missing", field: at, expected: f.typ.String(), seen: "absent", message: at + " is absent", section: f.section}}
		}
		return nil
	}
	t := typeOf(val)
	if t == tNull && f.typ&tNull != 0 {
		return nil
	}
	if t&f.typ == 0 {
		at := l.String()
		return []issue{{rule: "field-type", field: at, expected: f.typ.String(), seen: Render(val),
			message: fmt.Sprintf("%s is %s, not %s", at, t, f.typ), section: f.section}}
	}
	var out []issue
	if is := f.checkFormat(l, val); is != nil {
		out = append(out, *is)
	}
	if is := f.checkAllowed(l, val); is != nil {
		out = append(out, *is)
	}
	return out
}

// formatRule is the rule (without side) a broken format reports under.
func formatRule(fm format) string {
	switch fm {
	case fMoneyNumber, fMoneyString:
		return "money-format"
	case fDate:
		return "date-format"
	case fBRCode:
		return "brcode"
	case fBase64, fDocument, fCPF, fCNPJ, fHTTPS, fInteger:
		return "value-allowed"
	}
	return "id-format"
}

func (f field) checkFormat(l *loc, val any) *issue {
	if f.format == fNone {
		return nil
	}
	text, _ := val.(string)
	if n, ok := val.(json.Number); ok {
		text = string(n)
	}
	ok, detail := formatOK(f.format, val, text)
	if ok {
		return nil
	}
	at := l.String()
	msg := fmt.Sprintf("%s is %s, not %s", at, Render(val), formatNames[f.format])
	if detail != "" {
		msg += ": " + detail
	}
	return &issue{rule: formatRule(f.format), field: at, expected: formatNames[f.format], seen: Render(val), message: msg, section: f.section}
}

// formatOK reports whether val (whose text is text) has format fm, and why not.
func formatOK(fm format, val any, text string) (bool, string) {
	_, isNum := val.(json.Number)
	if re, ok := formatPatterns[fm]; ok {
		return !isNum && re.MatchString(text), ""
	}
	switch fm {
	case fMoneyNumber:
		return isNum && apiclient.Decimal2.MatchString(text) && !strings.HasPrefix(text, "-"), ""
	case fMoneyString:
		return !isNum && reMoney2.MatchString(text), ""
	case fDate:
		_, err := apiclient.ParseISO8601(text)
		return err == nil, ""
	case fJWT:
		_, _, err := jwt.NewParser().ParseUnverified(text, jwt.MapClaims{})
		return err == nil, ""
	case fBRCode:
		p := codec.BRCodeProblems(text)
		return len(p) == 0, strings.Join(p, "; ")
	case fBase64:
		_, err := base64.StdEncoding.DecodeString(text)
		return err == nil && text != "", ""
	case fDocument:
		return reDigits.MatchString(text) && (len(text) == 11 || len(text) == 14), ""
	case fHTTPS:
		return strings.HasPrefix(strings.ToLower(text), "https://") && len(text) > len("https://"), ""
	case fInteger:
		return reInteger.MatchString(text), ""
	}
	return true, ""
}

// formatPatterns are the formats a regular expression decides.
var formatPatterns = map[format]*regexp.Regexp{
	fUUID: reUUID, fUUIDv4: reUUIDv4, fE2E: reE2E, fAlnum32: reAlnum32, fTxid: reTxid,
	fCPF: regexp.MustCompile(`^[0-9]{11}$`), fCNPJ: regexp.MustCompile(`^[0-9]{14}$`),
}

func (f field) checkAllowed(l *loc, val any) *issue {
	fail := func(expected string) *issue {
		at := l.String()
		return &issue{rule: "value-allowed", field: at, expected: expected, seen: Render(val),
			message: fmt.Sprintf("%s is %s, want %s", at, Render(val), expected), section: f.section}
	}
	switch x := val.(type) {
	case string:
		if len(f.enum) > 0 && !slices.Contains(f.enum, x) {
			return fail("one of " + strings.Join(f.enum, ", "))
		}
		if f.maxLen > 0 && utf8.RuneCountInString(x) > f.maxLen {
			return fail(fmt.Sprintf("at most %d characters (it has %d)", f.maxLen, utf8.RuneCountInString(x)))
		}
	case json.Number:
		if len(f.enum) > 0 && !slices.ContainsFunc(f.enum, func(e string) bool { return apiclient.SameNumber(e, string(x)) }) {
			return fail(strings.Join(f.enum, " or "))
		}
		if !inRange(string(x), f.min, f.max) {
			return fail(rangeText(f.min, f.max))
		}
	case []any:
		if f.maxLen > 0 && len(x) > f.maxLen {
			return fail(fmt.Sprintf("at most %d items (it has %d)", f.maxLen, len(x)))
		}
	case map[string]any:
		if f.maxLen > 0 && len(x) > f.maxLen {
			return fail(fmt.Sprintf("at most %d keys (it has %d)", f.maxLen, len(x)))
		}
	}
	return nil
}

// inRange reports whether the decimal text n lies within [min, max] (an
// empty bound is open). A text that is not a number passes: the format
// rules say so.
func inRange(n, min, max string) bool {
	if min != "" {
		if c, ok := cmpNumber(n, min); ok && c < 0 {
			return false
		}
	}
	if max != "" {
		if c, ok := cmpNumber(n, max); ok && c > 0 {
			return false
		}
	}
	return true
}

// cmpNumber compares two numbers written as JSON writes them: plain
// decimals as text (cmpDecimal), anything else (an exponent) through
// big.Rat. ok is false when either is not a number.
func cmpNumber(a, b string) (int, bool) {
	if c, ok := cmpDecimal(a, b); ok {
		return c, true
	}
	x, okx := new(big.Rat).SetString(a)
	y, oky := new(big.Rat).SetString(b)
	if !okx || !oky {
		return 0, false
	}
	return x.Cmp(y), true
}

// cmpDecimal compares two plain decimal texts exactly (-1, 0, +1): an
// optional leading minus, digits, and an optional point followed by
// digits. ok is false when either is not such a text.
func cmpDecimal(a, b string) (int, bool) {
	an, ai, af, ok := splitDecimal(a)
	if !ok {
		return 0, false
	}
	bn, bi, bf, ok := splitDecimal(b)
	if !ok {
		return 0, false
	}
	aZero, bZero := ai == "" && af == "", bi == "" && bf == ""
	an, bn = an && !aZero, bn && !bZero // -0 is 0
	if an != bn {
		if an {
			return -1, true
		}
		return 1, true
	}
	c := len(ai) - len(bi)
	if c == 0 {
		c = strings.Compare(ai, bi)
	}
	if c == 0 {
		c = strings.Compare(af, bf)
	}
	c = min(max(c, -1), 1)
	if an {
		c = -c
	}
	return c, true
}

// splitDecimal splits a plain decimal into its sign and its integer and
// fraction digits without leading (integer) or trailing (fraction) zeros.
func splitDecimal(s string) (neg bool, whole, frac string, ok bool) {
	s, neg = strings.CutPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || (dot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return false, "", "", false
	}
	return neg, strings.TrimLeft(whole, "0"), strings.TrimRight(frac, "0"), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func rangeText(min, max string) string {
	switch {
	case min != "" && max != "":
		return "from " + min + " to " + max
	case min != "":
		return "at least " + min
	}
	return "at most " + max
}

// checkFields applies rows to v and returns the problems found.
func checkFields(rows []field, v any) []issue {
	var out []issue
	at := &loc{parts: make([]locPart, 0, 4)}
	for _, f := range rows {
		out = append(out, f.check(v, at)...)
	}
	return out
}

// ClockValues returns the instants of a success body of the route that
// cannot be later than the upstream's clock when it answered: the creation
// and read times its resource table marks.
func (r *Route) ClockValues(v any) []time.Time {
	var out []time.Time
	var at loc
	for _, f := range r.response {
		if !f.clock {
			continue
		}
		walk(v, f.path, &at, func(_ *loc, val any, present bool) {
			if s, ok := val.(string); ok && present {
				if t, err := apiclient.ParseISO8601(s); err == nil {
					out = append(out, t)
				}
			}
		})
	}
	return out
}
