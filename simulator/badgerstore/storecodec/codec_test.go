package storecodec

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// FuzzEventBody checks that any body survives the stored form byte for
// byte (signatures are over those bytes), and that it is stored as JSON
// exactly when compacting and HTML-escaping it, as the codec does to a raw
// message, leaves it the same.
func FuzzEventBody(f *testing.F) {
	for _, seed := range []string{`{"a":1}`, "{\n \"a\": 1}", `{"a":"<&>"}`, `{"a":"\u003c"}`, "[1,2]", `"s"`, "\u2028", "{\"a\":\"\u2029\"}", "", "\xff",
		`{"a":"x y","b":[1, 2]}`, `{"a":"\"\\"}`, "{\"a\":\"\xe2\x80\"}", `{"a":1}{"b":2}`, ` {"a":1}`, `{"a":"\t"}`, "{\"a\":\"\t\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var compact, escaped bytes.Buffer
		want := len(body) > 0 && json.Compact(&compact, body) == nil
		if want {
			json.HTMLEscape(&escaped, compact.Bytes())
			want = bytes.Equal(escaped.Bytes(), body)
		}
		if got := storableAsJSON(body); got != want {
			t.Fatalf("storableAsJSON(%q) = %v, want %v", body, got, want)
		}
		stored, err := Encode(NewEvent(webhook.Event{ID: "evt_1", Body: body}))
		if err != nil {
			t.Fatal(err)
		}
		var r Event
		if err := Decode(stored, &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Webhook().Body; !bytes.Equal(got, body) {
			t.Fatalf("body %q reads back as %q (stored %s)", body, got, stored)
		}
	})
}

// A decoded record must not refer to the bytes it was read from: Badger
// reuses them once the read returns.
func TestCodec_DecodedStringsAreCopies(t *testing.T) {
	b, err := Encode(Tx{UUID: "c8554fa6-7fc4-4675-af48-25554baa47b0", PixKey: "fulano@example.com", Description: "caf\u00e9 \\ quoted"})
	if err != nil {
		t.Fatal(err)
	}
	var tx pix.Transaction
	if err := Decode(b, &tx); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 'x'
	}
	// The next decode reuses whatever buffer the codec keeps.
	if err := Decode([]byte(`{"UUID":"00000000-0000-0000-0000-000000000000","PixKey":"zzzzzzzzzzzzzzzzzz","Description":"zzzzzzzzzzzz"}`), new(pix.Transaction)); err != nil {
		t.Fatal(err)
	}
	if tx.UUID != "c8554fa6-7fc4-4675-af48-25554baa47b0" || tx.PixKey != "fulano@example.com" || tx.Description != "caf\u00e9 \\ quoted" {
		t.Fatalf("decoded record changed with its input: %+v", tx)
	}
}

func BenchmarkCodec(b *testing.B) {
	tx := Tx{ID: 2, UUID: "c8554fa6-7fc4-4675-af48-25554baa47b0", AccountID: 1000, Kind: pix.TxKind("CASH_OUT"), Status: pix.TxStatusConfirmed, Amount: 1025,
		ExternalID: "3b92cecd-b464-403c-b404-a04bf70bc15c", EndToEndID: "E13140088202603021200WrxyGlrjhWp", PixKey: "dane.powell@example.net",
		PixKeySent: "dane.powell@example.net", KeyType: "EMAIL", Counterpart: pix.Counterpart{Name: "Dane Powell", Document: "53992810232"},
		Document: "53992810232", CreatedAt: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), ProcessedAt: time.Date(2026, 3, 2, 12, 0, 2, 0, time.UTC)}
	stored, err := json.Marshal(tx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encode/encoding-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(tx)
		}
	})
	b.Run("encode/codec", func(b *testing.B) {
		for b.Loop() {
			_, _ = Encode(tx)
		}
	})
	b.Run("decode/encoding-json", func(b *testing.B) {
		for b.Loop() {
			var v pix.Transaction
			_ = json.Unmarshal(stored, &v)
		}
	})
	b.Run("decode/codec", func(b *testing.B) {
		for b.Loop() {
			var v pix.Transaction
			_ = Decode(stored, &v)
		}
	})
}
