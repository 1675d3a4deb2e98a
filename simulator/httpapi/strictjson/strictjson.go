// Package strictjson decodes a JSON request body strictly and reports every
// problem as a violation naming its field: invalid UTF-8, a key given twice
// (also differing only in case), every value of the wrong JSON type, nesting
// deeper than 64 levels. httpapi decodes every request body through it (Gap
// G-03, docs/spec-gaps.md). A well-formed body takes a fast path (fast.go)
// that gives the same answer at a fraction of the strict walk's cost. The
// violations are pix.Violation values, the form every field error of the
// API takes.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// maxDepth bounds the nesting of a request body's arrays and objects. No body
// of the API nests beyond four levels.
const maxDepth = 64

// maxViolations bounds the problems listed for one body, so that a body of
// a million repeated keys does not get an answer many times its size.
const maxViolations = 100

// Decode decodes the JSON object body data into dst in one pass over the
// body, and reports every problem it finds as a violation naming its field:
//
//   - a string (value or key) that is not valid UTF-8, or that holds a \u
//     escape of an unpaired surrogate: Go's decoder would replace it with U+FFFD,
//     so two different values would decode alike and an echo would differ from
//     what was sent;
//   - an object key given twice, also when two keys differ only in case and
//     name the same field (Go's decoder matches keys case-insensitively and
//     would keep the last value);
//   - every value whose JSON type does not fit its field (Go's decoder reports
//     only the first).
//
// Fields with a problem are left at their zero value and the rest of dst is
// filled, so the caller can go on validating the values of the other fields
// and report everything at once (see Merge). A body that is not JSON
// at all, or not a single value, is one violation of field "body"; dst is then
// left untouched. Unknown fields are ignored (Gap G-03).
func Decode(data []byte, dst any) []pix.Violation {
	if decodeFast(data, dst) {
		return nil
	}
	return decodeStrict(data, dst)
}

// decodeStrict is Decode without the fast path.
func decodeStrict(data []byte, dst any) []pix.Violation {
	w := walker{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	w.dec.UseNumber()
	tree, err := w.value("", 0)
	if err == nil {
		if _, terr := w.dec.Token(); terr != io.EOF {
			err = errTrailing
		}
	}
	if err != nil {
		return []pix.Violation{bodyViolation(err)}
	}
	c := typeChecker{}
	clean, ok := c.check(reflect.TypeOf(dst), tree, "")
	vs := append(w.vs, c.vs...)
	if len(vs) > maxViolations {
		more := len(vs) - maxViolations
		return append(vs[:maxViolations:maxViolations], pix.Violation{Field: "body",
			Message: fmt.Sprintf("has %d more problems not listed: fix those above and send it again", more)})
	}
	if !ok { // the body is not an object (or not the value dst is)
		return vs
	}
	src := data
	if len(vs) > 0 {
		if src, err = json.Marshal(clean); err != nil {
			return append(vs, pix.Violation{Field: "body", Message: "could not be decoded"})
		}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		// A type the checker does not model; reported in Go's words, unless
		// the field was reported already.
		v := jsonViolation(err)
		if !CoveredBy(vs, v.Field) {
			vs = append(vs, v)
		}
	}
	return vs
}

var (
	errTrailing = errors.New("trailing data")
	errTooDeep  = errors.New("nested too deeply")
)

// bodyViolation names a problem of the body as a whole.
func bodyViolation(err error) pix.Violation {
	switch {
	case errors.Is(err, errTrailing):
		return pix.Violation{Field: "body", Message: "must hold a single JSON object"}
	case errors.Is(err, errTooDeep):
		return pix.Violation{Field: "body", Message: fmt.Sprintf("is nested more than %d levels deep", maxDepth)}
	}
	return jsonViolation(err)
}

// walker reads a body token by token into a generic tree (objects as
// map[string]any, arrays as []any, numbers as json.Number), recording
// encoding problems and duplicated keys with their paths.
type walker struct {
	dec  *json.Decoder
	data []byte
	vs   []pix.Violation
}

func (w *walker) value(path string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	start := w.dec.InputOffset()
	tok, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return w.object(path, depth)
		}
		return w.array(path, depth)
	case string:
		w.checkString(path, "", start, t)
	}
	return tok, nil
}

func (w *walker) object(path string, depth int) (any, error) {
	obj := map[string]any{}
	for w.dec.More() {
		start := w.dec.InputOffset()
		tok, err := w.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		field := joinPath(path, key)
		w.checkString(field, "key ", start, key)
		if _, dup := obj[key]; dup {
			w.vs = append(w.vs, pix.Violation{Field: field, Message: "is given more than once: send each key once"})
		}
		v, err := w.value(field, depth+1)
		if err != nil {
			return nil, err
		}
		obj[key] = v
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return nil, err
	}
	return obj, nil
}

func (w *walker) array(path string, depth int) (any, error) {
	arr := []any{}
	for i := 0; w.dec.More(); i++ {
		v, err := w.value(path+"["+strconv.Itoa(i)+"]", depth+1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	if _, err := w.dec.Token(); err != nil { // ']'
		return nil, err
	}
	return arr, nil
}

// checkString reports the string token that ended at the decoder's offset and
// began after start (decoded as s) when its bytes are not valid UTF-8 or an
// escape in it named an unpaired surrogate (both decode to U+FFFD).
func (w *walker) checkString(field, what string, start int64, s string) {
	raw := w.data[start:w.dec.InputOffset()]
	if field == "" {
		field = "body"
	}
	if !utf8.Valid(raw) {
		i := 0
		for j := 0; j < len(raw); {
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				i = j
				break
			}
			j += size
		}
		w.vs = append(w.vs, pix.Violation{Field: field,
			Message: fmt.Sprintf("%sis not valid UTF-8 (byte 0x%02x at offset %d): send text in UTF-8", what, raw[i], start+int64(i))})
		return
	}
	if n := strings.Count(s, "\uFFFD"); n > 0 && n > bytes.Count(raw, []byte("\uFFFD"))+countFold(raw, `\ufffd`) {
		w.vs = append(w.vs, pix.Violation{Field: field,
			Message: what + `holds a \u escape of an unpaired surrogate, which is not a character`})
	}
}

// countFold counts the case-insensitive occurrences of sub in b.
func countFold(b []byte, sub string) int {
	return bytes.Count(bytes.ToLower(b), []byte(sub))
}

// joinPath extends a JSON path with an object key, shortened so a message
// stays readable whatever the key.
func joinPath(path, key string) string {
	key = FieldName(pix.Clip(strings.ToValidUTF8(key, "\uFFFD"), 60))
	if path == "" {
		return key
	}
	return path + "." + key
}

// typeChecker compares a decoded tree with the Go type it is decoded into,
// recording one violation per value of the wrong JSON type.
type typeChecker struct{ vs []pix.Violation }

var (
	numberType     = reflect.TypeOf(Number(""))
	jsonNumberType = reflect.TypeOf(json.Number(""))
)

// check returns v without the values of the wrong type (dropped from objects,
// null in arrays) and whether v itself fits t.
func (c *typeChecker) check(t reflect.Type, v any, path string) (any, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t.Kind() == reflect.Interface {
		return v, true // null leaves a field unset, as Go's decoder does
	}
	field := path
	if field == "" {
		field = "body"
	}
	bad := func(want string) (any, bool) {
		if path == "" {
			c.vs = append(c.vs, pix.Violation{Field: "body", Message: "must be a JSON object, not " + jsonKind(v)})
		} else {
			c.vs = append(c.vs, pix.Violation{Field: field, Message: "must be " + want + ", not " + jsonKind(v)})
		}
		return nil, false
	}
	if t == numberType || t == jsonNumberType {
		if _, ok := v.(json.Number); !ok {
			return bad("a number")
		}
		return v, true
	}
	if t.Kind() == reflect.Interface && t.NumMethod() == 0 { // any: the caller judges the value
		return v, true
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			return bad("an array")
		}
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i], _ = c.check(t.Elem(), x, path+"["+strconv.Itoa(i)+"]")
		}
		return out, true
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("an object")
		}
		out := make(map[string]any, len(obj))
		for _, k := range sortedKeys(obj) {
			if x, ok := c.check(t.Elem(), obj[k], joinPath(path, k)); ok {
				out[k] = x
			}
		}
		return out, true
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return bad("an object")
		}
		return c.object(t, obj, path), true
	}
	return c.scalar(t, v, field, bad)
}

// scalar checks a value that is not an array or an object against t: a
// string, a boolean, or a number (whole and in range for an integer type).
func (c *typeChecker) scalar(t reflect.Type, v any, field string, bad func(want string) (any, bool)) (any, bool) {
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return bad("a whole number")
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			c.vs = append(c.vs, pix.Violation{Field: field, Message: "must be a whole number in range, not " + pix.Clip(string(n), 30)})
			return nil, false
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return bad("a number")
		}
	}
	return v, true
}

// object checks the members of obj against the fields of struct t. Unknown
// keys are kept (Go's decoder ignores them); two keys naming one field
// (differing in case) are a duplicate.
func (c *typeChecker) object(t reflect.Type, obj map[string]any, path string) map[string]any {
	fields := jsonFields(t)
	out := make(map[string]any, len(obj))
	seen := map[int]string{}
	for _, k := range sortedKeys(obj) {
		i := fieldIndex(fields, k)
		if i < 0 {
			out[k] = obj[k]
			continue
		}
		if prev, dup := seen[i]; dup {
			c.vs = append(c.vs, pix.Violation{Field: joinPath(path, k),
				Message: fmt.Sprintf("names the same field as %q (keys match without regard to case): send it once", pix.Clip(prev, 60))})
			continue
		}
		seen[i] = k
		if x, ok := c.check(fields[i].typ, obj[k], joinPath(path, k)); ok {
			out[k] = x
		}
	}
	return out
}

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON names of struct t's fields as encoding/json sees
// them: exported fields, named by their tag, embedded structs flattened.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

// fieldIndex finds the field a key decodes into: an exact name first, then one
// equal without regard to case, as encoding/json matches.
func fieldIndex(fields []jsonField, key string) int {
	for i, f := range fields {
		if f.name == key {
			return i
		}
	}
	for i, f := range fields {
		if strings.EqualFold(f.name, key) {
			return i
		}
	}
	return -1
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // violations in a stable order
	return keys
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case nil:
		return "null"
	}
	return "another value"
}

// CoveredBy reports whether field, or an object or array holding it, is named
// by one of vs.
func CoveredBy(vs []pix.Violation, field string) bool {
	for _, v := range vs {
		if v.Field == "body" || field == v.Field || strings.HasPrefix(field, v.Field+".") || strings.HasPrefix(field, v.Field+"[") {
			return true
		}
	}
	return false
}

// Merge answers a body with decoding problems (vs, from
// strictDecode): one error of code c listing them and every value problem
// validation found in the rest of the body (err, from validating the request
// as decoded), so a client sees every invalid field at once (spec "Errors >
// Shapes": message … one per invalid field). A value problem of a field that
// already has a decoding problem (reported as missing, say) is left out.
func Merge(c pix.Code, vs []pix.Violation, err error) error {
	out := slices.Clone(vs)
	var e *pix.Error
	if errors.As(err, &e) && e.Kind == pix.KindInvalid {
		for _, v := range e.Violations {
			if !CoveredBy(vs, v.Field) {
				out = append(out, v)
			}
		}
	}
	return pix.Invalid(c, out...)
}

// jsonViolation names the field of a JSON decoding error.
func jsonViolation(err error) pix.Violation {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return pix.Violation{Field: "body", Message: "must be a JSON object, not " + typeErr.Value}
		}
		t := typeErr.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		want := jsonTypeName(t.Kind())
		if t == reflect.TypeOf(json.Number("")) || t == reflect.TypeOf(Number("")) {
			want = "a number"
		}
		return pix.Violation{Field: typeErr.Field, Message: "must be " + want + ", not " + typeErr.Value}
	case errors.As(err, &syntaxErr):
		return pix.Violation{Field: "body", Message: fmt.Sprintf("is not valid JSON (at byte %d)", syntaxErr.Offset)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return pix.Violation{Field: "body", Message: "is truncated JSON"}
	default:
		return pix.Violation{Field: "body", Message: "is not valid JSON"}
	}
}

func jsonTypeName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Interface:
		return "an object"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Float64:
		return "a number"
	}
	return "of another type"
}

// Number is the literal text of a JSON number in a request. Unlike json.Number it
// reports a non-number as a *json.UnmarshalTypeError, which the decoder fills
// with the field's path, so the message names the field.
type Number string

// UnmarshalJSON implements json.Unmarshaler.
func (n *Number) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		*n = Number(b)
		return nil
	}
	return &json.UnmarshalTypeError{Value: jsonValueName(b), Type: reflect.TypeOf(Number(""))}
}

// String returns the number's text.
func (n Number) String() string { return string(n) }

func jsonValueName(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '[':
		return "array"
	case '{':
		return "object"
	case 'n':
		return "null"
	}
	return "another value"
}

// FieldName is a body key as a violation names it: quoted when it is empty or
// holds spaces or unprintable characters, so that the message still starts
// with a recognisable field name.
func FieldName(k string) string {
	if k == "" || strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(k)
	}
	return k
}

// KeyName is how a violation names the top-level body key k: FieldName of k
// made valid UTF-8 and cut at 60 bytes.
func KeyName(k string) string { return joinPath("", k) }
