package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The fast path. Most bodies are well formed, and for them the strict walk (a
// generic tree of every value, then a type check of the tree, then the
// decode) costs five times a plain decode. A body takes the fast path when a
// scan of its bytes proves that the strict walk could find nothing to report
// but a type error (plainBody), dst's type is one whose fields encoding/json
// refuses exactly where the type check would (fastType), and encoding/json
// then decodes the body with nothing after it. Any doubt sends the body down
// the strict path, which alone writes violations; the fast path never reports
// one. FuzzDecodeFastPathAgrees checks that both paths give the same answer
// and the same dst.

// fastMaxDepth is the deepest nesting the fast path takes, well under maxDepth.
const fastMaxDepth = 32

// decodeFast decodes data into dst when the fast path applies and succeeds,
// and reports whether it did; otherwise dst is left as it was.
func decodeFast(data []byte, dst any) bool {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.IsNil() || !fastType(v.Type().Elem()) || !plainBody(data) {
		return false
	}
	// Decode into a copy, so that a body refused halfway leaves dst as it
	// was for the strict path.
	trial := reflect.New(v.Type().Elem())
	trial.Elem().Set(v.Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(trial.Interface()); err != nil {
		return false
	}
	if len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")) > 0 {
		return false // trailing data: the strict path reports it
	}
	v.Elem().Set(trial.Elem())
	return true
}

// plainBody scans a body for anything the strict walk reports that encoding/json
// accepts: invalid UTF-8, a \u escape of a surrogate (paired or not), a key
// given twice in one object (compared without regard to ASCII case), a key
// with an escape or a byte outside ASCII (not compared here), nesting deeper
// than fastMaxDepth. It may turn away a body the strict walk accepts (the
// strict walk then decides), never the reverse.
func plainBody(data []byte) bool {
	if !utf8.Valid(data) || bytes.Contains(data, []byte(`\ud`)) || bytes.Contains(data, []byte(`\uD`)) {
		return false
	}
	type container struct {
		object bool
		keys   [][]byte
	}
	var open []container
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '{', '[':
			if open = append(open, container{object: c == '{'}); len(open) > fastMaxDepth {
				return false
			}
		case '}', ']':
			if len(open) == 0 {
				return false
			}
			open = open[:len(open)-1]
		case '"':
			end, escaped := stringEnd(data, i+1)
			if end < 0 {
				return false
			}
			if len(open) > 0 && open[len(open)-1].object && isKey(data, end+1) {
				key := data[i+1 : end]
				if escaped || !ascii(key) {
					return false
				}
				top := &open[len(open)-1]
				for _, k := range top.keys {
					if bytes.EqualFold(k, key) {
						return false
					}
				}
				top.keys = append(top.keys, key)
			}
			i = end
		}
	}
	return true
}

// stringEnd returns the index of the quote that closes the string whose
// content starts at i, and whether the string holds an escape; -1 when it
// never closes.
func stringEnd(data []byte, i int) (int, bool) {
	escaped := false
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, escaped
}

// isKey reports whether the string that ended before i is an object key: the
// next byte that is not whitespace is a colon.
func isKey(data []byte, i int) bool {
	for ; i < len(data); i++ {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

var fastTypes sync.Map // reflect.Type → bool

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fastType reports whether encoding/json refuses a value for a field of t
// exactly where the type check (typeChecker) reports one, for every field
// t holds: strings, booleans, integers, floats, Number, structs, slices,
// arrays, maps with string keys, pointers and interfaces of them. It is false
// for json.Number (encoding/json takes a quoted number into it, the check does
// not), for any other type that decodes itself (json.Unmarshaler,
// encoding.TextUnmarshaler: time.Time among them), and for a field tagged
// ",string"; such a type always takes the strict path.
func fastType(t reflect.Type) bool {
	if ok, found := fastTypes.Load(t); found {
		return ok.(bool)
	}
	ok := fastTypeOf(t, map[reflect.Type]bool{})
	fastTypes.Store(t, ok)
	return ok
}

func fastTypeOf(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == numberType {
		return true
	}
	if seen[t] {
		return true // a recursive type: judged where it started
	}
	seen[t] = true
	if t == jsonNumberType || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice, reflect.Array:
		return fastTypeOf(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && fastTypeOf(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if slices.Contains(strings.Split(opts, ","), "string") || !fastTypeOf(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false // unsigned integers, complex numbers, channels, functions
}

// FastPath reports whether a body decoded into a value of type t can take the
// fast path (fastType): httpapi's tests check it for every request type, so
// that a field added to a request cannot quietly turn it off.
func FastPath(t reflect.Type) bool { return fastType(t) }
