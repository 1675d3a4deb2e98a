package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
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

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkWriteJSON writes a charge (the PUT /cob answer) with writeJSON and
// as encoding/json's Encoder wrote it before.
func BenchmarkWriteJSON(b *testing.B) {
	v := cobResponse{Calendario: cobCalendario{Criacao: "2026-03-02T12:00:00.000Z", Expiracao: 3600}, TxID: "abcdefghijklmnopqrstuvwxyz12",
		Loc:      cobLoc{ID: 1, Location: "qr.pixsandbox.example/qr/v2/a168e1420c9f4313936875c5866cbb9f", TipoCob: "cob"},
		Location: "qr.pixsandbox.example/qr/v2/a168e1420c9f4313936875c5866cbb9f", Status: "ATIVA", Valor: cobValor{Original: "25.00"}, Chave: "fulano@example.com",
		PixCopiaECola: "00020101021226820014br.gov.bcb.pix2560qr.pixsandbox.example/qr/v2/a168e1420c9f4313936875c5866cbb9f5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304ABCD"}
	w := &discardWriter{h: http.Header{}}
	b.Run("writeJSON", func(b *testing.B) {
		for b.Loop() {
			writeJSON(w, 201, v)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(v)
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(201)
			_, _ = w.Write(buf.Bytes())
		}
	})
}
