package strictjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Bodies of every kind the strict walk reports, and well-formed ones.
var agreementBodies = []string{
	`{"value":10.5,"name":"á","flag":true,"count":3,"details":{"key":"k"},"list":["a"],"items":[{"nome":"n","valor":"v"}],"info":{"a":"b"},"unknown":[1,{"x":null}]}`,
	`{"value":"1","name":5,"flag":"yes","count":1.5,"details":[],"list":"a","info":{"a":1,"b":"ok"}}`,
	`{"details":{"key":1},"items":[{"nome":"n","valor":2},{"nome":true}],"list":["a",3]}`,
	`{"value":1,"value":500}`, `{"details":{"key":"a","key":"b"}}`, `{"x":{"y":1,"y":2}}`, `{"value":1,"Value":500}`,
	`{"VALUE":7}`, "{\"name\":\"a\xffb\"}", "{\"items\":[{\"nome\":\"\xc3\"}]}", "{\"na\xe9me\":\"x\"}",
	`{"name":"a\ud800b"}`, `{"name":"a\ufffdb\uFFFD` + "\uFFFD" + `"}`, `{"name":"\ud83d\ude00"}`, `[1]`, `{"value":}`,
	`{} {}`, `{}  `, "{}\n\t", `{} x`, `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
	`{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`,
	`{"value":null,"details":null,"list":null}`, `null`, `"x"`, `{"n\u0061me":"x"}`, `{"name":"x","n\u0061me":"y"}`,
	`{"items":[{"nome":"a"},{"nome":"b"}]}`, `{"items":[{"nome":"a","NOME":"b"}]}`, `{"info":{"a":"1","A":"2"}}`,
	`{"count":99999999999999999999}`, `{"count":1e3}`, `{"value":-0.5e-3}`, `{"name":"x\"y","flag":false}`,
	`{"name":"{\"a\":1,\"a\":2}"}`, `{"a":[{"b":1},{"b":2}],"b":3}`, `{"value":1,}`, `{"value" : 1 , "name" : "x"}`,
	`{"info":{"k":"v"},"info":null}`, `{"key":"` + "\u212a" + `"}`, `{"` + "\u212a" + `ey":"x","key":"y"}`,
}

type withJSONNumber struct {
	N json.Number `json:"n"`
}

type withTime struct {
	At time.Time `json:"at"`
}

type withStringOption struct {
	N int `json:"n,string"`
}

// Decode gives the same violations and the same value whether a body takes the
// fast path or the strict walk.
func TestDecode_FastPathAgreesWithStrict(t *testing.T) {
	for _, body := range agreementBodies {
		agree(t, []byte(body))
	}
	for _, b := range []string{`{"n":"12"}`, `{"n":12}`} {
		for _, dst := range []func() any{func() any { return new(withJSONNumber) }, func() any { return new(withStringOption) }} {
			fast, strict := dst(), dst()
			vs, want := Decode([]byte(b), fast), decodeStrict([]byte(b), strict)
			if !reflect.DeepEqual(vs, want) || !reflect.DeepEqual(fast, strict) {
				t.Errorf("%s into %T: %v %+v, strict %v %+v", b, fast, vs, fast, want, strict)
			}
		}
	}
}

func agree(t *testing.T, body []byte) {
	t.Helper()
	var fast, strict strictTarget
	vs, want := Decode(body, &fast), decodeStrict(body, &strict)
	if !reflect.DeepEqual(vs, want) {
		t.Fatalf("%q: violations %v, strict %v", body, vs, want)
	}
	if !reflect.DeepEqual(fast, strict) {
		t.Fatalf("%q: decoded %+v, strict %+v", body, fast, strict)
	}
}

// Well-formed bodies take the fast path; every body with something to report
// or in doubt does not, and leaves dst as it was.
func TestDecode_FastPathTaken(t *testing.T) {
	for _, body := range []string{
		`{"value":10.5,"name":"á","details":{"key":"k"},"items":[{"nome":"n","valor":"v"},{"nome":"m"}],"info":{"a":"b","B":"c"}}`,
		`{"name":"x\"y: \\\"z","count":-3}`, `{"name":"{\"a\":1,\"a\":2}"}`, " {\"VALUE\":7}\n", `null`, `{"name":"\u00e1"}`,
	} {
		var got strictTarget
		if !decodeFast([]byte(body), &got) {
			t.Errorf("%s: strict path, want the fast path", body)
		}
	}
	for _, body := range []string{
		`{"value":1,"value":2}`, `{"value":1,"VALUE":2}`, `{"details":{"key":"a","Key":"b"}}`, `{"n\u0061me":"x"}`,
		`{"name":"\ud83d\ude00"}`, "{\"name\":\"a\xffb\"}", `{"` + "\u212a" + `ey":"x"}`, `{} {}`, `{} x`,
		`{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, `{"value":"1"}`, `{"name":5}`, `[1]`, `{"value":}`,
	} {
		got := strictTarget{List: []string{"kept"}}
		if decodeFast([]byte(body), &got) {
			t.Errorf("%s: fast path, want the strict walk", body)
		}
		if len(got.List) != 1 || got.List[0] != "kept" || got.Name != nil || got.Value != nil {
			t.Errorf("%s: dst changed by a refused fast path: %+v", body, got)
		}
	}
	for _, dst := range []any{new(withJSONNumber), new(withTime), new(withStringOption), new(struct{ U uint })} {
		if decodeFast([]byte(`{}`), dst) {
			t.Errorf("%T takes the fast path", dst)
		}
	}
	if !FastPath(reflect.TypeFor[strictTarget]()) {
		t.Error("strictTarget cannot take the fast path")
	}
}

// FuzzDecodeFastPathAgrees checks that Decode, fast path and all, answers
// every body as the strict walk alone does: the same violations and the same
// decoded value.
func FuzzDecodeFastPathAgrees(f *testing.F) {
	for _, s := range agreementBodies {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { agree(t, body) })
}

func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"value":10.5,"name":"Fulano de Tal","details":{"key":"someone@example.org"},"items":[{"nome":"n","valor":"v"}],"info":{"a":"b"}}`)
	for _, tc := range []struct {
		name   string
		decode func([]byte, any)
	}{
		{"fast", func(d []byte, dst any) { Decode(d, dst) }},
		{"strict", func(d []byte, dst any) { decodeStrict(d, dst) }},
		{"encoding-json", func(d []byte, dst any) {
			dec := json.NewDecoder(bytes.NewReader(d))
			dec.UseNumber()
			_ = dec.Decode(dst)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				var got strictTarget
				tc.decode(body, &got)
			}
		})
	}
}
