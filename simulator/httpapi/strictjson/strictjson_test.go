package strictjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// strictTarget has a field of every kind the request bodies use.
type strictTarget struct {
	Value   *Number `json:"value"`
	Name    *string `json:"name"`
	Flag    *bool   `json:"flag"`
	Count   *int64  `json:"count"`
	Details *struct {
		Key *string `json:"key"`
	} `json:"details"`
	List  []string `json:"list"`
	Items []struct {
		Nome  string `json:"nome"`
		Valor string `json:"valor"`
	} `json:"items"`
	Info map[string]string `json:"info"`
}

func fields(vs []pix.Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Field
	}
	return out
}

func TestStrictDecode(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields []string // violations, in order
		check  func(t *testing.T, got strictTarget)
	}{
		{name: "OK", body: `{"value":10.5,"name":"á","flag":true,"count":3,"details":{"key":"k"},"list":["a"],"items":[{"nome":"n","valor":"v"}],"info":{"a":"b"},"unknown":[1,{"x":null}]}`,
			check: func(t *testing.T, got strictTarget) {
				if got.Value.String() != "10.5" || *got.Name != "á" || !*got.Flag || *got.Count != 3 || *got.Details.Key != "k" || got.Info["a"] != "b" || got.Items[0].Valor != "v" {
					t.Fatalf("decoded %+v", got)
				}
			}},
		{name: "every type error at once", body: `{"value":"1","name":5,"flag":"yes","count":1.5,"details":[],"list":"a","info":{"a":1,"b":"ok"}}`,
			fields: []string{"count", "details", "flag", "info.a", "list", "name", "value"},
			check: func(t *testing.T, got strictTarget) {
				if got.Value != nil || got.Name != nil || got.Info["b"] != "ok" || len(got.Info) != 1 {
					t.Fatalf("fields of the wrong type must stay unset, the others set: %+v", got)
				}
			}},
		{name: "nested and array paths", body: `{"details":{"key":1},"items":[{"nome":"n","valor":2},{"nome":true}],"list":["a",3]}`,
			fields: []string{"details.key", "items[0].valor", "items[1].nome", "list[1]"}},
		{name: "duplicate key", body: `{"value":1,"value":500}`, fields: []string{"value"}},
		{name: "duplicate nested key", body: `{"details":{"key":"a","key":"b"}}`, fields: []string{"details.key"}},
		{name: "duplicate in unknown object", body: `{"x":{"y":1,"y":2}}`, fields: []string{"x.y"}},
		{name: "keys differing in case name one field", body: `{"value":1,"Value":500}`, fields: []string{"value"}},
		{name: "case-insensitive key alone is fine", body: `{"VALUE":7}`,
			check: func(t *testing.T, got strictTarget) {
				if got.Value.String() != "7" {
					t.Fatalf("VALUE not decoded into value: %+v", got)
				}
			}},
		{name: "invalid UTF-8 in a value", body: "{\"name\":\"a\xffb\"}", fields: []string{"name"}},
		{name: "invalid UTF-8 in a nested value", body: "{\"items\":[{\"nome\":\"\xc3\"}]}", fields: []string{"items[0].nome"}},
		{name: "invalid UTF-8 in a key", body: "{\"na\xe9me\":\"x\"}", fields: []string{"na\uFFFDme"}},
		{name: "unpaired surrogate escape", body: `{"name":"a\ud800b"}`, fields: []string{"name"}},
		{name: "escaped replacement character is fine", body: `{"name":"a\ufffdb\uFFFD` + "\uFFFD" + `"}`},
		{name: "surrogate pair is fine", body: `{"name":"\ud83d\ude00"}`},
		{name: "not an object", body: `[1]`, fields: []string{"body"}},
		{name: "syntax error", body: `{"value":}`, fields: []string{"body"}},
		{name: "trailing data", body: `{} {}`, fields: []string{"body"}},
		{name: "too deep", body: `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, fields: []string{"body"}},
		{name: "null fields", body: `{"value":null,"details":null,"list":null}`},
		{name: "problems beyond the bound are counted, not listed", body: `{"info":{` + strings.Repeat(`"k":1,`, 150) + `"k":1}}`,
			fields: append(slices.Repeat([]string{"info.k"}, 100), "body")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strictTarget
			vs := Decode([]byte(tt.body), &got)
			if !reflect.DeepEqual(fields(vs), append([]string{}, tt.fields...)) && !(len(vs) == 0 && len(tt.fields) == 0) {
				t.Fatalf("violations %v, want fields %v", vs, tt.fields)
			}
			for _, v := range vs {
				if !strings.Contains(v.Message, " ") || !utf8.ValidString(v.Message) || !utf8.ValidString(v.Field) {
					t.Errorf("violation %+v is not a readable sentence", v)
				}
			}
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func TestMergeViolations(t *testing.T) {
	decoding := []pix.Violation{{Field: "externalId", Message: "must be a string, not number"}, {Field: "details", Message: "must be an object, not string"}}
	validation := pix.Invalid(pix.CodeHTTPError,
		pix.Violation{Field: "externalId", Message: "is required"},
		pix.Violation{Field: "details.key", Message: "is required"},
		pix.Violation{Field: "description", Message: "must be at most 140 characters"},
		pix.Violation{Field: "detailsX", Message: "another field"})
	err := Merge(pix.CodeHTTPError, decoding, validation)
	e, ok := err.(*pix.Error)
	if !ok || e.Code != pix.CodeHTTPError || e.Kind != pix.KindInvalid {
		t.Fatalf("merged = %#v", err)
	}
	if got, want := fields(e.Violations), []string{"externalId", "details", "description", "detailsX"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	// A validation error of another kind adds nothing.
	err = Merge(pix.CodeHTTPError, decoding, pix.Errorf(pix.KindUnprocessable, pix.CodeDictKeyNotFound, "x"))
	if got := fields(err.(*pix.Error).Violations); len(got) != 2 {
		t.Fatalf("fields %v", got)
	}
}

// FuzzStrictDecode checks the strict decoder against encoding/json: it never
// panics; a body it accepts is valid UTF-8, has no key twice in an object and
// decodes exactly as encoding/json decodes it; a body encoding/json refuses
// is refused too.
func FuzzStrictDecode(f *testing.F) {
	for _, s := range []string{
		`{"value":10.5,"name":"x","details":{"key":"k"},"items":[{"nome":"a","valor":"b"}],"info":{"a":"b"}}`,
		`{"value":1,"value":2}`, `{"Value":1,"value":2}`, "{\"name\":\"\xff\"}", `{"name":"\ud800"}`, `{"name":"\ufffd"}`,
		`{"count":1e3}`, `{"count":99999999999999999999}`, `[]`, `null`, `{"items":[null,{"nome":null}]}`, `{"a":{"a":{"a":{}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got strictTarget
		vs := Decode(body, &got)
		var want strictTarget
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		stdErr := dec.Decode(&want)
		if stdErr == nil && dec.More() {
			stdErr = errTrailing
		}
		for _, v := range vs {
			if v.Field == "" || v.Message == "" || !utf8.ValidString(v.Field+v.Message) {
				t.Fatalf("violation %+v", v)
			}
		}
		if len(vs) > 0 {
			return
		}
		if stdErr != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", body, stdErr)
		}
		if !utf8.Valid(body) {
			t.Fatalf("accepted invalid UTF-8 %q", body)
		}
		if hasDuplicateKey(t, body) {
			t.Fatalf("accepted a duplicated key in %q", body)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, encoding/json %+v", got, want)
		}
	})
}

// hasDuplicateKey reports an object of body with a key twice, compared
// exactly, by a walk independent of the decoder under test.
func hasDuplicateKey(t *testing.T, body []byte) bool {
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case dupObject:
			return x.dup
		}
		return false
	}
	v, err := parseDup(json.NewDecoder(bytes.NewReader(body)))
	if err != nil {
		t.Fatalf("reparse %q: %v", body, err)
	}
	return walk(v)
}

type dupObject struct{ dup bool }

func parseDup(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		out := dupObject{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if seen[k.(string)] {
				out.dup = true
			}
			seen[k.(string)] = true
			v, err := parseDup(dec)
			if err != nil {
				return nil, err
			}
			if d, ok := v.(dupObject); ok && d.dup {
				out.dup = true
			}
		}
		_, err := dec.Token()
		return out, err
	case json.Delim('['):
		var arr []any
		for dec.More() {
			v, err := parseDup(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return tok, nil
}
