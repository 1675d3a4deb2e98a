package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// writeJSON writes what encoding/json's Encoder writes without HTML escaping,
// newline included; and the check test binaries run refuses a body that
// differs.
func TestWriteJSON_SameAsEncodingJSON(t *testing.T) {
	v := map[string]any{
		"name": "Fulano <Tal> & Cia\u2028", "amount": wire.Money(1234_50), "at": wire.Time(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)),
		"list": []any{nil, 1.5, "\x01\xff"}, "b": map[string]int{"z": 1, "a": 2},
	}
	rec := httptest.NewRecorder()
	writeJSON(rec, 201, v)
	want := `{"amount":1234.50,"at":"2026-03-02T12:00:00.000Z","b":{"a":2,"z":1},"list":[null,1.5,"\u0001\ufffd"],"name":"Fulano <Tal> & Cia\u2028"}` + "\n"
	if rec.Code != 201 || rec.Body.String() != want {
		t.Fatalf("writeJSON = %d %q, want 201 %q", rec.Code, rec.Body.String(), want)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "differs from encoding/json") {
			t.Fatalf("a differing body: recovered %v, want the check's panic", p)
		}
	}()
	checkSameAsEncodingJSON(v, []byte(`{"amount":1234.5}`))
}
